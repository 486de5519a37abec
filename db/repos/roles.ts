import type { Db } from '../database.js'

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
  private readonly getStmt
  private readonly insertStmt
  private readonly updateStmt
  private readonly deleteStmt
  private readonly usageStmt
  private readonly byKeyStmt

  constructor(db: Db) {
    this.listStmt = db.prepare<[string], RoleRow & { member_count: number }>(
      `SELECT r.*, (SELECT count(*) FROM org_members m WHERE m.role_id = r.id AND m.organization_id = ?1) AS member_count
       FROM roles r WHERE r.organization_id IS NULL OR r.organization_id = ?1 ORDER BY r.builtin DESC, r.id`,
    )
    this.getStmt = db.prepare<[string, number], RoleRow>(
      'SELECT * FROM roles WHERE id = ?2 AND (organization_id IS NULL OR organization_id = ?1)',
    )
    this.byKeyStmt = db.prepare<[string, string], RoleRow>(
      'SELECT * FROM roles WHERE key = ?2 AND (organization_id IS NULL OR organization_id = ?1)',
    )
    this.insertStmt = db.prepare(
      `INSERT INTO roles (organization_id, key, name, description, permissions, builtin, created_at)
       VALUES (?, ?, ?, ?, ?, 0, ?)`,
    )
    this.updateStmt = db.prepare(
      'UPDATE roles SET name = ?, key = ?, description = ?, permissions = ? WHERE id = ? AND organization_id = ? AND builtin = 0',
    )
    this.deleteStmt = db.prepare('DELETE FROM roles WHERE id = ? AND organization_id = ? AND builtin = 0')
    this.usageStmt = db.prepare<[number], { n: number }>(
      'SELECT (SELECT count(*) FROM org_members WHERE role_id = ?1) + (SELECT count(*) FROM invitations WHERE role_id = ?1 AND accepted_at IS NULL) AS n',
    )
  }

  list(organizationId: string) {
    return this.listStmt.all(organizationId)
  }
  /** A built-in role or one of this organization's custom roles. */
  get(organizationId: string, id: number): RoleRow | undefined {
    return this.getStmt.get(organizationId, id)
  }
  findByKey(organizationId: string, key: string): RoleRow | undefined {
    return this.byKeyStmt.get(organizationId, key)
  }
  insert(organizationId: string, r: { key: string; name: string; description: string; permissions: string[] }, now: number): number {
    return Number(this.insertStmt.run(organizationId, r.key, r.name, r.description, JSON.stringify(r.permissions), now).lastInsertRowid)
  }
  update(organizationId: string, id: number, r: { key: string; name: string; description: string; permissions: string[] }): void {
    this.updateStmt.run(r.name, r.key, r.description, JSON.stringify(r.permissions), id, organizationId)
  }
  delete(organizationId: string, id: number): void {
    this.deleteStmt.run(id, organizationId)
  }
  /** Members holding the role plus pending invitations offering it. */
  usage(id: number): number {
    return this.usageStmt.get(id)!.n
  }
}
