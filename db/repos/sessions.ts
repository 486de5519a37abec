import type { Db } from '../database.js'
import type { PageRequest, Scope } from './workflows.js'

/** pending: a web call created by POST /calls, its browser not connected yet. */
export type SessionStatus = 'pending' | 'active' | 'completed' | 'failed'
export type SessionChannel = 'chat' | 'run' | 'web' | 'phone'

export interface SessionRow {
  id: string
  organization_id: string
  environment_id: string
  /** NULL for a transient agent given inline to POST /calls. */
  workflow_id: string | null
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
  /** A pending call's token expiry: it fails (not_connected) if nobody connects by then. */
  pending_until: number | null
}

/** A live call a crash left active, as abandonLive marked it. */
export interface AbandonedSession {
  id: string
  organization_id: string
  environment_id: string
  ended_at: number
}

export interface SessionEventRow {
  session_id: string
  seq: number
  kind: string
  data: string
  created_at: number
}

/** An event to append; `at` is when it happened (default: when it is written). */
export interface SessionEventInput {
  kind: string
  data: unknown
  at?: number
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
  private readonly eventsPageStmt
  private readonly eventCountStmt
  private readonly lastSeqStmt
  private readonly pageStmt
  private readonly countStmt
  private readonly abandonStmt
  private readonly touchStmt
  private readonly discardStmt
  private readonly activateStmt
  private readonly expireStmt
  private readonly ringingStmt
  private readonly failPendingStmt

  constructor(private readonly db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO sessions (id, organization_id, environment_id, workflow_id, workflow_version, channel, status, definition, config,
         state, started_by_user, started_by_key, started_at, updated_at, pending_until)
       VALUES (@id, @organization_id, @environment_id, @workflow_id, @workflow_version, @channel, @status, @definition, @config,
         @state, @started_by_user, @started_by_key, @started_at, @started_at, @pending_until)`,
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
    this.eventsPageStmt = db.prepare<{ id: string; limit: number; offset: number }, SessionEventRow>(
      'SELECT * FROM session_events WHERE session_id = @id ORDER BY seq LIMIT @limit OFFSET @offset',
    )
    this.eventCountStmt = db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM session_events WHERE session_id = ?')
    this.lastSeqStmt = db.prepare<[string], { n: number | null }>('SELECT max(seq) AS n FROM session_events WHERE session_id = ?')
    this.pageStmt = db.prepare(`SELECT * FROM sessions WHERE ${FILTER} ORDER BY started_at DESC, id LIMIT @limit OFFSET @offset`)
    this.countStmt = db.prepare(`SELECT count(*) AS n FROM sessions WHERE ${FILTER}`)
    this.discardStmt = db.prepare(`DELETE FROM sessions WHERE ${SCOPED} AND id = @id AND turn_count = 0`)
    this.activateStmt = db.prepare(
      `UPDATE sessions SET status = 'active', pending_until = NULL, started_at = @now, updated_at = @now
       WHERE ${SCOPED} AND id = @id AND status = 'pending' AND pending_until > @now`,
    )
    this.expireStmt = db.prepare(
      `UPDATE sessions SET status = 'failed', error_code = 'not_connected', disposition = 'not_connected', ended_at = pending_until,
         pending_until = NULL, updated_at = @now
       WHERE status = 'pending' AND pending_until <= @now`,
    )
    this.ringingStmt = db.prepare(`UPDATE sessions SET disposition = 'ringing', updated_at = @now WHERE id = @id AND status = 'pending'`)
    this.failPendingStmt = db.prepare(
      `UPDATE sessions SET status = 'failed', disposition = @disposition, error_code = @error_code, ended_at = @now, pending_until = NULL, updated_at = @now
       WHERE id = @id AND status = 'pending'`,
    )
    this.touchStmt = db.prepare('UPDATE sessions SET updated_at = max(updated_at, @at) WHERE id = @id')
    // A call's last recorded activity: its newest event (each written with its own time) or the
    // live mark its recorder last wrote (updated_at), never earlier than its start. Turns and
    // tokens are counted from the recorded `turn` and `usage` events (the running totals are only
    // written when a call ends).
    this.abandonStmt = db.prepare(
      `UPDATE sessions SET status = 'failed', error_code = 'interrupted', disposition = 'interrupted',
         ended_at = max(started_at, updated_at, coalesce((SELECT max(e.created_at) FROM session_events e WHERE e.session_id = sessions.id), 0)),
         turn_count = (SELECT count(*) FROM session_events e WHERE e.session_id = sessions.id AND e.kind = 'turn'),
         prompt_tokens = coalesce((SELECT sum(json_extract(e.data, '$.prompt_tokens')) FROM session_events e WHERE e.session_id = sessions.id AND e.kind = 'usage'), 0),
         completion_tokens = coalesce((SELECT sum(json_extract(e.data, '$.completion_tokens')) FROM session_events e WHERE e.session_id = sessions.id AND e.kind = 'usage'), 0),
         updated_at = @now
       WHERE status = 'active' AND channel IN ('web', 'phone')
       RETURNING id, organization_id, environment_id, ended_at`,
    )
  }

  insert(
    row: Pick<
      SessionRow,
      | 'id'
      | 'organization_id'
      | 'environment_id'
      | 'workflow_id'
      | 'workflow_version'
      | 'channel'
      | 'definition'
      | 'config'
      | 'state'
      | 'started_by_user'
      | 'started_by_key'
      | 'started_at'
    > &
      Partial<Pick<SessionRow, 'status' | 'pending_until'>>,
  ): void {
    this.insertStmt.run({ status: 'active', pending_until: null, ...row })
  }

  /** A pending call's browser connected: active from now. False when it is no longer pending. */
  activate(s: Scope, id: string, now: number): boolean {
    return this.activateStmt.run({ org: s.organizationId, env: s.environmentId, id, now }).changes === 1
  }

  /** Pending calls nobody connected to before their token expired are failed (not_connected). */
  expirePending(now: number): number {
    return this.expireStmt.run({ now }).changes
  }

  /** A pending phone call we placed rings (180/183). */
  markRinging(id: string, now: number): void {
    this.ringingStmt.run({ id, now })
  }

  /** A pending call that never connected (busy, no answer, canceled, refused, failed). False when no longer pending. */
  failPending(id: string, disposition: string, errorCode: string, now: number): boolean {
    return this.failPendingStmt.run({ id, disposition, error_code: errorCode, now }).changes === 1
  }

  get(s: Scope, id: string): SessionRow | undefined {
    return this.getStmt.get({ org: s.organizationId, env: s.environmentId, id }) as SessionRow | undefined
  }

  /** Saves a turn's outcome and appends its events, in one transaction. */
  saveTurn(
    id: string,
    change: {
      state: string
      status: SessionStatus
      disposition: string | null
      turns: number
      prompt_tokens: number
      completion_tokens: number
      error_code: string | null
      ended_at: number | null
    },
    events: SessionEventInput[],
    now: number,
  ): void {
    this.db.transaction(() => {
      this.saveStmt.run({ id, now, ...change })
      this.insertEvents(id, events, now)
    })()
  }

  /**
   * Appends events to a live session (a call's periodic flush; its state is saved at the end) and
   * marks it live until `liveAt` (updated_at), the call's last recorded activity should the
   * process die before the call ends.
   */
  appendEvents(id: string, events: SessionEventInput[], now: number, liveAt: number = now): void {
    this.db.transaction(() => {
      this.insertEvents(id, events, now)
      this.touchStmt.run({ id, at: liveAt })
    })()
  }

  private insertEvents(id: string, events: SessionEventInput[], now: number): void {
    let seq = this.lastSeqStmt.get(id)!.n ?? 0
    for (const e of events) this.insertEventStmt.run(id, ++seq, e.kind, JSON.stringify(e.data), e.at ?? now)
  }

  events(sessionId: string): SessionEventRow[] {
    return this.eventsStmt.all(sessionId)
  }
  /** One page of a session's events in recording order (`seq` is unique within the session). */
  eventsPage(sessionId: string, at: PageRequest): { items: SessionEventRow[]; total: number } {
    return { items: this.eventsPageStmt.all({ id: sessionId, limit: at.limit, offset: at.offset }), total: this.eventCountStmt.get(sessionId)!.n }
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

  /**
   * At start-up no live call survives a restart: sessions of live channels still `active` are
   * marked failed (`interrupted`), ended at their last recorded activity, each with an `end` event.
   */
  abandonLive(now: number): AbandonedSession[] {
    return this.db.transaction(() => {
      const abandoned = this.abandonStmt.all({ now }) as AbandonedSession[]
      for (const s of abandoned) this.insertEvents(s.id, [{ kind: 'end', data: { disposition: 'interrupted', reason: 'interrupted' }, at: s.ended_at }], now)
      return abandoned
    })()
  }
}
