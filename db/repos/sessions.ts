import type { Db } from '../database.js'
import type { Scope } from './workflows.js'

export type SessionStatus = 'active' | 'completed' | 'failed'
export type SessionChannel = 'chat' | 'run' | 'web' | 'phone'

export interface SessionRow {
  id: string
  organization_id: string
  environment_id: string
  workflow_id: string
  workflow_version: number | null
  channel: SessionChannel
  status: SessionStatus
  disposition: string | null
  definition: string
  config: string
  state: string
  started_by_user: string | null
  started_by_key: string | null
  turn_count: number
  prompt_tokens: number
  completion_tokens: number
  error_code: string | null
  started_at: number
  ended_at: number | null
  updated_at: number
}

export interface SessionEventRow {
  session_id: string
  seq: number
  kind: string
  data: string
  created_at: number
}

export interface SessionFilter {
  workflowId: string | null
  status: SessionStatus | null
  channel: SessionChannel | null
  limit: number
  offset: number
}

const SCOPED = 'organization_id = @org AND environment_id = @env'
const FILTER = `${SCOPED} AND (@workflowId IS NULL OR workflow_id = @workflowId)
  AND (@status IS NULL OR status = @status) AND (@channel IS NULL OR channel = @channel)`

/** Sessions are environment-scoped; every statement is bound to organization and environment. */
export class SessionsRepo {
  private readonly insertStmt
  private readonly getStmt
  private readonly saveStmt
  private readonly insertEventStmt
  private readonly eventsStmt
  private readonly lastSeqStmt
  private readonly pageStmt
  private readonly countStmt
  private readonly abandonStmt
  private readonly discardStmt

  constructor(private readonly db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO sessions (id, organization_id, environment_id, workflow_id, workflow_version, channel, status, definition, config,
         state, started_by_user, started_by_key, started_at, updated_at)
       VALUES (@id, @organization_id, @environment_id, @workflow_id, @workflow_version, @channel, 'active', @definition, @config,
         @state, @started_by_user, @started_by_key, @started_at, @started_at)`,
    )
    this.getStmt = db.prepare(`SELECT * FROM sessions WHERE ${SCOPED} AND id = @id`)
    this.saveStmt = db.prepare(
      `UPDATE sessions SET state = @state, status = @status, disposition = @disposition, turn_count = turn_count + @turns,
         prompt_tokens = prompt_tokens + @prompt_tokens, completion_tokens = completion_tokens + @completion_tokens,
         error_code = @error_code, ended_at = @ended_at, updated_at = @now
       WHERE id = @id`,
    )
    this.insertEventStmt = db.prepare('INSERT INTO session_events (session_id, seq, kind, data, created_at) VALUES (?, ?, ?, ?, ?)')
    this.eventsStmt = db.prepare<[string], SessionEventRow>('SELECT * FROM session_events WHERE session_id = ? ORDER BY seq')
    this.lastSeqStmt = db.prepare<[string], { n: number | null }>('SELECT max(seq) AS n FROM session_events WHERE session_id = ?')
    this.pageStmt = db.prepare(`SELECT * FROM sessions WHERE ${FILTER} ORDER BY started_at DESC, id LIMIT @limit OFFSET @offset`)
    this.countStmt = db.prepare(`SELECT count(*) AS n FROM sessions WHERE ${FILTER}`)
    this.discardStmt = db.prepare(`DELETE FROM sessions WHERE ${SCOPED} AND id = @id AND turn_count = 0`)
    this.abandonStmt = db.prepare(
      "UPDATE sessions SET status = 'failed', error_code = 'interrupted', ended_at = @now, updated_at = @now WHERE status = 'active' AND channel IN ('web', 'phone')",
    )
  }

  insert(row: Pick<SessionRow, 'id' | 'organization_id' | 'environment_id' | 'workflow_id' | 'workflow_version' | 'channel' | 'definition' | 'config' | 'state' | 'started_by_user' | 'started_by_key' | 'started_at'>): void {
    this.insertStmt.run(row)
  }

  get(s: Scope, id: string): SessionRow | undefined {
    return this.getStmt.get({ org: s.organizationId, env: s.environmentId, id }) as SessionRow | undefined
  }

  /** Saves a turn's outcome and appends its events, in one transaction. */
  saveTurn(
    id: string,
    change: { state: string; status: SessionStatus; disposition: string | null; turns: number; prompt_tokens: number; completion_tokens: number; error_code: string | null; ended_at: number | null },
    events: { kind: string; data: unknown }[],
    now: number,
  ): void {
    this.db.transaction(() => {
      this.saveStmt.run({ id, now, ...change })
      let seq = this.lastSeqStmt.get(id)!.n ?? 0
      for (const e of events) this.insertEventStmt.run(id, ++seq, e.kind, JSON.stringify(e.data), now)
    })()
  }

  events(sessionId: string): SessionEventRow[] {
    return this.eventsStmt.all(sessionId)
  }

  page(s: Scope, f: SessionFilter): { items: SessionRow[]; total: number } {
    const params = { org: s.organizationId, env: s.environmentId, ...f }
    const { limit, offset, ...count } = params
    return { items: this.pageStmt.all(params) as SessionRow[], total: (this.countStmt.get(count) as { n: number }).n }
  }

  /** Removes a session whose opening failed; one that completed a turn is never removed. */
  discard(s: Scope, id: string): void {
    this.discardStmt.run({ org: s.organizationId, env: s.environmentId, id })
  }

  /** At start-up no live call survives a restart: sessions of live channels are marked failed. */
  abandonLive(now: number): number {
    return this.abandonStmt.run({ now }).changes
  }
}
