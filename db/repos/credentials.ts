import type { Db } from '../database.js'

export interface CredentialRow {
  organization_id: string
  provider: string
  /** JSON object of the non-secret fields. */
  plain_fields: string
  key_id: string
  /** iv || tag || ciphertext of the secret fields' JSON (see 005_credentials.sql). */
  sealed: Buffer
  created_at: number
  updated_at: number
}

/** Provider credentials; every read, write and delete is bound to one organization. */
export class CredentialsRepo {
  private readonly upsertStmt
  private readonly getStmt
  private readonly listStmt
  private readonly deleteStmt

  constructor(db: Db) {
    // Replacing keeps the row (and its created_at): one credential per organization and provider.
    this.upsertStmt = db.prepare(
      `INSERT INTO credentials (organization_id, provider, plain_fields, key_id, sealed, created_at, updated_at)
       VALUES (@organization_id, @provider, @plain_fields, @key_id, @sealed, @created_at, @updated_at)
       ON CONFLICT (organization_id, provider) DO UPDATE SET
         plain_fields = excluded.plain_fields, key_id = excluded.key_id, sealed = excluded.sealed,
         updated_at = excluded.updated_at
       RETURNING *`,
    )
    this.getStmt = db.prepare<[string, string], CredentialRow>('SELECT * FROM credentials WHERE organization_id = ? AND provider = ?')
    this.listStmt = db.prepare<[string], CredentialRow>('SELECT * FROM credentials WHERE organization_id = ? ORDER BY provider')
    this.deleteStmt = db.prepare('DELETE FROM credentials WHERE organization_id = ? AND provider = ?')
  }

  /** Stores or replaces; returns the row as stored (created_at kept from the first write). */
  upsert(row: CredentialRow): CredentialRow {
    return this.upsertStmt.get(row) as CredentialRow
  }
  get(organizationId: string, provider: string): CredentialRow | undefined {
    return this.getStmt.get(organizationId, provider)
  }
  list(organizationId: string): CredentialRow[] {
    return this.listStmt.all(organizationId)
  }
  delete(organizationId: string, provider: string): boolean {
    return this.deleteStmt.run(organizationId, provider).changes === 1
  }
}
