import type { Db } from '../database.js'
import type { PageRequest } from './workflows.js'

export interface InvitationRow {
  id: string
  organization_id: string
  email: string
  role_id: number
  token_hash: string
  invited_by: string | null
  created_at: number
  expires_at: number
  accepted_at: number | null
  accepted_by: string | null
}

const PENDING = 'organization_id = @org AND accepted_at IS NULL AND expires_at > @now'

export class InvitationsRepo {
  private readonly deletePendingStmt
  private readonly insertStmt
  private readonly byTokenStmt
  private readonly acceptStmt
  private readonly listPendingStmt
  private readonly countPendingStmt
  private readonly getStmt
  private readonly revokeStmt

  constructor(private readonly db: Db) {
    this.deletePendingStmt = db.prepare('DELETE FROM invitations WHERE organization_id = ? AND email = ? AND accepted_at IS NULL')
    this.insertStmt = db.prepare(
      `INSERT INTO invitations (id, organization_id, email, role_id, token_hash, invited_by, created_at, expires_at)
       VALUES (@id, @organization_id, @email, @role_id, @token_hash, @invited_by, @created_at, @expires_at)`,
    )
    this.byTokenStmt = db.prepare<[string], InvitationRow>('SELECT * FROM invitations WHERE token_hash = ?')
    this.acceptStmt = db.prepare('UPDATE invitations SET accepted_at = ?, accepted_by = ? WHERE id = ? AND accepted_at IS NULL')
    this.listPendingStmt = db.prepare<{ org: string; now: number; limit: number; offset: number }, InvitationRow>(
      `SELECT * FROM invitations WHERE ${PENDING} ORDER BY created_at DESC, id LIMIT @limit OFFSET @offset`,
    )
    this.countPendingStmt = db.prepare<{ org: string; now: number }, { n: number }>(`SELECT count(*) AS n FROM invitations WHERE ${PENDING}`)
    this.getStmt = db.prepare<[string, string], InvitationRow>('SELECT * FROM invitations WHERE organization_id = ? AND id = ?')
    this.revokeStmt = db.prepare('DELETE FROM invitations WHERE organization_id = ? AND id = ? AND accepted_at IS NULL')
  }

  /** Stores an invitation, replacing any pending one for the same email. */
  replace(row: Omit<InvitationRow, 'accepted_at' | 'accepted_by'>): void {
    this.db.transaction(() => {
      this.deletePendingStmt.run(row.organization_id, row.email)
      this.insertStmt.run(row)
    })()
  }
  findByToken(hash: string): InvitationRow | undefined {
    return this.byTokenStmt.get(hash)
  }
  /** False when someone accepted it first. */
  markAccepted(id: string, userId: string, now: number): boolean {
    return this.acceptStmt.run(now, userId, id).changes === 1
  }
  /** One page of the organization's pending invitations (neither accepted nor expired at `now`), newest first. */
  pagePending(organizationId: string, now: number, at: PageRequest): { items: InvitationRow[]; total: number } {
    const pending = { org: organizationId, now }
    return { items: this.listPendingStmt.all({ ...pending, limit: at.limit, offset: at.offset }), total: this.countPendingStmt.get(pending)!.n }
  }
  get(organizationId: string, id: string): InvitationRow | undefined {
    return this.getStmt.get(organizationId, id)
  }
  revoke(organizationId: string, id: string): boolean {
    return this.revokeStmt.run(organizationId, id).changes === 1
  }
}
