import { randomUUID } from 'node:crypto'
import type { Db } from '../database.js'
import type { PageRequest } from './workflows.js'
import { ENVIRONMENT_SLUGS } from './organizations.js'

export interface ProjectRow {
  id: string
  organization_id: string
  name: string
  is_default: number
  created_at: number
}

export interface EnvironmentRow {
  id: string
  organization_id: string
  project_id: string
  slug: 'dev' | 'staging' | 'prod'
  created_at: number
}

/** Projects and their environments; every query is bound to one organization. */
export class ProjectsRepo {
  private readonly listStmt
  private readonly pageStmt
  private readonly countStmt
  private readonly getStmt
  private readonly insertProject
  private readonly insertEnv
  private readonly envsStmt
  private readonly envByIdStmt
  private readonly defaultEnvStmt

  constructor(private readonly db: Db) {
    this.listStmt = db.prepare<[string], ProjectRow>('SELECT * FROM projects WHERE organization_id = ? ORDER BY is_default DESC, created_at, id')
    this.pageStmt = db.prepare<{ org: string; limit: number; offset: number }, ProjectRow>(
      'SELECT * FROM projects WHERE organization_id = @org ORDER BY is_default DESC, created_at, id LIMIT @limit OFFSET @offset',
    )
    this.countStmt = db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM projects WHERE organization_id = ?')
    this.getStmt = db.prepare<[string, string], ProjectRow>('SELECT * FROM projects WHERE organization_id = ? AND id = ?')
    this.insertProject = db.prepare('INSERT INTO projects (id, organization_id, name, is_default, created_at) VALUES (?, ?, ?, 0, ?)')
    this.insertEnv = db.prepare('INSERT INTO environments (id, organization_id, project_id, slug, created_at) VALUES (?, ?, ?, ?, ?)')
    this.envsStmt = db.prepare<[string, string], EnvironmentRow>(
      `SELECT * FROM environments WHERE organization_id = ? AND project_id = ?
       ORDER BY CASE slug WHEN 'dev' THEN 0 WHEN 'staging' THEN 1 ELSE 2 END`,
    )
    this.envByIdStmt = db.prepare<[string, string], EnvironmentRow>('SELECT * FROM environments WHERE organization_id = ? AND id = ?')
    this.defaultEnvStmt = db.prepare<[string, string], EnvironmentRow>(
      `SELECT e.* FROM environments e JOIN projects p ON p.id = e.project_id
       WHERE e.organization_id = ? AND p.is_default = 1 AND e.slug = ?`,
    )
  }

  list(organizationId: string): ProjectRow[] {
    return this.listStmt.all(organizationId)
  }
  /** One page of the organization's projects: the default one first, then oldest first. */
  page(organizationId: string, at: PageRequest): { items: ProjectRow[]; total: number } {
    return { items: this.pageStmt.all({ org: organizationId, limit: at.limit, offset: at.offset }), total: this.countStmt.get(organizationId)!.n }
  }
  get(organizationId: string, id: string): ProjectRow | undefined {
    return this.getStmt.get(organizationId, id)
  }
  /** A new project always gets dev, staging and prod. */
  create(organizationId: string, name: string, now: number): ProjectRow {
    const id = randomUUID()
    this.db.transaction(() => {
      this.insertProject.run(id, organizationId, name, now)
      for (const slug of ENVIRONMENT_SLUGS) this.insertEnv.run(randomUUID(), organizationId, id, slug, now)
    })()
    return this.get(organizationId, id)!
  }
  environments(organizationId: string, projectId: string): EnvironmentRow[] {
    return this.envsStmt.all(organizationId, projectId)
  }
  environment(organizationId: string, id: string): EnvironmentRow | undefined {
    return this.envByIdStmt.get(organizationId, id)
  }
  /** The environment with this slug in the organization's default project. */
  defaultProjectEnvironment(organizationId: string, slug: string): EnvironmentRow | undefined {
    return this.defaultEnvStmt.get(organizationId, slug)
  }
}
