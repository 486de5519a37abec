import type { Db } from '../database.js'

export interface MailRow {
  id: number
  recipient: string
  kind: string
  subject: string
  body_text: string
  created_at: number
  sent_at: number | null
  attempts: number
  last_error: string | null
}

/** Every email is stored before it is sent, so a failed or absent SMTP server loses nothing. */
export class MailOutboxRepo {
  private readonly insertStmt
  private readonly pendingStmt
  private readonly sentStmt
  private readonly failedStmt
  private readonly forStmt

  constructor(db: Db) {
    this.insertStmt = db.prepare('INSERT INTO mail_outbox (recipient, kind, subject, body_text, created_at) VALUES (?, ?, ?, ?, ?)')
    this.pendingStmt = db.prepare<[number, number], MailRow>('SELECT * FROM mail_outbox WHERE sent_at IS NULL AND attempts < ? ORDER BY id LIMIT ?')
    this.sentStmt = db.prepare('UPDATE mail_outbox SET sent_at = ?, attempts = attempts + 1, last_error = NULL WHERE id = ?')
    this.failedStmt = db.prepare('UPDATE mail_outbox SET attempts = attempts + 1, last_error = ? WHERE id = ?')
    this.forStmt = db.prepare<[string], MailRow>('SELECT * FROM mail_outbox WHERE recipient = ? ORDER BY id')
  }

  insert(m: Pick<MailRow, 'recipient' | 'kind' | 'subject' | 'body_text' | 'created_at'>): number {
    return Number(this.insertStmt.run(m.recipient, m.kind, m.subject, m.body_text, m.created_at).lastInsertRowid)
  }
  pending(maxAttempts: number, limit: number): MailRow[] {
    return this.pendingStmt.all(maxAttempts, limit)
  }
  markSent(id: number, now: number): void {
    this.sentStmt.run(now, id)
  }
  markFailed(id: number, error: string): void {
    this.failedStmt.run(error.slice(0, 500), id)
  }
  forRecipient(email: string): MailRow[] {
    return this.forStmt.all(email)
  }
}
