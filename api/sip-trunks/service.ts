import { randomUUID } from 'node:crypto'
import { checkHost, DestinationRefusedError, type Clock, type GuardOptions } from '../../core/index.js'
import type { Repos, SipTrunkChanges, SipTrunkRow } from '../../db/index.js'
import { parseHostPort } from '../../telephony/index.js'
import type { Auditor } from '../audit/auditor.js'
import { ApiError } from '../http/errors.js'
import type { RequestInfo } from '../http/route.js'
import { ValidationError } from '../http/validation.js'
import type { Principal } from '../security/principal.js'
import { MAX_TRUNKS, type SipTrunkCreateT, type SipTrunkResponseT, type SipTrunkUpdateT } from './schema.js'
import type { TrunkPasswordSealer } from './sealing.js'

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())
const scope = (p: Principal) => ({ organizationId: p.organizationId, environmentId: p.environmentId })

export interface SipTrunkDeps {
  repos: Repos
  sealer: TrunkPasswordSealer
  clock: Clock
  auditor: Auditor
  /** The outbound guard the carrier's addresses must pass (checked when stored and when dialled). */
  guard: GuardOptions
}

/** SIP trunks of the request's environment: the carriers' addresses and the account to use with them. */
export class SipTrunkService {
  /** Told when a trunk is created, changed or deleted, so the SIP service follows (registration, sources). */
  readonly #listeners = new Set<(trunkId: string) => void>()

  constructor(private readonly deps: SipTrunkDeps) {}

  /** Returns the function that stops listening. */
  onChanged(listener: (trunkId: string) => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  #changed(trunkId: string): void {
    for (const listener of this.#listeners) listener(trunkId)
  }

  list(p: Principal): SipTrunkResponseT[] {
    return this.deps.repos.sipTrunks.list(scope(p)).map(trunkResponse)
  }

  get(p: Principal, id: string): SipTrunkResponseT {
    return trunkResponse(this.row(p, id))
  }

  async create(p: Principal, body: SipTrunkCreateT, req: RequestInfo): Promise<SipTrunkResponseT> {
    await this.checkDestinations(body.host, body.outbound_proxy)
    const { repos, clock, sealer } = this.deps
    const id = randomUUID()
    const now = clock.now()
    const sealed = body.password === undefined ? null : sealer.seal(p.organizationId, id, body.password)
    const row = repos.transaction(() => {
      if (repos.sipTrunks.count(scope(p)) >= MAX_TRUNKS) throw new ApiError('sip_trunk_limit')
      const inserted = repos.sipTrunks.insert({
        id,
        organization_id: p.organizationId,
        environment_id: p.environmentId,
        name: body.name,
        host: body.host,
        port: body.port,
        transport: body.transport,
        outbound_proxy: body.outbound_proxy,
        domain: body.domain,
        username: body.username,
        auth_username: body.auth_username,
        key_id: sealed?.keyId ?? null,
        password_sealed: sealed?.sealed ?? null,
        register: body.register ? 1 : 0,
        register_expires_s: body.register_expires_s,
        allowed_sources: JSON.stringify(body.allowed_sources),
        created_by: p.userId,
        created_at: now,
        updated_at: now,
      })
      // Names of what was set, never the password.
      this.deps.auditor.record(p, req, { action: 'sip_trunk.created', resourceType: 'sip_trunk', resourceId: id, metadata: { password_set: sealed !== null } })
      return inserted
    })
    this.#changed(row.id)
    return trunkResponse(row)
  }

  async update(p: Principal, id: string, body: SipTrunkUpdateT, req: RequestInfo): Promise<SipTrunkResponseT> {
    const current = this.row(p, id)
    const host = body.host ?? current.host
    const proxy = body.outbound_proxy === undefined ? current.outbound_proxy : body.outbound_proxy
    if (body.host !== undefined || body.outbound_proxy !== undefined) await this.checkDestinations(host, proxy)
    const register = body.register ?? current.register === 1
    const username = body.username === undefined ? current.username : body.username
    if (register && username === null)
      throw new ValidationError([
        { type: 'value_error', loc: ['body', body.username === null ? 'username' : 'register'], msg: 'Registration needs a username' },
      ])
    const changes: SipTrunkChanges = { updated_at: this.deps.clock.now() }
    for (const k of ['name', 'host', 'port', 'transport', 'register_expires_s'] as const) if (body[k] !== undefined) Object.assign(changes, { [k]: body[k] })
    for (const k of ['outbound_proxy', 'domain', 'username', 'auth_username'] as const) if (body[k] !== undefined) Object.assign(changes, { [k]: body[k] })
    if (body.register !== undefined) changes.register = body.register ? 1 : 0
    if (body.allowed_sources !== undefined) changes.allowed_sources = JSON.stringify(body.allowed_sources)
    if (body.password !== undefined) {
      const sealed = body.password === null ? null : this.deps.sealer.seal(p.organizationId, id, body.password)
      changes.key_id = sealed?.keyId ?? null
      changes.password_sealed = sealed?.sealed ?? null
    }
    const updated = this.deps.repos.transaction(() => {
      const row = this.deps.repos.sipTrunks.update(scope(p), id, changes)
      if (!row) throw new ApiError('not_found')
      const fields = Object.keys(body).filter((k) => body[k as keyof SipTrunkUpdateT] !== undefined)
      this.deps.auditor.record(p, req, { action: 'sip_trunk.updated', resourceType: 'sip_trunk', resourceId: id, metadata: { fields } })
      return row
    })
    this.#changed(id)
    return trunkResponse(updated)
  }

  remove(p: Principal, id: string): void {
    this.deps.repos.transaction(() => {
      this.row(p, id)
      const numbers = this.deps.repos.phoneNumbers.countOnTrunk(id)
      if (numbers > 0) throw new ApiError('trunk_in_use', `${numbers} phone number${numbers === 1 ? '' : 's'} still use this trunk: move or delete them first.`)
      this.deps.repos.sipTrunks.delete(scope(p), id)
    })
    this.#changed(id)
  }

  private row(p: Principal, id: string): SipTrunkRow {
    const row = this.deps.repos.sipTrunks.get(scope(p), id)
    if (!row) throw new ApiError('not_found')
    return row
  }

  /**
   * The store-time half of the outbound guard (each connection is checked again): 422
   * destination_refused when the host or the outbound proxy is, or resolves to, an address the
   * guard refuses. A name that does not resolve now is accepted: DNS may be down, and the
   * connect-time check refuses it then if it must.
   */
  private async checkDestinations(host: string, outboundProxy: string | null): Promise<void> {
    const targets: [string, string][] = [['host', host]]
    const proxy = outboundProxy === null ? undefined : parseHostPort(outboundProxy)
    if (proxy) targets.push(['outbound_proxy', proxy.host])
    for (const [field, target] of targets) {
      try {
        await checkHost(target, this.deps.guard)
      } catch (err) {
        if (!(err instanceof DestinationRefusedError)) throw err
        if (err.reason === 'unresolvable') continue
        throw new ValidationError([{ type: 'destination_refused', loc: ['body', field], msg: err.message, input: target }])
      }
    }
  }
}

export function trunkResponse(row: SipTrunkRow): SipTrunkResponseT {
  return {
    id: row.id,
    name: row.name,
    host: row.host,
    port: row.port,
    transport: row.transport,
    outbound_proxy: row.outbound_proxy,
    domain: row.domain,
    username: row.username,
    auth_username: row.auth_username,
    password_set: row.password_sealed !== null,
    register: row.register === 1,
    register_expires_s: row.register_expires_s,
    allowed_sources: JSON.parse(row.allowed_sources) as string[],
    registration: {
      state: row.register === 1 ? row.registration_state : 'unregistered',
      error: row.register === 1 ? row.registration_error : null,
      changed_at: iso(row.registration_changed_at),
      registered_until: row.register === 1 ? iso(row.registered_until) : null,
    },
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  }
}
