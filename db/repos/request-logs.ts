import type { Db } from '../database.js'

export interface RequestLogRow {
  id: number
  organization_id: string | null
  environment_id: string | null
  user_id: string | null
  api_key_id: string | null
  method: string
  route: string
  status: number
  duration_ms: number
  request_id: string
  ip: string | null
  created_at: number
}

export type NewRequestLog = Omit<RequestLogRow, 'id'>

export interface RequestLogFilter {
  method: string | null
  status: number | null
  apiKeyId: string | null
  since: number | null
  until: number | null
  limit: number
  offset: number
}

const WHERE = `organization_id = @org
  AND (@method IS NULL OR method = @method)
  AND (@status IS NULL OR status = @status)
  AND (@apiKeyId IS NULL OR api_key_id = @apiKeyId)
  AND (@since IS NULL OR created_at >= @since)
  AND (@until IS NULL OR created_at < @until)`

export class RequestLogsRepo {
  private readonly insertStmt
  private readonly pageStmt
  private readonly countStmt
  private readonly pruneStmt

  constructor(private readonly db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO request_logs (organization_id, environment_id, user_id, api_key_id, method, route, status,
         duration_ms, request_id, ip, created_at)
       VALUES (@organization_id, @environment_id, @user_id, @api_key_id, @method, @route, @status,
         @duration_ms, @request_id, @ip, @created_at)`,
    )
    this.pageStmt = db.prepare(`SELECT * FROM request_logs WHERE ${WHERE} ORDER BY id DESC LIMIT @limit OFFSET @offset`)
    this.countStmt = db.prepare(`SELECT count(*) AS n FROM request_logs WHERE ${WHERE}`)
    this.pruneStmt = db.prepare('DELETE FROM request_logs WHERE created_at < ?')
  }

  /** Writes a batch in one transaction (request logs are buffered off the request path). */
  insertMany(rows: readonly NewRequestLog[]): void {
    this.db.transaction(() => {
      for (const r of rows) this.insertStmt.run(r)
    })()
  }

  page(organizationId: string, f: RequestLogFilter): { items: RequestLogRow[]; total: number } {
    const params = { org: organizationId, ...f }
    const { limit, offset, ...countParams } = params
    return {
      items: this.pageStmt.all(params) as RequestLogRow[],
      total: (this.countStmt.get(countParams) as { n: number }).n,
    }
  }

  /** Deletes rows older than the cutoff; returns how many. */
  prune(before: number): number {
    return this.pruneStmt.run(before).changes
  }
}
