import type { Db } from '../database.js'
import type { PageRequest } from './workflows.js'

export interface RoleRow {
  id: number
  organization_id: string | null
  key: string
  name: string
  description: string
  permissions: string
  builtin: number
  created_at: number
}

/** Built-in roles (organization_id NULL) and each organization's custom roles. */
export class RolesRepo {
  private readonly listStmt
  private readonly pageStmt
  private readonly countStmt
  private readonly getStmt
  private readonly insertStmt
  private readonly updateStmt
  private readonly deleteStmt
  private readonly usageStmt
  private readonly byKeyStmt
  private readonly deleteSpentInvitationsStmt

  constructor(private readonly db: Db) {
    // Named parameters: better-sqlite3 refuses numbered ones (`?1`) given as positional values.
    this.listStmt = db.prepare<[{ org: string }], RoleRow & { member_count: number }>(
      `SELECT r.*, (SELECT count(*) FROM org_members m WHERE m.role_id = r.id AND m.organization_id = @org) AS member_count
       FROM roles r WHERE r.organization_id IS NULL OR r.organization_id = @org ORDER BY r.builtin DESC, r.id`,
    )
    this.pageStmt = db.prepare<[{ org: string; limit: number; offset: number }], RoleRow & { member_count: number }>(
      `SELECT r.*, (SELECT count(*) FROM org_members m WHERE m.role_id = r.id AND m.organization_id = @org) AS member_count
       FROM roles r WHERE r.organization_id IS NULL OR r.organization_id = @org ORDER BY r.builtin DESC, r.id LIMIT @limit OFFSET @offset`,
    )
    this.countStmt = db.prepare<[{ org: string }], { n: number }>('SELECT count(*) AS n FROM roles WHERE organization_id IS NULL OR organization_id = @org')
    this.getStmt = db.prepare<[{ org: string; id: number }], RoleRow>(
      'SELECT * FROM roles WHERE id = @id AND (organization_id IS NULL OR organization_id = @org)',
    )
    this.byKeyStmt = db.prepare<[{ org: string; key: string }], RoleRow>(
      'SELECT * FROM roles WHERE key = @key AND (organization_id IS NULL OR organization_id = @org)',
    )
    this.insertStmt = db.prepare(
      `INSERT INTO roles (organization_id, key, name, description, permissions, builtin, created_at)
       VALUES (?, ?, ?, ?, ?, 0, ?)`,
    )
    this.updateStmt = db.prepare('UPDATE roles SET name = ?, key = ?, description = ?, permissions = ? WHERE id = ? AND organization_id = ? AND builtin = 0')
    this.deleteStmt = db.prepare('DELETE FROM roles WHERE id = ? AND organization_id = ? AND builtin = 0')
    // Accepted and expired invitations still reference their role (invitations.role_id is a
    // foreign key) but offer it to nobody; they go with the role.
    this.deleteSpentInvitationsStmt = db.prepare(
      'DELETE FROM invitations WHERE role_id = ? AND organization_id = ? AND (accepted_at IS NOT NULL OR expires_at <= ?)',
    )
    this.usageStmt = db.prepare<[{ id: number; now: number }], { n: number }>(
      `SELECT (SELECT count(*) FROM org_members WHERE role_id = @id)
        + (SELECT count(*) FROM invitations WHERE role_id = @id AND accepted_at IS NULL AND expires_at > @now) AS n`,
    )
  }

  list(organizationId: string) {
    return this.listStmt.all({ org: organizationId })
  }
  /** One page of the roles an organization can assign: the built-in ones first, then its own by id. */
  page(organizationId: string, at: PageRequest) {
    return { items: this.pageStmt.all({ org: organizationId, limit: at.limit, offset: at.offset }), total: this.countStmt.get({ org: organizationId })!.n }
  }
  /** A built-in role or one of this organization's custom roles. */
  get(organizationId: string, id: number): RoleRow | undefined {
    return this.getStmt.get({ org: organizationId, id })
  }
  findByKey(organizationId: string, key: string): RoleRow | undefined {
    return this.byKeyStmt.get({ org: organizationId, key })
  }
  insert(organizationId: string, r: { key: string; name: string; description: string; permissions: string[] }, now: number): number {
    return Number(this.insertStmt.run(organizationId, r.key, r.name, r.description, JSON.stringify(r.permissions), now).lastInsertRowid)
  }
  update(organizationId: string, id: number, r: { key: string; name: string; description: string; permissions: string[] }): void {
    this.updateStmt.run(r.name, r.key, r.description, JSON.stringify(r.permissions), id, organizationId)
  }
  /** Deletes a custom role that nobody holds nor is offered (see `usage`), with its spent invitations. */
  delete(organizationId: string, id: number, now: number): void {
    this.db.transaction(() => {
      this.deleteSpentInvitationsStmt.run(id, organizationId, now)
      this.deleteStmt.run(id, organizationId)
    })()
  }
  /** Members holding the role plus pending (unaccepted, unexpired) invitations offering it. */
  usage(id: number, now: number): number {
    return this.usageStmt.get({ id, now })!.n
  }
}
