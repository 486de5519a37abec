import type { Db } from '../database.js'

export interface UserRow {
  id: string
  email: string
  name: string
  password_hash: string
  locale: string
  email_verified_at: number | null
  created_at: number
  updated_at: number
}

export class UsersRepo {
  private readonly byId
  private readonly byEmail
  private readonly insertStmt
  private readonly setPasswordStmt
  private readonly verifyStmt

  constructor(db: Db) {
    this.byId = db.prepare<[string], UserRow>('SELECT * FROM users WHERE id = ?')
    this.byEmail = db.prepare<[string], UserRow>('SELECT * FROM users WHERE email = ?')
    this.insertStmt = db.prepare(
      `INSERT INTO users (id, email, name, password_hash, locale, created_at, updated_at)
       VALUES (@id, @email, @name, @password_hash, @locale, @created_at, @created_at)`,
    )
    this.setPasswordStmt = db.prepare('UPDATE users SET password_hash = ?, updated_at = ? WHERE id = ?')
    this.verifyStmt = db.prepare('UPDATE users SET email_verified_at = coalesce(email_verified_at, ?), updated_at = ? WHERE id = ?')
  }

  get(id: string): UserRow | undefined {
    return this.byId.get(id)
  }
  findByEmail(email: string): UserRow | undefined {
    return this.byEmail.get(email)
  }
  insert(u: Pick<UserRow, 'id' | 'email' | 'name' | 'password_hash' | 'locale' | 'created_at'>): void {
    this.insertStmt.run(u)
  }
  setPassword(id: string, hash: string, now: number): void {
    this.setPasswordStmt.run(hash, now, id)
  }
  markVerified(id: string, now: number): void {
    this.verifyStmt.run(now, now, id)
  }
}
