import { randomUUID } from 'node:crypto'
import type { Db } from '../database.js'

export interface OrganizationRow {
  id: string
  name: string
  created_by: string | null
  created_at: number
  updated_at: number
  default_environment: 'dev' | 'staging' | 'prod'
}

export interface MembershipRow {
  organization_id: string
  user_id: string
  role_id: number
  role_key: string
  role_permissions: string
  role_builtin: number
  created_at: number
}

export const ENVIRONMENT_SLUGS = ['dev', 'staging', 'prod'] as const

/** Organizations with their projects, environments and members. */
export class OrganizationsRepo {
  private readonly insertOrg
  private readonly insertProject
  private readonly insertEnv
  private readonly insertMember
  private readonly getOrg
  private readonly membershipStmt
  private readonly firstMembershipStmt
  private readonly updateStmt

  constructor(private readonly db: Db) {
    this.insertOrg = db.prepare('INSERT INTO organizations (id, name, created_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?)')
    this.insertProject = db.prepare('INSERT INTO projects (id, organization_id, name, is_default, created_at) VALUES (?, ?, ?, ?, ?)')
    this.insertEnv = db.prepare('INSERT INTO environments (id, organization_id, project_id, slug, created_at) VALUES (?, ?, ?, ?, ?)')
    this.insertMember = db.prepare('INSERT INTO org_members (organization_id, user_id, role_id, created_at) VALUES (?, ?, ?, ?)')
    this.getOrg = db.prepare<[string], OrganizationRow>('SELECT * FROM organizations WHERE id = ?')
    const membershipSql = `SELECT m.organization_id, m.user_id, m.role_id, m.created_at,
        r.key AS role_key, r.permissions AS role_permissions, r.builtin AS role_builtin
      FROM org_members m JOIN roles r ON r.id = m.role_id`
    this.membershipStmt = db.prepare<[string, string], MembershipRow>(`${membershipSql} WHERE m.organization_id = ? AND m.user_id = ?`)
    this.firstMembershipStmt = db.prepare<[string], MembershipRow>(`${membershipSql} WHERE m.user_id = ? ORDER BY m.created_at LIMIT 1`)
    this.updateStmt = db.prepare('UPDATE organizations SET name = @name, default_environment = @default_environment, updated_at = @updated_at WHERE id = @id')
  }

  update(o: Pick<OrganizationRow, 'id' | 'name' | 'default_environment' | 'updated_at'>): void {
    this.updateStmt.run(o)
  }

  /** Creates an organization with a default project holding dev, staging and prod. */
  create(name: string, createdBy: string | null, now: number): OrganizationRow {
    const id = randomUUID()
    const projectId = randomUUID()
    this.db.transaction(() => {
      this.insertOrg.run(id, name, createdBy, now, now)
      this.insertProject.run(projectId, id, 'Default', 1, now)
      for (const slug of ENVIRONMENT_SLUGS) this.insertEnv.run(randomUUID(), id, projectId, slug, now)
    })()
    return this.getOrg.get(id)!
  }

  get(id: string): OrganizationRow | undefined {
    return this.getOrg.get(id)
  }

  addMember(organizationId: string, userId: string, roleId: number, now: number): void {
    this.insertMember.run(organizationId, userId, roleId, now)
  }

  membership(organizationId: string, userId: string): MembershipRow | undefined {
    return this.membershipStmt.get(organizationId, userId)
  }

  /** The organization a user signs in to by default: the one they joined first. */
  firstMembership(userId: string): MembershipRow | undefined {
    return this.firstMembershipStmt.get(userId)
  }
}
