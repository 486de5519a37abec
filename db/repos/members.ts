import type { Db } from '../database.js'
import type { PageRequest } from './workflows.js'

export interface MemberRow {
  user_id: string
  email: string
  name: string
  role_id: number
  role_key: string
  role_name: string
  created_at: number
}

export interface MemberOrganizationRow {
  id: string
  name: string
  role_key: string
  created_at: number
}

const SELECT = `SELECT m.user_id, u.email, u.name, m.role_id, r.key AS role_key, r.name AS role_name, m.created_at
  FROM org_members m JOIN users u ON u.id = m.user_id JOIN roles r ON r.id = m.role_id`

/** Organization membership, read and changed within one organization. */
export class MembersRepo {
  private readonly listStmt
  private readonly orgCountOfUserStmt
  private readonly getStmt
  private readonly ownersStmt
  private readonly setRoleStmt
  private readonly removeStmt
  private readonly orgsOfUserStmt
  private readonly countStmt

  constructor(db: Db) {
    this.listStmt = db.prepare<{ org: string; limit: number; offset: number }, MemberRow>(
      `${SELECT} WHERE m.organization_id = @org ORDER BY m.created_at, u.email, m.user_id LIMIT @limit OFFSET @offset`,
    )
    this.getStmt = db.prepare<[string, string], MemberRow>(`${SELECT} WHERE m.organization_id = ? AND m.user_id = ?`)
    this.countStmt = db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM org_members WHERE organization_id = ?')
    this.ownersStmt = db.prepare<[string], { n: number }>(
      "SELECT count(*) AS n FROM org_members m JOIN roles r ON r.id = m.role_id WHERE m.organization_id = ? AND r.key = 'owner' AND r.builtin = 1",
    )
    this.setRoleStmt = db.prepare('UPDATE org_members SET role_id = ? WHERE organization_id = ? AND user_id = ?')
    this.removeStmt = db.prepare('DELETE FROM org_members WHERE organization_id = ? AND user_id = ?')
    this.orgsOfUserStmt = db.prepare<{ user: string; limit: number; offset: number }, MemberOrganizationRow>(
      `SELECT o.id, o.name, r.key AS role_key, m.created_at FROM org_members m
       JOIN organizations o ON o.id = m.organization_id JOIN roles r ON r.id = m.role_id
       WHERE m.user_id = @user ORDER BY m.created_at, o.name, o.id LIMIT @limit OFFSET @offset`,
    )
    this.orgCountOfUserStmt = db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM org_members WHERE user_id = ?')
  }

  /** One page of the organization's members, longest-standing first. */
  page(organizationId: string, at: PageRequest): { items: MemberRow[]; total: number } {
    return { items: this.listStmt.all({ org: organizationId, limit: at.limit, offset: at.offset }), total: this.count(organizationId) }
  }
  get(organizationId: string, userId: string): MemberRow | undefined {
    return this.getStmt.get(organizationId, userId)
  }
  count(organizationId: string): number {
    return this.countStmt.get(organizationId)!.n
  }
  ownerCount(organizationId: string): number {
    return this.ownersStmt.get(organizationId)!.n
  }
  setRole(organizationId: string, userId: string, roleId: number): void {
    this.setRoleStmt.run(roleId, organizationId, userId)
  }
  remove(organizationId: string, userId: string): void {
    this.removeStmt.run(organizationId, userId)
  }
  /** One page of the organizations a user belongs to, joined earliest first. */
  organizationsOf(userId: string, at: PageRequest): { items: MemberOrganizationRow[]; total: number } {
    return { items: this.orgsOfUserStmt.all({ user: userId, limit: at.limit, offset: at.offset }), total: this.orgCountOfUserStmt.get(userId)!.n }
  }
}
