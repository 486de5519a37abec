import type { EnvironmentRow, MembershipRow, Repos, TenancyVersions, VersionStamp } from '../../db/index.js'
import { permissionsOfScopes, rolePermissions, type Permission, type Scope } from '../rbac/index.js'
import { resolveEnvironment } from './environment.js'

/** What authenticating with an API key needs of its row, read once per change of its organization. */
export interface CachedApiKey {
  id: string
  organizationId: string
  createdBy: string
  secretHash: string
  expiresAt: number | null
  /** Its scopes' permissions, or its creator's as a member; null: an unscoped key whose creator left. */
  permissions: ReadonlySet<Permission> | null
}

/** What `GET /auth/me` and token responses show of a user in an organization. */
export interface AccountView {
  user: { id: string; email: string; name: string; locale: string; emailVerifiedAt: number | null; createdAtIso: string }
  organization: { id: string; name: string }
  /** The member's role key; null when the user is not a member (a scoped key's creator who left). */
  roleKey: string | null
}

interface Entry<V> {
  stamp: VersionStamp
  value: V
}

/** Entries per map; a full map is emptied (the next requests re-read). */
const MAX_ENTRIES = 50_000
/** Distinct X-Environment-Id values remembered per organization (junk ones included). */
const MAX_ENVIRONMENT_VALUES = 64

/** A member's permissions, evaluated now. */
export function memberPermissions(m: MembershipRow): ReadonlySet<Permission> {
  return rolePermissions({ builtin: m.role_builtin, key: m.role_key, permissions: m.role_permissions })
}

/**
 * The rows every authenticated request reads — API key, membership and role, environment,
 * the /me view — kept per organization under `TenancyVersions` stamps, so a hit costs no SQL and
 * any write that could change an answer (through this connection: at once, by trigger; through
 * another: at the next `sync()`) makes the next request read again. Nothing here is time-based:
 * expiry is the caller's to check against its clock on every use.
 *
 * Call `sync()` once per request before the first lookup.
 */
export class AuthCache {
  private readonly keys = new Map<string, Entry<CachedApiKey>>()
  private readonly members = new Map<string, Entry<MembershipRow | null>>()
  private readonly environments = new Map<string, Entry<Map<string, EnvironmentRow>>>()
  private readonly accounts = new Map<string, Entry<AccountView | null>>()

  constructor(
    private readonly repos: Repos,
    private readonly versions: TenancyVersions,
  ) {}

  sync(): void {
    this.versions.sync()
  }

  /** The key with this lookup id, as stored now; undefined when there is none. */
  apiKey(lookup: string): CachedApiKey | undefined {
    const hit = this.keys.get(lookup)
    if (hit && this.versions.isCurrent(hit.stamp, hit.value.organizationId)) return hit.value
    const before = this.versions.changes
    const key = this.readApiKey(lookup)
    // An unknown lookup is not remembered: anyone can send endless made-up ones.
    if (key && this.cacheable(before)) this.remember(this.keys, lookup, key.organizationId, key)
    return key
  }

  membership(organizationId: string, userId: string): MembershipRow | undefined {
    const m = this.cached(
      this.members,
      `${organizationId}:${userId}`,
      organizationId,
      () => this.repos.organizations.membership(organizationId, userId) ?? null,
    )
    return m ?? undefined
  }

  /** `resolveEnvironment`, remembered per organization and normalized header value. */
  environment(organizationId: string, header: string | undefined): EnvironmentRow {
    const value = header?.trim().toLowerCase() ?? ''
    const hit = this.environments.get(organizationId)
    const current = hit && this.versions.isCurrent(hit.stamp, organizationId) ? hit.value : undefined
    const known = current?.get(value)
    if (known) return known
    const before = this.versions.changes
    const env = resolveEnvironment(this.repos, organizationId, header)
    if (!this.cacheable(before)) return env
    // A current entry's stamp still holds, so a row read now belongs under it.
    if (!current) this.remember(this.environments, organizationId, organizationId, new Map([[value, env]]))
    else if (current.size < MAX_ENVIRONMENT_VALUES) current.set(value, env)
    return env
  }

  account(organizationId: string, userId: string): AccountView | null {
    return this.cached(this.accounts, `${organizationId}:${userId}`, organizationId, () => this.readAccount(organizationId, userId))
  }

  private cached<V>(map: Map<string, Entry<V>>, key: string, organizationId: string, read: () => V): V {
    const hit = map.get(key)
    if (hit && this.versions.isCurrent(hit.stamp, organizationId)) return hit.value
    const before = this.versions.changes
    const value = read()
    if (this.cacheable(before)) this.remember(map, key, organizationId, value)
    return value
  }

  /**
   * Whether what was read since `before` may be remembered. Stamps are taken after the read,
   * which is right only if no counter moved during it (reads are synchronous and bump nothing;
   * `changes` proves it). Inside a transaction nothing is remembered: a rollback would undo what
   * was read without bumping anything.
   */
  private cacheable(before: number): boolean {
    return this.versions.changes === before && !this.versions.inTransaction
  }

  private remember<V>(map: Map<string, Entry<V>>, key: string, organizationId: string, value: V): void {
    if (map.size >= MAX_ENTRIES) map.clear()
    map.set(key, { stamp: this.versions.stamp(organizationId), value })
  }

  private readApiKey(lookup: string): CachedApiKey | undefined {
    const row = this.repos.apiKeys.findByLookup(lookup)
    if (!row) return undefined
    let permissions: ReadonlySet<Permission> | null
    if (row.scopes === null) {
      // An unscoped key acts with its creator's permissions as they are now.
      const membership = this.repos.organizations.membership(row.organization_id, row.created_by)
      permissions = membership ? memberPermissions(membership) : null
    } else {
      permissions = permissionsOfScopes(JSON.parse(row.scopes) as Scope[])
    }
    return {
      id: row.id,
      organizationId: row.organization_id,
      createdBy: row.created_by,
      secretHash: row.secret_hash,
      expiresAt: row.expires_at,
      permissions,
    }
  }

  private readAccount(organizationId: string, userId: string): AccountView | null {
    const user = this.repos.users.get(userId)
    const org = this.repos.organizations.get(organizationId)
    if (!user || !org) return null
    const membership = this.repos.organizations.membership(organizationId, userId)
    return {
      user: {
        id: user.id,
        email: user.email,
        name: user.name,
        locale: user.locale,
        emailVerifiedAt: user.email_verified_at,
        createdAtIso: new Date(user.created_at).toISOString(),
      },
      organization: { id: org.id, name: org.name },
      roleKey: membership?.role_key ?? null,
    }
  }
}
