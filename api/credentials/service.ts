import { allAllowed, assertPublicUrl, DestinationRefusedError, type Clock, type GuardOptions, type Logger } from '../../core/index.js'
import type { CredentialRow, Repos } from '../../db/index.js'
import type { Auditor } from '../audit/auditor.js'
import { ApiError } from '../http/errors.js'
import type { RequestInfo } from '../http/route.js'
import { ValidationError } from '../http/validation.js'
import type { Principal } from '../security/principal.js'
import { CredentialDecryptError, type CredentialCipher } from './crypto.js'
import { credentialProvider, type CredentialProvider } from './providers.js'
import type { CredentialResponseT, CredentialUpsertT } from './schema.js'

const iso = (ms: number) => new Date(ms).toISOString()
type Fields = Record<string, string>

/** Shorter secrets are masked whole: four characters of eleven would give away too much. */
export const MASK_MIN_CHARS = 12
export const FULL_MASK = '••••••••'

/** How a secret is shown: its last 4 characters after "••••", or nothing of it when short. */
export function maskSecret(value: string): string {
  const chars = Array.from(value)
  return chars.length < MASK_MIN_CHARS ? FULL_MASK : `••••${chars.slice(-4).join('')}`
}

/**
 * The additional data of a row's sealed secrets: its organization, its provider and its plain
 * fields exactly as stored. Moving the row, or pointing its base_url at another host so the key
 * would be sent there, makes the secrets fail to open.
 */
function additionalData(organizationId: string, provider: string, plainFields: string): Buffer {
  return Buffer.from(JSON.stringify(['ozan.credential', organizationId, provider, plainFields]))
}

/** Plain fields of a row; an unreadable row's may be damaged too, and then show as none. */
function parsePlain(text: string): Fields {
  try {
    const value: unknown = JSON.parse(text)
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Fields) : {}
  } catch {
    return {}
  }
}

export interface CredentialDeps {
  repos: Repos
  cipher: CredentialCipher
  clock: Clock
  auditor: Auditor
  logger: Logger
  /** The outbound guard a provider's base URL must pass when stored (provider-network.ts). */
  guard: GuardOptions
}

/** The organization's provider credentials: stored sealed, shown masked, revealed only in-process. */
export class CredentialService {
  constructor(private readonly deps: CredentialDeps) {}

  list(by: Principal): CredentialResponseT[] {
    return this.deps.repos.credentials.list(by.organizationId).map((row) => {
      try {
        return this.toResponse(row, this.openSecrets(row))
      } catch (err) {
        if (!(err instanceof CredentialDecryptError)) throw err
        // One unreadable row must not hide the others; the caller sees it and can store it again.
        this.deps.logger.warn(
          { organization_id: row.organization_id, provider: row.provider, key_id: row.key_id, reason: err.message },
          'stored credential cannot be decrypted',
        )
        return this.toResponse(row, null)
      }
    })
  }

  async upsert(by: Principal, input: CredentialUpsertT, req: RequestInfo): Promise<CredentialResponseT> {
    const provider = credentialProvider(input.provider)
    if (!provider) throw new ApiError('bad_request', `Unknown provider ${input.provider}.`) // the schema already refuses it
    await this.checkDestinations(provider, input.fields)
    const secrets: Fields = {}
    const plain: Fields = {}
    for (const f of provider.fields) {
      const value = input.fields[f.name]
      if (value !== undefined) (f.kind === 'secret' ? secrets : plain)[f.name] = value
    }
    const plainFields = JSON.stringify(plain)
    const clear = Buffer.from(JSON.stringify(secrets))
    const { keyId, sealed } = this.deps.cipher.seal(clear, additionalData(by.organizationId, provider.key, plainFields))
    clear.fill(0)
    const now = this.deps.clock.now()
    return this.deps.repos.transaction(() => {
      const replaced = this.deps.repos.credentials.get(by.organizationId, provider.key) !== undefined
      const row = this.deps.repos.credentials.upsert({
        organization_id: by.organizationId,
        provider: provider.key,
        plain_fields: plainFields,
        key_id: keyId,
        sealed,
        created_at: now,
        updated_at: now,
      })
      // Names of the fields only, never their values.
      const fields = provider.fields.map((f) => f.name).filter((n) => n in plain || n in secrets)
      this.deps.auditor.record(by, req, { action: 'credential.upserted', resourceType: 'credential', resourceId: provider.key, metadata: { fields, replaced } })
      return this.toResponse(row, secrets)
    })
  }

  /**
   * The store-time half of the outbound guard for a provider's base URL (each connection is checked
   * again): 422 destination_refused when its host is, or resolves to, an address the guard refuses;
   * 422 insecure_url for plain http outside the operator's allowed ranges, where the key would
   * cross networks in the clear. A name that does not resolve now is accepted: DNS may be down, and
   * the connect-time check refuses it then if it must.
   */
  private async checkDestinations(provider: CredentialProvider, fields: Record<string, string | undefined>): Promise<void> {
    for (const f of provider.fields) {
      const value = fields[f.name]
      if (!f.guarded || value === undefined) continue
      const refuse = (type: string, msg: string) => new ValidationError([{ type, loc: ['body', 'fields', f.name], msg, input: value }])
      let checked
      try {
        checked = await assertPublicUrl(value, this.deps.guard)
      } catch (err) {
        if (!(err instanceof DestinationRefusedError)) throw err
        if (err.reason !== 'unresolvable') throw refuse('destination_refused', err.message)
        checked = null
      }
      if (new URL(value).protocol === 'http:' && !(checked && allAllowed(checked.addresses, this.deps.guard.allow))) {
        throw refuse('insecure_url', 'Use https: plain http is accepted only to addresses the operator allows (OZAN_ALLOW_PRIVATE_CIDRS).')
      }
    }
  }

  delete(by: Principal, provider: string): void {
    if (!this.deps.repos.credentials.delete(by.organizationId, provider)) throw new ApiError('not_found')
  }

  /**
   * Every field of the organization's credential for a provider, secrets in clear, for the code
   * that calls the provider; never sent over HTTP. null when none is stored. Throws
   * CredentialDecryptError when the stored secret cannot be authenticated.
   */
  reveal(organizationId: string, provider: string): Readonly<Fields> | null {
    const row = this.deps.repos.credentials.get(organizationId, provider)
    if (!row) return null
    // Opened first: once the secrets open, the plain fields bound to them are authentic too.
    const secrets = this.openSecrets(row)
    return { ...(JSON.parse(row.plain_fields) as Fields), ...secrets }
  }

  private openSecrets(row: CredentialRow): Fields {
    try {
      const clear = this.deps.cipher.open({ keyId: row.key_id, sealed: row.sealed }, additionalData(row.organization_id, row.provider, row.plain_fields))
      return JSON.parse(clear.toString('utf8')) as Fields
    } catch (err) {
      if (!(err instanceof CredentialDecryptError)) throw err
      throw new CredentialDecryptError(`The stored ${row.provider} credential cannot be decrypted (${err.message}); store it again.`)
    }
  }

  /** `secrets` null: the sealed part could not be opened, so its fields show fully masked. */
  private toResponse(row: CredentialRow, secrets: Fields | null): CredentialResponseT {
    const provider = credentialProvider(row.provider)
    const plain = parsePlain(row.plain_fields)
    const secretNames = secrets ? Object.keys(secrets) : (provider?.fields.filter((f) => f.kind === 'secret' && f.required).map((f) => f.name) ?? [])
    const shown: Fields = { ...plain }
    for (const name of secretNames) shown[name] = secrets ? maskSecret(secrets[name]!) : FULL_MASK
    // Catalog order (api_key before base_url), then anything the catalog no longer names.
    const order = provider?.fields.map((f) => f.name) ?? []
    const rank = (n: string) => (order.includes(n) ? order.indexOf(n) : order.length)
    const names = Object.keys(shown).sort((a, b) => rank(a) - rank(b) || a.localeCompare(b))
    return {
      provider: row.provider,
      name: provider?.name ?? row.provider,
      fields: Object.fromEntries(names.map((n) => [n, shown[n]!])),
      secret_fields: names.filter((n) => secretNames.includes(n)),
      readable: secrets !== null,
      created_at: iso(row.created_at),
      updated_at: iso(row.updated_at),
    }
  }
}
