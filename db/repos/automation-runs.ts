import type { Db } from '../database.js'

export type AutomationRunStatus = 'pending' | 'running' | 'succeeded' | 'failed'
export type AutomationAttemptTrigger = 'event' | 'backoff' | 'retry' | 'resume'

export interface AutomationRunRow {
  id: string
  automation_id: string
  organization_id: string
  environment_id: string
  event_type: string
  event_key: string
  /** `{ event, data }` as JSON text. */
  payload: string
  status: AutomationRunStatus
  pending_reason: AutomationAttemptTrigger
  attempts: number
  budget_from: number
  next_attempt_at: number
  created_at: number
  updated_at: number
  finished_at: number | null
}

export interface AutomationAttemptRow {
  id: number
  run_id: string
  number: number
  trigger: AutomationAttemptTrigger
  started_at: number
  finished_at: number | null
  outcome: 'succeeded' | 'failed' | 'interrupted' | null
  input: string | null
  output: string | null
  error_code: string | null
  error_message: string | null
  duration_ms: number | null
}

export type NewAutomationRun = Pick<AutomationRunRow, 'id' | 'automation_id' | 'organization_id' | 'environment_id' | 'event_type' | 'event_key' | 'payload'>

/** How an attempt ended: `retryAt` set puts the run back to pending until then; otherwise it is final. */
export interface AttemptEnd {
  outcome: 'succeeded' | 'failed'
  input: string | null
  output: string | null
  error: { code: string; message: string } | null
  durationMs: number
  retryAt: number | null
}

export interface RunPage {
  automationId: string
  status?: AutomationRunStatus
  limit: number
  offset: number
}

/**
 * Automation runs and their attempts (migration 017): the queue the worker in api/automations
 * claims from, and the log the API lists. Runs are read by their automation, whose tenancy the
 * caller has checked.
 */
export class AutomationRunsRepo {
  private readonly s

  constructor(private readonly db: Db) {
    const p = <P extends unknown[] | object = unknown[], R = unknown>(sql: string) => db.prepare<P, R>(sql)
    this.s = {
      // OR IGNORE: the same event announced twice runs once (UNIQUE automation_id, event_key).
      insert: p<[NewAutomationRun & { now: number }]>(
        `INSERT OR IGNORE INTO automation_runs (id, automation_id, organization_id, environment_id, event_type, event_key, payload, status,
           pending_reason, next_attempt_at, created_at, updated_at)
         VALUES (@id, @automation_id, @organization_id, @environment_id, @event_type, @event_key, @payload, 'pending', 'event', @now, @now, @now)`,
      ),
      get: p<[string, string], AutomationRunRow>('SELECT * FROM automation_runs WHERE id = ? AND automation_id = ?'),
      byId: p<[string], AutomationRunRow>('SELECT * FROM automation_runs WHERE id = ?'),
      page: p<{ automation: string; status: string | null; limit: number; offset: number }, AutomationRunRow>(
        `SELECT * FROM automation_runs WHERE automation_id = @automation AND (@status IS NULL OR status = @status)
         ORDER BY created_at DESC, rowid DESC LIMIT @limit OFFSET @offset`,
      ),
      total: p<{ automation: string; status: string | null }, { n: number }>(
        'SELECT count(*) AS n FROM automation_runs WHERE automation_id = @automation AND (@status IS NULL OR status = @status)',
      ),
      // A disabled automation's runs wait: they run once it is enabled again.
      // `busy`: a JSON array of organizations already at their share of the worker; their runs wait.
      due: p<[number, string, number], AutomationRunRow>(
        `SELECT r.* FROM automation_runs r JOIN automations a ON a.id = r.automation_id AND a.enabled = 1
         WHERE r.status = 'pending' AND r.next_attempt_at <= ? AND r.organization_id NOT IN (SELECT value FROM json_each(?))
         ORDER BY r.next_attempt_at, r.created_at LIMIT ?`,
      ),
      claim: p<[number, string]>(`UPDATE automation_runs SET status = 'running', attempts = attempts + 1, updated_at = ? WHERE id = ? AND status = 'pending'`),
      insertAttempt: p<[string, number, string, number]>('INSERT INTO automation_attempts (run_id, number, trigger, started_at) VALUES (?, ?, ?, ?)'),
      finishAttempt: p<{
        run: string
        number: number
        now: number
        outcome: string
        input: string | null
        output: string | null
        code: string | null
        message: string | null
        duration: number
      }>(
        `UPDATE automation_attempts SET finished_at = @now, outcome = @outcome, input = @input, output = @output, error_code = @code,
           error_message = @message, duration_ms = @duration
         WHERE run_id = @run AND number = @number AND outcome IS NULL`,
      ),
      backToPending: p<[number, number, string]>(
        `UPDATE automation_runs SET status = 'pending', pending_reason = 'backoff', next_attempt_at = ?, updated_at = ? WHERE id = ? AND status = 'running'`,
      ),
      finishRun: p<[string, number, number, string]>(
        `UPDATE automation_runs SET status = ?, updated_at = ?, finished_at = ? WHERE id = ? AND status = 'running'`,
      ),
      retry: p<[number, number, string]>(
        `UPDATE automation_runs SET status = 'pending', pending_reason = 'retry', budget_from = attempts, next_attempt_at = ?, updated_at = ?, finished_at = NULL
         WHERE id = ? AND status IN ('succeeded', 'failed')`,
      ),
      interruptAttempts: p<[number]>(
        `UPDATE automation_attempts SET outcome = 'interrupted', finished_at = ?, error_code = 'interrupted',
           error_message = 'The server stopped during the attempt.'
         WHERE outcome IS NULL AND run_id IN (SELECT id FROM automation_runs WHERE status = 'running')`,
      ),
      resume: p<[number, number]>(
        `UPDATE automation_runs SET status = 'pending', pending_reason = 'resume', next_attempt_at = ?, updated_at = ? WHERE status = 'running'`,
      ),
      attempts: p<[string], AutomationAttemptRow>('SELECT * FROM automation_attempts WHERE run_id = ? ORDER BY number'),
      lastAttempt: p<[string], AutomationAttemptRow>('SELECT * FROM automation_attempts WHERE run_id = ? ORDER BY number DESC LIMIT 1'),
      prune: p<[number]>(`DELETE FROM automation_runs WHERE status IN ('succeeded', 'failed') AND finished_at < ?`),
    }
  }

  /** Queues a run of an automation for an event; false when this event already has one. */
  insert(run: NewAutomationRun, now: number): boolean {
    return this.s.insert.run({ ...run, now }).changes === 1
  }

  /** A run of an automation (the caller checked the automation's tenancy). */
  get(automationId: string, runId: string): AutomationRunRow | undefined {
    return this.s.get.get(runId, automationId)
  }

  byId(runId: string): AutomationRunRow | undefined {
    return this.s.byId.get(runId)
  }

  page(q: RunPage): { rows: AutomationRunRow[]; total: number } {
    const where = { automation: q.automationId, status: q.status ?? null }
    return { rows: this.s.page.all({ ...where, limit: q.limit, offset: q.offset }), total: this.s.total.get(where)!.n }
  }

  /** Up to `limit` pending runs of enabled automations due at `now`, oldest first, none of the `busy` organizations'. */
  due(now: number, limit: number, busy: readonly string[] = []): AutomationRunRow[] {
    return this.s.due.all(now, JSON.stringify(busy), limit)
  }

  /**
   * Marks a pending run running, counts the attempt and logs its start, in one transaction;
   * the attempt's number, or null when another worker took the run first.
   */
  claim(run: AutomationRunRow, now: number): number | null {
    return this.db.transaction(() => {
      if (this.s.claim.run(now, run.id).changes !== 1) return null
      const number = run.attempts + 1
      this.s.insertAttempt.run(run.id, number, run.attempts === 0 ? 'event' : run.pending_reason, now)
      return number
    })()
  }

  /** Records an attempt's end and moves its run on: pending until `retryAt`, or final. */
  finish(runId: string, number: number, end: AttemptEnd, now: number): void {
    this.db.transaction(() => this.record(runId, number, end, now))()
  }

  private record(runId: string, number: number, end: AttemptEnd, now: number): void {
    this.s.finishAttempt.run({
      run: runId,
      number,
      now,
      outcome: end.outcome,
      input: end.input,
      output: end.output,
      code: end.error?.code ?? null,
      message: end.error?.message.slice(0, 1000) ?? null,
      duration: end.durationMs,
    })
    if (end.retryAt !== null) this.s.backToPending.run(end.retryAt, now, runId)
    else this.s.finishRun.run(end.outcome === 'succeeded' ? 'succeeded' : 'failed', now, now, runId)
  }

  /** A finished run back to pending, due now, with a fresh budget of automatic retries; false when it is not finished. */
  retry(runId: string, now: number): boolean {
    return this.s.retry.run(now, now, runId).changes === 1
  }

  /** Runs a stop (or crash) left running: their attempt is marked interrupted and they are pending again, due now. */
  resumeRunning(now: number): number {
    return this.db.transaction(() => {
      this.s.interruptAttempts.run(now)
      return this.s.resume.run(now, now).changes
    })()
  }

  attempts(runId: string): AutomationAttemptRow[] {
    return this.s.attempts.all(runId)
  }

  lastAttempt(runId: string): AutomationAttemptRow | undefined {
    return this.s.lastAttempt.get(runId)
  }

  /** Deletes finished runs (and their attempts) that ended before `before`; returns how many. */
  prune(before: number): number {
    return this.s.prune.run(before).changes
  }
}
