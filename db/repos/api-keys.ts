import type { Db } from '../database.js'

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
  private readonly deleteStmt
  private readonly touchStmt

  constructor(db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO api_keys (id, organization_id, created_by, name, lookup, secret_hash, scopes, created_at, expires_at)
       VALUES (@id, @organization_id, @created_by, @name, @lookup, @secret_hash, @scopes, @created_at, @expires_at)`,
    )
    this.byLookup = db.prepare<[string], ApiKeyRow>('SELECT * FROM api_keys WHERE lookup = ?')
    this.listStmt = db.prepare<[string], ApiKeyRow>(
      'SELECT * FROM api_keys WHERE organization_id = ? ORDER BY created_at DESC, id',
    )
    this.deleteStmt = db.prepare('DELETE FROM api_keys WHERE organization_id = ? AND id = ?')
    this.touchStmt = db.prepare(
      'UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at <= ?)',
    )
  }

  insert(row: Omit<ApiKeyRow, 'last_used_at'>): void {
    this.insertStmt.run(row)
  }
  findByLookup(lookup: string): ApiKeyRow | undefined {
    return this.byLookup.get(lookup)
  }
  list(organizationId: string): ApiKeyRow[] {
    return this.listStmt.all(organizationId)
  }
  delete(organizationId: string, id: string): boolean {
    return this.deleteStmt.run(organizationId, id).changes === 1
  }
  /** Records use unless it was recorded less than `minIntervalMs` ago. */
  touch(id: string, now: number, minIntervalMs: number): void {
    this.touchStmt.run(now, id, now - minIntervalMs)
  }
}
