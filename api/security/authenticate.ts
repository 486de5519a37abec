import type { Clock } from '../../core/index.js'
import type { MembershipRow, Repos } from '../../db/index.js'
import { ApiError } from '../http/errors.js'
import type { AuthMode } from '../http/route.js'
import { permissionsOfScopes, rolePermissions, type Permission, type Scope } from '../rbac/index.js'
import type { AccessTokens } from './access-tokens.js'
import { looksLikeApiKey, parseApiKey } from './api-key-format.js'
import { resolveEnvironment } from './environment.js'
import type { Principal } from './principal.js'
import { sameDigest, sha256Hex } from './random.js'

const LAST_USED_INTERVAL_MS = 60_000
const TOUCHED_MAX = 50_000

/** A member's permissions, evaluated now. */
export function memberPermissions(m: MembershipRow): ReadonlySet<Permission> {
  return rolePermissions({ builtin: m.role_builtin, key: m.role_key, permissions: m.role_permissions })
}

type Identity = Omit<Principal, 'environmentId' | 'environment' | 'projectId'>

const unauthenticated = (why?: string) => new ApiError('authentication_required', why)

/** Resolves the caller of a request from `Authorization: Bearer` or `X-API-Key`. */
export class Authenticator {
  // Last time each key's last_used_at was written, so busy keys cost one write a minute.
  private readonly touched = new Map<string, number>()

  constructor(
    private readonly repos: Repos,
    private readonly tokens: AccessTokens,
    private readonly clock: Clock,
  ) {}

  async authenticate(
    mode: AuthMode,
    authorization: string | undefined,
    apiKey: string | undefined,
    environmentHeader: string | undefined,
  ): Promise<Principal> {
    let who: Identity
    if (authorization !== undefined) {
      const m = /^Bearer +(\S+)\s*$/i.exec(authorization)
      if (!m) throw unauthenticated('The Authorization header must be "Bearer <token>".')
      if (looksLikeApiKey(m[1]!)) throw unauthenticated('An API key goes in the X-API-Key header, not in Authorization.')
      who = await this.bySession(m[1]!)
    } else if (apiKey !== undefined) {
      who = this.byApiKey(apiKey)
      if (mode === 'S') throw new ApiError('user_session_required')
    } else {
      throw unauthenticated()
    }
    const env = resolveEnvironment(this.repos, who.organizationId, environmentHeader)
    return { ...who, environmentId: env.id, environment: env.slug, projectId: env.project_id }
  }

  private async bySession(token: string): Promise<Identity> {
    const claims = await this.tokens.verify(token)
    if (!claims) throw unauthenticated('The access token is invalid or expired.')
    const session = this.repos.authSessions.get(claims.sessionId)
    if (!session || session.revoked_at !== null || session.expires_at <= this.clock.now() || session.user_id !== claims.userId)
      throw unauthenticated('The session has ended; sign in again.')
    const membership = this.repos.organizations.membership(claims.organizationId, claims.userId)
    if (!membership) throw unauthenticated('You are no longer a member of this organization.')
    return {
      kind: 'user',
      userId: claims.userId,
      organizationId: claims.organizationId,
      sessionId: claims.sessionId,
      apiKeyId: null,
      permissions: memberPermissions(membership),
    }
  }

  private byApiKey(key: string): Identity {
    const parsed = parseApiKey(key.trim())
    const row = parsed && this.repos.apiKeys.findByLookup(parsed.lookup)
    if (!row || !sameDigest(row.secret_hash, sha256Hex(key.trim()))) throw unauthenticated('The API key is not valid.')
    const now = this.clock.now()
    if (row.expires_at !== null && row.expires_at <= now) throw unauthenticated('The API key has expired.')
    let permissions: ReadonlySet<Permission>
    if (row.scopes === null) {
      // An unscoped key acts with its creator's permissions as they are now.
      const membership = this.repos.organizations.membership(row.organization_id, row.created_by)
      if (!membership) throw unauthenticated("The API key's creator is no longer a member of the organization.")
      permissions = memberPermissions(membership)
    } else {
      permissions = permissionsOfScopes(JSON.parse(row.scopes) as Scope[])
    }
    if ((this.touched.get(row.id) ?? -Infinity) <= now - LAST_USED_INTERVAL_MS) {
      // Forgetting costs at most one extra write per key, so a full map is simply emptied.
      if (this.touched.size >= TOUCHED_MAX) this.touched.clear()
      this.touched.set(row.id, now)
      this.repos.apiKeys.touch(row.id, now, LAST_USED_INTERVAL_MS)
    }
    return {
      kind: 'api_key',
      userId: row.created_by,
      organizationId: row.organization_id,
      sessionId: null,
      apiKeyId: row.id,
      permissions,
    }
  }
}
