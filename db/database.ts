import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'

export type Db = Database.Database

export const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations')

export class MigrationError extends Error {
  constructor(
    readonly file: string,
    cause: unknown,
  ) {
    super(`migration ${file} failed and was rolled back: ${(cause as Error).message}`)
    this.name = 'MigrationError'
  }
}

/** Opens (creating if needed) a database file with the pragmas the design card requires. */
export function openDatabase(file: string): Db {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true })
  const db = new Database(file)
  db.pragma('journal_mode = WAL')
  db.pragma('foreign_keys = ON')
  db.pragma('busy_timeout = 5000')
  // WAL + NORMAL is durable across application crashes; only an OS crash can lose the last commits.
  db.pragma('synchronous = NORMAL')
  return db
}

/**
 * Applies `NNN_name.sql` files in order, each in its own transaction, recording each in
 * `schema_migrations`. A failing file is rolled back whole and stops start-up.
 * Returns the names applied now.
 */
export function migrate(db: Db, dir = MIGRATIONS_DIR): string[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at INTEGER NOT NULL
  )`)
  const applied = new Set((db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((r) => r.version))
  const files = fs
    .readdirSync(dir)
    .filter((f) => /^\d{3,}_[\w-]+\.sql$/.test(f))
    .sort()
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)')
  const done: string[] = []
  for (const file of files) {
    const version = Number.parseInt(file, 10)
    if (applied.has(version)) continue
    const sql = fs.readFileSync(path.join(dir, file), 'utf8')
    try {
      db.transaction(() => {
        db.exec(sql)
        record.run(version, file, Date.now())
      })()
    } catch (err) {
      throw new MigrationError(file, err)
    }
    done.push(file)
  }
  return done
}
