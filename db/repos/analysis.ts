import type { Db } from '../database.js'

export type AnalysisJobStatus = 'pending' | 'running' | 'completed' | 'failed' | 'skipped'

export interface AnalysisJobRow {
  session_id: string
  organization_id: string
  environment_id: string
  status: AnalysisJobStatus
  attempts: number
  next_attempt_at: number
  result: string | null
  error_code: string | null
  error_message: string | null
  created_at: number
  updated_at: number
  finished_at: number | null
}

/** Post-call analysis jobs (migration 014): one per session, claimed by the worker in api/analysis. */
export class AnalysisRepo {
  private readonly insertStmt
  private readonly getStmt
  private readonly dueStmt
  private readonly claimStmt
  private readonly retryStmt
  private readonly finishStmt
  private readonly resumeStmt
  private readonly nextDueStmt

  constructor(db: Db) {
    // OR IGNORE: a session is analysed once, whatever announces its end twice.
    this.insertStmt = db.prepare(
      `INSERT OR IGNORE INTO analysis_jobs (session_id, organization_id, environment_id, status, next_attempt_at, created_at, updated_at)
       VALUES (@session_id, @organization_id, @environment_id, 'pending', @now, @now, @now)`,
    )
    this.getStmt = db.prepare<[string], AnalysisJobRow>('SELECT * FROM analysis_jobs WHERE session_id = ?')
    this.dueStmt = db.prepare<[number, number], AnalysisJobRow>(
      `SELECT * FROM analysis_jobs WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, created_at LIMIT ?`,
    )
    this.claimStmt = db.prepare(
      `UPDATE analysis_jobs SET status = 'running', attempts = attempts + 1, updated_at = ? WHERE session_id = ? AND status = 'pending'`,
    )
    this.retryStmt = db.prepare(
      `UPDATE analysis_jobs SET status = 'pending', next_attempt_at = ?, error_code = ?, error_message = ?, updated_at = ?
       WHERE session_id = ? AND status = 'running'`,
    )
    this.finishStmt = db.prepare(
      `UPDATE analysis_jobs SET status = @status, result = @result, error_code = @error_code, error_message = @error_message,
         updated_at = @now, finished_at = @now
       WHERE session_id = @session_id AND status = 'running'`,
    )
    this.resumeStmt = db.prepare(`UPDATE analysis_jobs SET status = 'pending', next_attempt_at = ?, updated_at = ? WHERE status = 'running'`)
    this.nextDueStmt = db.prepare<[], { at: number | null }>(`SELECT MIN(next_attempt_at) AS at FROM analysis_jobs WHERE status = 'pending'`)
  }

  /** Queues the analysis of an ended session; false when it was queued before. */
  enqueue(job: { session_id: string; organization_id: string; environment_id: string }, now: number): boolean {
    return this.insertStmt.run({ ...job, now }).changes === 1
  }

  /** A session's job. Callers have checked the session is in the caller's scope. */
  get(sessionId: string): AnalysisJobRow | undefined {
    return this.getStmt.get(sessionId)
  }

  /** Up to `limit` pending jobs due at `now`, oldest first. */
  due(now: number, limit: number): AnalysisJobRow[] {
    return this.dueStmt.all(now, limit)
  }

  /** Marks a pending job running and counts the attempt; false when another worker took it first. */
  claim(sessionId: string, now: number): boolean {
    return this.claimStmt.run(now, sessionId).changes === 1
  }

  /** Back to pending until `at`, keeping the reason of the attempt that failed. */
  retryAt(sessionId: string, at: number, error: { code: string; message: string }, now: number): void {
    this.retryStmt.run(at, error.code, error.message.slice(0, 1000), now, sessionId)
  }

  /** A running job's end: completed with its result, or failed / skipped with the reason. */
  finish(
    sessionId: string,
    end: { status: 'completed' | 'failed' | 'skipped'; result: string | null; error: { code: string; message: string } | null },
    now: number,
  ): boolean {
    return (
      this.finishStmt.run({
        session_id: sessionId,
        status: end.status,
        result: end.result,
        error_code: end.error?.code ?? null,
        error_message: end.error?.message.slice(0, 1000) ?? null,
        now,
      }).changes === 1
    )
  }

  /** Jobs a crash (or a stop mid-attempt) left running go back to pending, due at `now`. */
  resumeRunning(now: number): number {
    return this.resumeStmt.run(now, now).changes
  }

  /** When the earliest pending job is due, or null when none is pending. */
  nextDue(): number | null {
    return this.nextDueStmt.get()?.at ?? null
  }
}
