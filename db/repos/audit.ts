import type { Db } from '../database.js'

export interface AuditRow {
  id: number
  organization_id: string | null
  environment_id: string | null
  actor_type: 'user' | 'api_key' | 'anonymous' | 'system'
  actor_id: string | null
  actor_user_id: string | null
  action: string
  resource_type: string
  resource_id: string | null
  outcome: 'success' | 'failure'
  ip: string | null
  user_agent: string | null
  request_id: string | null
  metadata: string | null
  created_at: number
}

export type NewAuditRow = Omit<AuditRow, 'id'>

export interface AuditFilter {
  action: string | null
  resourceType: string | null
  actorId: string | null
  since: number | null
  until: number | null
  limit: number
  offset: number
}

// Optional filters as `(? IS NULL OR …)`: one statement prepared once serves every combination.
const WHERE = `organization_id = @org
  AND (@action IS NULL OR action = @action)
  AND (@resourceType IS NULL OR resource_type = @resourceType)
  AND (@actorId IS NULL OR actor_id = @actorId OR actor_user_id = @actorId)
  AND (@since IS NULL OR created_at >= @since)
  AND (@until IS NULL OR created_at < @until)`

/** The append-only audit trail. */
export class AuditRepo {
  private readonly insertStmt
  private readonly pageStmt
  private readonly countStmt

  constructor(db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO audit_events (organization_id, environment_id, actor_type, actor_id, actor_user_id, action,
         resource_type, resource_id, outcome, ip, user_agent, request_id, metadata, created_at)
       VALUES (@organization_id, @environment_id, @actor_type, @actor_id, @actor_user_id, @action,
         @resource_type, @resource_id, @outcome, @ip, @user_agent, @request_id, @metadata, @created_at)`,
    )
    this.pageStmt = db.prepare(`SELECT * FROM audit_events WHERE ${WHERE} ORDER BY id DESC LIMIT @limit OFFSET @offset`)
    this.countStmt = db.prepare(`SELECT count(*) AS n FROM audit_events WHERE ${WHERE}`)
  }

  insert(row: NewAuditRow): void {
    this.insertStmt.run(row)
  }

  page(organizationId: string, f: AuditFilter): { items: AuditRow[]; total: number } {
    const params = { org: organizationId, ...f }
    const { limit, offset, ...countParams } = params
    return {
      items: this.pageStmt.all(params) as AuditRow[],
      total: (this.countStmt.get(countParams) as { n: number }).n,
    }
  }
}
