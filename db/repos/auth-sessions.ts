import type { Db } from '../database.js'

export interface AuthSessionRow {
  id: string
  user_id: string
  organization_id: string
  created_at: number
  expires_at: number
  revoked_at: number | null
  revoked_reason: string | null
}

export interface RefreshTokenRow {
  token_hash: string
  session_id: string
  created_at: number
  used_at: number | null
}

/**
 * Dashboard sessions. Each session is one family of rotating refresh tokens; revoking the
 * session invalidates its access tokens too (they carry the session id).
 */
export class AuthSessionsRepo {
  private readonly insertSession
  private readonly getSession
  private readonly revokeStmt
  private readonly revokeUserStmt
  private readonly revokeUserOrgStmt
  private readonly insertToken
  private readonly getToken
  private readonly markUsedStmt

  constructor(private readonly db: Db) {
    this.insertSession = db.prepare('INSERT INTO auth_sessions (id, user_id, organization_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?)')
    this.getSession = db.prepare<[string], AuthSessionRow>('SELECT * FROM auth_sessions WHERE id = ?')
    this.revokeStmt = db.prepare('UPDATE auth_sessions SET revoked_at = ?, revoked_reason = ? WHERE id = ? AND revoked_at IS NULL')
    this.revokeUserStmt = db.prepare('UPDATE auth_sessions SET revoked_at = ?, revoked_reason = ? WHERE user_id = ? AND revoked_at IS NULL')
    this.revokeUserOrgStmt = db.prepare(
      'UPDATE auth_sessions SET revoked_at = ?, revoked_reason = ? WHERE user_id = ? AND organization_id = ? AND revoked_at IS NULL',
    )
    this.insertToken = db.prepare('INSERT INTO refresh_tokens (token_hash, session_id, created_at) VALUES (?, ?, ?)')
    this.getToken = db.prepare<[string], RefreshTokenRow>('SELECT * FROM refresh_tokens WHERE token_hash = ?')
    // The guard on used_at makes rotation atomic: of two concurrent uses only one wins.
    this.markUsedStmt = db.prepare('UPDATE refresh_tokens SET used_at = ? WHERE token_hash = ? AND used_at IS NULL')
  }

  create(s: Pick<AuthSessionRow, 'id' | 'user_id' | 'organization_id' | 'created_at' | 'expires_at'>, tokenHash: string): void {
    this.db.transaction(() => {
      this.insertSession.run(s.id, s.user_id, s.organization_id, s.created_at, s.expires_at)
      this.insertToken.run(tokenHash, s.id, s.created_at)
    })()
  }

  get(id: string): AuthSessionRow | undefined {
    return this.getSession.get(id)
  }

  findToken(hash: string): RefreshTokenRow | undefined {
    return this.getToken.get(hash)
  }

  /** Marks the old token used and adds its successor; false when the old one was already used. */
  rotate(oldHash: string, newHash: string, sessionId: string, now: number): boolean {
    return this.db.transaction(() => {
      if (this.markUsedStmt.run(now, oldHash).changes !== 1) return false
      this.insertToken.run(newHash, sessionId, now)
      return true
    })()
  }

  revoke(id: string, reason: string, now: number): void {
    this.revokeStmt.run(now, reason, id)
  }

  revokeForUserInOrganization(userId: string, organizationId: string, reason: string, now: number): void {
    this.revokeUserOrgStmt.run(now, reason, userId, organizationId)
  }

  revokeAllForUser(userId: string, reason: string, now: number): void {
    this.revokeUserStmt.run(now, reason, userId)
  }
}
