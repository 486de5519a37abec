import type { Db } from '../database.js'
import type { SessionChannel, SessionRow, SessionStatus } from './sessions.js'
import type { Scope } from './workflows.js'

export interface CallFilter {
  channels: readonly SessionChannel[]
  status: SessionStatus | null
  /** Matched case-insensitively (ASCII letters) as a substring; % and _ are literal. */
  q: string | null
  since: number | null
  until: number | null
  limit: number
  offset: number
}

export type CallRow = SessionRow & { workflow_name: string | null }

const TEXT_KINDS = "('user_message', 'agent_message')"
const WHERE = `s.organization_id = @org AND s.environment_id = @env
  AND s.channel IN (SELECT value FROM json_each(@channels))
  AND (@status IS NULL OR s.status = @status)
  AND (@since IS NULL OR s.started_at >= @since)
  AND (@until IS NULL OR s.started_at < @until)
  AND (@q IS NULL
    OR w.name LIKE @q ESCAPE '\\'
    OR s.id LIKE @prefix ESCAPE '\\'
    OR json_extract(s.state, '$.variables') LIKE @q ESCAPE '\\'
    OR EXISTS (SELECT 1 FROM session_events e WHERE e.session_id = s.id AND e.kind IN ${TEXT_KINDS}
      AND json_extract(e.data, '$.text') LIKE @q ESCAPE '\\'))`

/** The call list (GET /api/v1/calls): sessions of any channel, with search. */
export class CallsRepo {
  private readonly pageStmt
  private readonly countStmt

  constructor(db: Db) {
    const from = 'FROM sessions s LEFT JOIN workflows w ON w.id = s.workflow_id'
    this.pageStmt = db.prepare(`SELECT s.*, w.name AS workflow_name ${from} WHERE ${WHERE} ORDER BY s.started_at DESC, s.id LIMIT @limit OFFSET @offset`)
    this.countStmt = db.prepare(`SELECT count(*) AS n ${from} WHERE ${WHERE}`)
  }

  page(s: Scope, f: CallFilter): { items: CallRow[]; total: number } {
    const escaped = f.q === null ? null : f.q.replace(/[\\%_]/g, (c) => `\\${c}`)
    const params = {
      org: s.organizationId,
      env: s.environmentId,
      channels: JSON.stringify(f.channels),
      status: f.status,
      since: f.since,
      until: f.until,
      q: escaped === null ? null : `%${escaped}%`,
      prefix: escaped === null ? null : `${escaped}%`,
    }
    return {
      items: this.pageStmt.all({ ...params, limit: f.limit, offset: f.offset }) as CallRow[],
      total: (this.countStmt.get(params) as { n: number }).n,
    }
  }
}
