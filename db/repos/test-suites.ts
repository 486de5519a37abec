import type { Db } from '../database.js'
import type { Scope } from './workflows.js'

export interface TestSuiteRow {
  id: string
  organization_id: string
  environment_id: string
  name: string
  description: string | null
  workflow_id: string
  use_draft: number
  version: number | null
  /** JSON of the suite-wide settings. */
  settings: string
  /** JSON array of the cases. */
  cases: string
  created_by: string | null
  created_at: number
  updated_at: number
}

export type TestSuiteChanges = Partial<Pick<TestSuiteRow, 'name' | 'description' | 'workflow_id' | 'use_draft' | 'version' | 'settings' | 'cases'>> & {
  updated_at: number
}

const SCOPED = 'organization_id = @org AND environment_id = @env'
const CHANGEABLE = ['name', 'description', 'workflow_id', 'use_draft', 'version', 'settings', 'cases', 'updated_at'] as const

/** Test suites (migration 015); reads and writes are bound to one organization and environment. */
export class TestSuitesRepo {
  private readonly insertStmt
  private readonly getStmt
  private readonly listStmt
  private readonly countStmt
  private readonly deleteStmt

  constructor(private readonly db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO test_suites (id, organization_id, environment_id, name, description, workflow_id, use_draft, version, settings, cases, created_by, created_at, updated_at)
       VALUES (@id, @organization_id, @environment_id, @name, @description, @workflow_id, @use_draft, @version, @settings, @cases, @created_by, @created_at, @updated_at)
       RETURNING *`,
    )
    this.getStmt = db.prepare(`SELECT * FROM test_suites WHERE ${SCOPED} AND id = @id`)
    this.listStmt = db.prepare(`SELECT * FROM test_suites WHERE ${SCOPED} ORDER BY created_at, id LIMIT @limit OFFSET @offset`)
    this.countStmt = db.prepare(`SELECT COUNT(*) AS n FROM test_suites WHERE ${SCOPED}`)
    this.deleteStmt = db.prepare(`DELETE FROM test_suites WHERE ${SCOPED} AND id = @id`)
  }

  insert(row: TestSuiteRow): TestSuiteRow {
    return this.insertStmt.get(row) as TestSuiteRow
  }
  get(s: Scope, id: string): TestSuiteRow | undefined {
    return this.getStmt.get({ org: s.organizationId, env: s.environmentId, id }) as TestSuiteRow | undefined
  }
  page(s: Scope, at: { limit: number; offset: number }): { items: TestSuiteRow[]; total: number } {
    const scope = { org: s.organizationId, env: s.environmentId }
    return { items: this.listStmt.all({ ...scope, ...at }) as TestSuiteRow[], total: this.count(s) }
  }
  count(s: Scope): number {
    return (this.countStmt.get({ org: s.organizationId, env: s.environmentId }) as { n: number }).n
  }
  update(s: Scope, id: string, changes: TestSuiteChanges): TestSuiteRow | undefined {
    const columns = CHANGEABLE.filter((c) => changes[c] !== undefined)
    const sets = columns.map((c) => `${c} = @${c}`).join(', ')
    const values = Object.fromEntries(columns.map((c) => [c, changes[c]]))
    return this.db.prepare(`UPDATE test_suites SET ${sets} WHERE ${SCOPED} AND id = @id RETURNING *`).get({
      ...values,
      org: s.organizationId,
      env: s.environmentId,
      id,
    }) as TestSuiteRow | undefined
  }
  delete(s: Scope, id: string): boolean {
    return this.deleteStmt.run({ org: s.organizationId, env: s.environmentId, id }).changes === 1
  }
}
