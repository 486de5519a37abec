import type { Db } from '../database.js'
import type { Scope } from './workflows.js'

export type TestRunStatus = 'queued' | 'running' | 'passed' | 'failed'
export type TestCaseStatus = 'pending' | 'running' | 'passed' | 'failed' | 'error'

export interface TestRunRow {
  id: string
  suite_id: string
  organization_id: string
  environment_id: string
  mode: 'text' | 'voice'
  status: TestRunStatus
  workflow_id: string
  workflow_version: number | null
  definition: string
  config: string
  settings: string
  started_by_user: string | null
  started_by_key: string | null
  created_at: number
  started_at: number | null
  finished_at: number | null
}

export interface TestRunCaseRow {
  run_id: string
  position: number
  name: string
  spec: string
  status: TestCaseStatus
  attempts: number
  result: string | null
  reason: string | null
  error_code: string | null
  queued_at: number
  started_at: number | null
  finished_at: number | null
}

export interface CaseEnd {
  status: 'passed' | 'failed' | 'error'
  result: string | null
  reason: string | null
  error_code: string | null
}

const SCOPED = 'organization_id = @org AND environment_id = @env'

/** Runs of test suites and their cases (migration 015): the worker in api/test-suites claims cases. */
export class TestRunsRepo {
  private readonly insertRunStmt
  private readonly insertCaseStmt
  private readonly getStmt
  private readonly byIdStmt
  private readonly pageStmt
  private readonly countStmt
  private readonly casesStmt
  private readonly activeStmt
  private readonly dueStmt
  private readonly claimStmt
  private readonly startRunStmt
  private readonly finishCaseStmt
  private readonly openCasesStmt
  private readonly failedCasesStmt
  private readonly finishRunStmt
  private readonly exhaustStmt
  private readonly resumeStmt
  private readonly unfinishedRunsStmt
  private readonly latestStmt

  constructor(private readonly db: Db) {
    this.insertRunStmt = db.prepare(
      `INSERT INTO test_runs (id, suite_id, organization_id, environment_id, mode, status, workflow_id, workflow_version, definition, config, settings,
         started_by_user, started_by_key, created_at)
       VALUES (@id, @suite_id, @organization_id, @environment_id, @mode, 'queued', @workflow_id, @workflow_version, @definition, @config, @settings,
         @started_by_user, @started_by_key, @created_at)`,
    )
    this.insertCaseStmt = db.prepare(
      `INSERT INTO test_run_cases (run_id, position, name, spec, status, queued_at) VALUES (@run_id, @position, @name, @spec, 'pending', @queued_at)`,
    )
    this.getStmt = db.prepare(`SELECT * FROM test_runs WHERE ${SCOPED} AND suite_id = @suite AND id = @id`)
    this.byIdStmt = db.prepare<[string], TestRunRow>('SELECT * FROM test_runs WHERE id = ?')
    this.pageStmt = db.prepare(`SELECT * FROM test_runs WHERE ${SCOPED} AND suite_id = @suite ORDER BY created_at DESC, rowid DESC LIMIT @limit OFFSET @offset`)
    this.countStmt = db.prepare(`SELECT COUNT(*) AS n FROM test_runs WHERE ${SCOPED} AND suite_id = @suite`)
    this.casesStmt = db.prepare<[string], TestRunCaseRow>('SELECT * FROM test_run_cases WHERE run_id = ? ORDER BY position')
    this.activeStmt = db.prepare(`SELECT COUNT(*) AS n FROM test_runs WHERE ${SCOPED} AND status IN ('queued', 'running')`)
    // Oldest first, then by run and position: a run's cases go out in their order.
    // A process with no call engine leaves voice cases to one that has it.
    this.dueStmt = db.prepare<[number, number], TestRunCaseRow>(
      `SELECT * FROM test_run_cases WHERE status = 'pending'
         AND (? = 1 OR run_id IN (SELECT id FROM test_runs WHERE mode = 'text'))
       ORDER BY queued_at, run_id, position LIMIT ?`,
    )
    this.claimStmt = db.prepare(
      `UPDATE test_run_cases SET status = 'running', attempts = attempts + 1, started_at = @now WHERE run_id = @run AND position = @pos AND status = 'pending'`,
    )
    this.startRunStmt = db.prepare(`UPDATE test_runs SET status = 'running', started_at = @now WHERE id = @run AND status = 'queued'`)
    this.finishCaseStmt = db.prepare(
      `UPDATE test_run_cases SET status = @status, result = @result, reason = @reason, error_code = @error_code, finished_at = @now
       WHERE run_id = @run AND position = @pos AND status = 'running'`,
    )
    this.openCasesStmt = db.prepare<[string], { n: number }>(`SELECT COUNT(*) AS n FROM test_run_cases WHERE run_id = ? AND status IN ('pending', 'running')`)
    this.failedCasesStmt = db.prepare<[string], { n: number }>(`SELECT COUNT(*) AS n FROM test_run_cases WHERE run_id = ? AND status <> 'passed'`)
    this.finishRunStmt = db.prepare(
      `UPDATE test_runs SET status = @status, finished_at = @now, started_at = COALESCE(started_at, @now) WHERE id = @run AND status IN ('queued', 'running')`,
    )
    this.exhaustStmt = db.prepare(
      `UPDATE test_run_cases SET status = 'error', error_code = 'interrupted', finished_at = @now,
         reason = 'The server stopped while this case ran, ' || attempts || ' time(s): it was not run again.'
       WHERE status = 'running' AND attempts >= @max`,
    )
    this.resumeStmt = db.prepare(`UPDATE test_run_cases SET status = 'pending', started_at = NULL WHERE status = 'running'`)
    this.unfinishedRunsStmt = db.prepare<[], { id: string }>(`SELECT id FROM test_runs WHERE status IN ('queued', 'running')`)
    this.latestStmt = db.prepare<[string], TestRunRow>('SELECT * FROM test_runs WHERE suite_id = ? ORDER BY created_at DESC, rowid DESC LIMIT 1')
  }

  /** A run and its cases, queued in one transaction. */
  insert(run: Omit<TestRunRow, 'status' | 'started_at' | 'finished_at'>, cases: { name: string; spec: string }[]): void {
    this.db.transaction(() => {
      this.insertRunStmt.run(run)
      cases.forEach((c, position) => this.insertCaseStmt.run({ run_id: run.id, position, name: c.name, spec: c.spec, queued_at: run.created_at }))
    })()
  }
  get(s: Scope, suiteId: string, id: string): TestRunRow | undefined {
    return this.getStmt.get({ org: s.organizationId, env: s.environmentId, suite: suiteId, id }) as TestRunRow | undefined
  }
  /** A run by id alone, for the worker (never from a request). */
  byId(id: string): TestRunRow | undefined {
    return this.byIdStmt.get(id)
  }
  page(s: Scope, suiteId: string, at: { limit: number; offset: number }): { items: TestRunRow[]; total: number } {
    const scope = { org: s.organizationId, env: s.environmentId, suite: suiteId }
    return { items: this.pageStmt.all({ ...scope, ...at }) as TestRunRow[], total: (this.countStmt.get(scope) as { n: number }).n }
  }
  /** A suite's newest run (callers have checked the suite is in the caller's scope). */
  latest(suiteId: string): TestRunRow | undefined {
    return this.latestStmt.get(suiteId)
  }
  cases(runId: string): TestRunCaseRow[] {
    return this.casesStmt.all(runId)
  }
  /** Runs of the scope queued or running (bounded per environment). */
  activeCount(s: Scope): number {
    return (this.activeStmt.get({ org: s.organizationId, env: s.environmentId }) as { n: number }).n
  }
  /** Pending cases, oldest first; voice runs' too only when `withVoice`. */
  due(limit: number, withVoice: boolean): TestRunCaseRow[] {
    return this.dueStmt.all(withVoice ? 1 : 0, limit)
  }
  /** Marks a pending case running (and its run, if it was queued); false when it was taken or gone. */
  claim(runId: string, position: number, now: number): boolean {
    return this.db.transaction(() => {
      if (this.claimStmt.run({ run: runId, pos: position, now }).changes !== 1) return false
      this.startRunStmt.run({ run: runId, now })
      return true
    })()
  }
  /** A running case's end; its run ends with its last case. False when the case was not running (its suite was deleted). */
  finishCase(runId: string, position: number, end: CaseEnd, now: number): boolean {
    return this.db.transaction(() => {
      const changed = this.finishCaseStmt.run({ run: runId, pos: position, ...end, now }).changes === 1
      if (changed) this.settleRun(runId, now)
      return changed
    })()
  }
  /**
   * At start: cases a crash (or a stop) left running run again from their start, unless they have
   * had `maxAttempts` already (then error, interrupted); runs whose last case that ended are settled.
   */
  resumeRunning(maxAttempts: number, now: number): { resumed: number; exhausted: number } {
    return this.db.transaction(() => {
      const exhausted = this.exhaustStmt.run({ max: maxAttempts, now }).changes
      const resumed = this.resumeStmt.run().changes
      for (const { id } of this.unfinishedRunsStmt.all()) this.settleRun(id, now)
      return { resumed, exhausted }
    })()
  }

  private settleRun(runId: string, now: number): void {
    if (this.openCasesStmt.get(runId)!.n > 0) return
    const status = this.failedCasesStmt.get(runId)!.n === 0 ? 'passed' : 'failed'
    this.finishRunStmt.run({ run: runId, status, now })
  }
}
