import { randomUUID } from 'node:crypto'
import type { Clock } from '../../core/index.js'
import type { ApiKeyRow, PageRequest, Repos } from '../../db/index.js'
import { ApiError } from '../http/errors.js'
import { SCOPE_PERMISSIONS, type Permission, type Scope } from '../rbac/index.js'
import { memberPermissions } from '../security/auth-cache.js'
import { displayPrefix, generateApiKey } from '../security/api-key-format.js'
import type { Principal } from '../security/principal.js'
import type { EntitlementGuard } from '../entitlements/index.js'
import type { ApiKeyCreatedResponseT, ApiKeyResponseT } from './schema.js'

const DAY_MS = 86_400_000
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

export class ApiKeyService {
  constructor(
    private readonly repos: Repos,
    private readonly clock: Clock,
    /** The plan's API-key limit (402 quota_exceeded). */
    private readonly quota: Pick<EntitlementGuard, 'assertRoom'>,
  ) {}

  create(by: Principal, input: { name: string; expires_in_days?: number; scopes?: Scope[] }): ApiKeyCreatedResponseT {
    // A key can never hold more than whoever makes it (spec: 400 invalid_scope): neither more than
    // the calling credential (a scoped key) nor more than the member recorded as its creator, now.
    const membership = this.repos.organizations.membership(by.organizationId, by.userId)
    const member = membership ? memberPermissions(membership) : new Set<Permission>()
    for (const scope of input.scopes ?? []) {
      const missing = SCOPE_PERMISSIONS[scope].filter((p) => !by.permissions.has(p) || !member.has(p))
      if (missing.length) throw new ApiError('invalid_scope', `You do not hold the scope "${scope}" (missing ${missing.join(', ')}).`)
    }
    // An unscoped key acts with its creator's member permissions, so a scoped key may not mint one.
    if (!input.scopes && (!membership || [...member].some((p) => !by.permissions.has(p))))
      throw new ApiError('invalid_scope', 'A key without scopes would hold more than this API key; list the scopes it needs.')
    const now = this.clock.now()
    const generated = generateApiKey()
    const row: Omit<ApiKeyRow, 'last_used_at'> = {
      id: randomUUID(),
      organization_id: by.organizationId,
      created_by: by.userId,
      name: input.name,
      lookup: generated.lookup,
      secret_hash: generated.hash,
      scopes: input.scopes ? JSON.stringify(input.scopes) : null,
      created_at: now,
      expires_at: input.expires_in_days ? now + input.expires_in_days * DAY_MS : null,
    }
    this.quota.assertRoom(by.organizationId, 'api_keys')
    this.repos.apiKeys.insert(row)
    return { ...this.toResponse({ ...row, last_used_at: null }), key: generated.key }
  }

  list(by: Principal, at: PageRequest): { items: ApiKeyResponseT[]; total: number } {
    const page = this.repos.apiKeys.page(by.organizationId, at)
    return { items: page.items.map((r) => this.toResponse(r)), total: page.total }
  }

  delete(by: Principal, id: string): void {
    if (!this.repos.apiKeys.delete(by.organizationId, id)) throw new ApiError('not_found')
  }

  private toResponse(r: ApiKeyRow): ApiKeyResponseT {
    const creator = this.repos.users.get(r.created_by)
    return {
      id: r.id,
      name: r.name,
      prefix: displayPrefix(r.lookup),
      scopes: r.scopes === null ? null : (JSON.parse(r.scopes) as Scope[]),
      created_at: iso(r.created_at)!,
      expires_at: iso(r.expires_at),
      last_used_at: iso(r.last_used_at),
      created_by: { id: r.created_by, email: creator?.email ?? null, name: creator?.name ?? null },
    }
  }
}
