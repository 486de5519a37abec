import type { Db } from './database.js'

/**
 * The tables whose rows decide who a caller is and what they may do (api_keys, members, roles),
 * which environment a request acts in (organizations, projects, environments), and what
 * `GET /auth/me` shows (users), each with the column naming the organization a row belongs to.
 * A NULL organization (a user, a built-in role) concerns every organization.
 */
const WATCHED: readonly (readonly [table: string, orgColumn: string | null])[] = [
  ['users', null],
  ['organizations', 'id'],
  ['org_members', 'organization_id'],
  ['roles', 'organization_id'],
  ['api_keys', 'organization_id'],
  ['projects', 'organization_id'],
  ['environments', 'organization_id'],
]

const CHANGED_FN = 'ozan_tenancy_changed'
/** Organizations with their own counter; past this many the counters restart (all caches drop). */
const MAX_ORGS = 100_000

/**
 * Change counters that let a cache of tenancy rows know, without reading the database, whether
 * what it holds can still be current:
 *
 * - every INSERT, UPDATE or DELETE of a watched table made through this connection — by a
 *   repository, by raw SQL, by a foreign-key cascade — runs a TEMP trigger that bumps the counter
 *   of the row's organization (or the global one) in the same statement, before anything can read;
 * - a commit by any other connection (another process on the same file, the sqlite3 shell) moves
 *   SQLite's `PRAGMA data_version`; `sync()` reads it and bumps the global counter.
 *
 * A value cached under `stamp(org)` is current while `isCurrent(stamp, org)` holds, provided the
 * stamp was taken before the rows were read. Over-counting (a rolled-back write, a write that
 * changed nothing that mattered, last_used_at) only costs a re-read.
 */
export class TenancyVersions {
  private global = 0
  private changeCount = 0
  private readonly orgs = new Map<string, number>()
  private readonly dataVersionStmt
  private dataVersion: number

  constructor(private readonly db: Db) {
    db.function(CHANGED_FN, { deterministic: false }, (org: unknown) => {
      this.bump(typeof org === 'string' ? org : null)
      return null
    })
    for (const [table, column] of WATCHED) {
      const call = (row: 'NEW' | 'OLD') => `SELECT ${CHANGED_FN}(${column === null ? 'NULL' : `${row}.${column}`});`
      // TEMP triggers belong to this connection only: nothing is added to the database file.
      db.exec(`
        CREATE TEMP TRIGGER IF NOT EXISTS ozan_watch_${table}_insert AFTER INSERT ON main.${table} BEGIN ${call('NEW')} END;
        CREATE TEMP TRIGGER IF NOT EXISTS ozan_watch_${table}_update AFTER UPDATE ON main.${table} BEGIN ${call('OLD')} ${call('NEW')} END;
        CREATE TEMP TRIGGER IF NOT EXISTS ozan_watch_${table}_delete AFTER DELETE ON main.${table} BEGIN ${call('OLD')} END;
      `)
    }
    this.dataVersionStmt = db.prepare<[], number>('PRAGMA data_version').pluck()
    this.dataVersion = this.dataVersionStmt.get()!
  }

  /** Counts every bump, global or not: a read during which this moved may not be cached. */
  get changes(): number {
    return this.changeCount
  }

  /** Notices commits made by other connections since the last call (one cheap read). */
  sync(): void {
    const v = this.dataVersionStmt.get()!
    if (v !== this.dataVersion) {
      this.dataVersion = v
      this.global++
      this.changeCount++
    }
  }

  /** What to store beside a value read (after this call) from the organization's rows. */
  stamp(organizationId: string): VersionStamp {
    return { global: this.global, org: this.orgs.get(organizationId) ?? 0 }
  }

  isCurrent(s: VersionStamp, organizationId: string): boolean {
    return s.global === this.global && s.org === (this.orgs.get(organizationId) ?? 0)
  }

  /**
   * True inside an open transaction: what it reads may still be rolled back, and a rollback
   * bumps nothing, so nothing read there may be cached.
   */
  get inTransaction(): boolean {
    return this.db.inTransaction
  }

  private bump(organizationId: string | null): void {
    this.changeCount++
    if (organizationId === null) {
      this.global++
      return
    }
    if (!this.orgs.has(organizationId) && this.orgs.size >= MAX_ORGS) {
      // Restarting the per-organization counters is safe only together with a global bump.
      this.orgs.clear()
      this.global++
    }
    this.orgs.set(organizationId, (this.orgs.get(organizationId) ?? 0) + 1)
  }
}

export interface VersionStamp {
  readonly global: number
  readonly org: number
}

const byConnection = new WeakMap<Db, TenancyVersions>()

/** The one TenancyVersions of a connection (two apps on one connection share it). */
export function tenancyVersions(db: Db): TenancyVersions {
  let v = byConnection.get(db)
  if (!v) {
    v = new TenancyVersions(db)
    byConnection.set(db, v)
  }
  return v
}
