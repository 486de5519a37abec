import type { Clock } from '../../core/index.js'
import type { Repos } from '../../db/index.js'
import { ApiError } from '../http/errors.js'
import type { AuthMode } from '../http/route.js'
import type { AccessTokens } from './access-tokens.js'
import { looksLikeApiKey, parseApiKey } from './api-key-format.js'
import { memberPermissions, type AuthCache } from './auth-cache.js'
import type { Principal } from './principal.js'
import { sameDigest, sha256Hex } from './random.js'

const LAST_USED_INTERVAL_MS = 60_000
const TOUCHED_MAX = 50_000

type Identity = Omit<Principal, 'environmentId' | 'environment' | 'projectId'>

const unauthenticated = (why?: string) => new ApiError('authentication_required', why)

/**
 * Resolves the caller of a request from `Authorization: Bearer` or `X-API-Key`. Keys, memberships
 * and environments come through the AuthCache (no SQL when nothing changed); the secret, the
 * key's expiry and the session row are checked on every request.
 */
export class Authenticator {
  // Last time each key's last_used_at was written, so busy keys cost one write a minute.
  private readonly touched = new Map<string, number>()

  constructor(
    private readonly repos: Pick<Repos, 'apiKeys' | 'authSessions'>,
    private readonly cache: AuthCache,
    private readonly tokens: AccessTokens,
    private readonly clock: Clock,
  ) {}

  async authenticate(mode: AuthMode, authorization: string | undefined, apiKey: string | undefined, environmentHeader: string | undefined): Promise<Principal> {
    let who: Identity
    if (authorization !== undefined) {
      const m = /^Bearer +(\S+)\s*$/i.exec(authorization)
      if (!m) throw unauthenticated('The Authorization header must be "Bearer <token>".')
      if (looksLikeApiKey(m[1]!)) throw unauthenticated('An API key goes in the X-API-Key header, not in Authorization.')
      const claims = await this.tokens.verify(m[1]!)
      if (!claims) throw unauthenticated('The access token is invalid or expired.')
      // After the await: what another process committed meanwhile must be seen.
      this.cache.sync()
      who = this.bySession(claims)
    } else if (apiKey !== undefined) {
      this.cache.sync()
      who = this.byApiKey(apiKey)
      if (mode === 'S') throw new ApiError('user_session_required')
    } else {
      throw unauthenticated()
    }
    const env = this.cache.environment(who.organizationId, environmentHeader)
    return { ...who, environmentId: env.id, environment: env.slug, projectId: env.project_id }
  }

  private bySession(claims: { sessionId: string; userId: string; organizationId: string }): Identity {
    const session = this.repos.authSessions.get(claims.sessionId)
    if (!session || session.revoked_at !== null || session.expires_at <= this.clock.now() || session.user_id !== claims.userId)
      throw unauthenticated('The session has ended; sign in again.')
    const membership = this.cache.membership(claims.organizationId, claims.userId)
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

  private byApiKey(presented: string): Identity {
    const key = presented.trim()
    const parsed = parseApiKey(key)
    const row = parsed && this.cache.apiKey(parsed.lookup)
    if (!row || !sameDigest(row.secretHash, sha256Hex(key))) throw unauthenticated('The API key is not valid.')
    const now = this.clock.now()
    if (row.expiresAt !== null && row.expiresAt <= now) throw unauthenticated('The API key has expired.')
    if (row.permissions === null) throw unauthenticated("The API key's creator is no longer a member of the organization.")
    if ((this.touched.get(row.id) ?? -Infinity) <= now - LAST_USED_INTERVAL_MS) {
      // Forgetting costs at most one extra write per key, so a full map is simply emptied.
      if (this.touched.size >= TOUCHED_MAX) this.touched.clear()
      this.touched.set(row.id, now)
      this.repos.apiKeys.touch(row.id, now, LAST_USED_INTERVAL_MS)
    }
    return {
      kind: 'api_key',
      userId: row.createdBy,
      organizationId: row.organizationId,
      sessionId: null,
      apiKeyId: row.id,
      permissions: row.permissions,
    }
  }
}
