import type { Db } from '../database.js'
import type { PageRequest } from './workflows.js'

export interface ApiKeyRow {
  id: string
  organization_id: string
  created_by: string
  name: string
  lookup: string
  secret_hash: string
  scopes: string | null
  created_at: number
  expires_at: number | null
  last_used_at: number | null
}

/** API keys; every read and delete is bound to one organization. */
export class ApiKeysRepo {
  private readonly insertStmt
  private readonly byLookup
  private readonly listStmt
  private readonly countStmt
  private readonly deleteStmt
  private readonly touchStmt

  constructor(db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO api_keys (id, organization_id, created_by, name, lookup, secret_hash, scopes, created_at, expires_at)
       VALUES (@id, @organization_id, @created_by, @name, @lookup, @secret_hash, @scopes, @created_at, @expires_at)`,
    )
    this.byLookup = db.prepare<[string], ApiKeyRow>('SELECT * FROM api_keys WHERE lookup = ?')
    this.listStmt = db.prepare<{ org: string; limit: number; offset: number }, ApiKeyRow>(
      'SELECT * FROM api_keys WHERE organization_id = @org ORDER BY created_at DESC, id LIMIT @limit OFFSET @offset',
    )
    this.countStmt = db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM api_keys WHERE organization_id = ?')
    this.deleteStmt = db.prepare('DELETE FROM api_keys WHERE organization_id = ? AND id = ?')
    this.touchStmt = db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at <= ?)')
  }

  insert(row: Omit<ApiKeyRow, 'last_used_at'>): void {
    this.insertStmt.run(row)
  }
  findByLookup(lookup: string): ApiKeyRow | undefined {
    return this.byLookup.get(lookup)
  }
  /** One page of the organization's keys, newest first. */
  page(organizationId: string, at: PageRequest): { items: ApiKeyRow[]; total: number } {
    return { items: this.listStmt.all({ org: organizationId, limit: at.limit, offset: at.offset }), total: this.countStmt.get(organizationId)!.n }
  }
  delete(organizationId: string, id: string): boolean {
    return this.deleteStmt.run(organizationId, id).changes === 1
  }
  /** Records use unless it was recorded less than `minIntervalMs` ago. */
  touch(id: string, now: number, minIntervalMs: number): void {
    this.touchStmt.run(now, id, now - minIntervalMs)
  }
}
