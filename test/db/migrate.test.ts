import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { MIGRATIONS_DIR, MigrationError, migrate, openDatabase, type Db } from '../../db/index.js'

function tempDir(t: { teardown(fn: () => unknown): void }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ozan-migrate-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

function open(t: { teardown(fn: () => unknown): void }, dir: string): Db {
  const db = openDatabase(path.join(dir, 'data', 'ozan.db'))
  t.teardown(() => db.close())
  return db
}

const realFiles = () =>
  fs
    .readdirSync(MIGRATIONS_DIR)
    .filter((f) => f.endsWith('.sql'))
    .sort()

/** Every schema object and every row of every table: "the database as it was". */
function snapshot(db: Db): unknown {
  const objects = db.prepare("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name").all() as {
    type: string
    name: string
  }[]
  // A contentless FTS5 table cannot be scanned; its shadow tables (plain tables) hold its state
  // and are compared like any other.
  const rows = (objects as { type: string; name: string; sql: string | null }[])
    .filter((o) => o.type === 'table' && !/^CREATE VIRTUAL TABLE/i.test(o.sql ?? ''))
    // Sorted in JS: some shadow tables are WITHOUT ROWID, so there is no rowid to order by.
    .map((o) => [
      o.name,
      db
        .prepare(`SELECT * FROM "${o.name}"`)
        .all()
        .map((r) => JSON.stringify(r))
        .sort(),
    ])
  return { objects, rows }
}

t.test('migrations apply once, in order, and are recorded', async (t) => {
  const db = open(t, tempDir(t))
  const files = realFiles()
  t.ok(files.includes('001_accounts.sql'))
  t.same(migrate(db), files)
  const recorded = db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all()
  t.same(
    recorded,
    files.map((f) => ({ version: Number.parseInt(f, 10), name: f })),
  )
  t.ok(db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'api_keys'").get(), 'the schema exists')

  const before = snapshot(db)
  t.same(migrate(db), [], 're-running applies nothing')
  t.same(snapshot(db), before)
})

t.test('a failing migration throws MigrationError naming the file and leaves the database as it was', async (t) => {
  const dir = tempDir(t)
  const migrations = path.join(dir, 'migrations')
  fs.mkdirSync(migrations)
  for (const f of realFiles()) fs.copyFileSync(path.join(MIGRATIONS_DIR, f), path.join(migrations, f))
  const db = open(t, dir)
  migrate(db, migrations)
  db.prepare("INSERT INTO users (id, email, name, password_hash, created_at, updated_at) VALUES ('u1', 'a@example.com', 'A', 'h', 0, 0)").run()
  const before = snapshot(db)

  fs.writeFileSync(
    path.join(migrations, '999_x.sql'),
    `CREATE TABLE half_done (id INTEGER PRIMARY KEY);
     INSERT INTO half_done (id) VALUES (1);
     UPDATE users SET name = 'changed';
     INSERT INTO no_such_table VALUES (1);`,
  )
  let thrown: unknown
  try {
    migrate(db, migrations)
  } catch (err) {
    thrown = err
  }
  t.ok(thrown instanceof MigrationError, 'throws MigrationError')
  t.equal((thrown as MigrationError).file, '999_x.sql')
  t.match((thrown as Error).message, /999_x\.sql/)
  t.match((thrown as Error).message, /no_such_table/)
  t.notOk(db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'half_done'").get(), 'the table the failing file created is gone')
  t.same(snapshot(db), before, 'schema and rows are exactly as before')
  t.notOk(db.inTransaction, 'no transaction is left open')

  fs.writeFileSync(path.join(migrations, '999_x.sql'), 'CREATE TABLE half_done (id INTEGER PRIMARY KEY);')
  t.same(migrate(db, migrations), ['999_x.sql'], 'once fixed, the file applies')
})

t.test('openDatabase sets WAL, foreign keys and a busy timeout', async (t) => {
  const db = open(t, tempDir(t))
  t.equal(db.pragma('journal_mode', { simple: true }), 'wal')
  t.equal(db.pragma('foreign_keys', { simple: true }), 1)
  t.ok((db.pragma('busy_timeout', { simple: true }) as number) >= 5000)

  migrate(db)
  t.throws(
    () => db.prepare("INSERT INTO org_members (organization_id, user_id, role_id, created_at) VALUES ('no-org', 'no-user', 1, 0)").run(),
    { code: 'SQLITE_CONSTRAINT_FOREIGNKEY' },
    'foreign keys are enforced',
  )
})
