import type { Db } from '../database.js'

export type EmailTokenPurpose = 'verify_email' | 'reset_password'

export interface EmailTokenRow {
  token_hash: string
  user_id: string
  purpose: EmailTokenPurpose
  created_at: number
  expires_at: number
  used_at: number | null
}

/** Single-use, expiring tokens sent by email; only their SHA-256 is stored. */
export class EmailTokensRepo {
  private readonly insertStmt
  private readonly consumeStmt
  private readonly getStmt
  private readonly retireStmt

  constructor(private readonly db: Db) {
    this.insertStmt = db.prepare('INSERT INTO email_tokens (token_hash, user_id, purpose, created_at, expires_at) VALUES (?, ?, ?, ?, ?)')
    this.getStmt = db.prepare<[string, EmailTokenPurpose], EmailTokenRow>('SELECT * FROM email_tokens WHERE token_hash = ? AND purpose = ?')
    this.consumeStmt = db.prepare('UPDATE email_tokens SET used_at = ? WHERE token_hash = ? AND used_at IS NULL')
    this.retireStmt = db.prepare('UPDATE email_tokens SET used_at = ? WHERE user_id = ? AND purpose = ? AND used_at IS NULL')
  }

  insert(row: Omit<EmailTokenRow, 'used_at'>): void {
    this.insertStmt.run(row.token_hash, row.user_id, row.purpose, row.created_at, row.expires_at)
  }

  /**
   * Uses a token once: returns its row when it was unused and unexpired, else undefined.
   * All other unused tokens of the same purpose for that user are retired with it.
   */
  consume(hash: string, purpose: EmailTokenPurpose, now: number): EmailTokenRow | undefined {
    return this.db.transaction(() => {
      const row = this.getStmt.get(hash, purpose)
      if (!row || row.used_at !== null || row.expires_at <= now) return undefined
      if (this.consumeStmt.run(now, hash).changes !== 1) return undefined
      this.retireStmt.run(now, row.user_id, purpose)
      return row
    })()
  }
}
