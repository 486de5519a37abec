import type { Db } from '../database.js'
import type { Scope } from './workflows.js'

export interface PhoneNumberRow {
  id: string
  organization_id: string
  environment_id: string
  /** E.164 with the leading +. */
  number: string
  label: string | null
  trunk_id: string
  workflow_id: string | null
  created_by: string | null
  created_at: number
  updated_at: number
}

export type PhoneNumberChanges = Partial<Pick<PhoneNumberRow, 'label' | 'trunk_id' | 'workflow_id' | 'updated_at'>>

const SCOPED = 'organization_id = @org AND environment_id = @env'
const CHANGEABLE: readonly (keyof PhoneNumberChanges)[] = ['label', 'trunk_id', 'workflow_id', 'updated_at']

/** Phone numbers; API reads and writes are bound to one organization and environment. */
export class PhoneNumbersRepo {
  private readonly insertStmt
  private readonly getStmt
  private readonly listStmt
  private readonly countStmt
  private readonly deleteStmt
  private readonly byNumberStmt
  private readonly onTrunkStmt

  constructor(private readonly db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO phone_numbers (id, organization_id, environment_id, number, label, trunk_id, workflow_id, created_by, created_at, updated_at)
       VALUES (@id, @organization_id, @environment_id, @number, @label, @trunk_id, @workflow_id, @created_by, @created_at, @updated_at)
       RETURNING *`,
    )
    this.getStmt = db.prepare(`SELECT * FROM phone_numbers WHERE ${SCOPED} AND id = @id`)
    this.listStmt = db.prepare(`SELECT * FROM phone_numbers WHERE ${SCOPED} ORDER BY number`)
    this.countStmt = db.prepare(`SELECT COUNT(*) AS n FROM phone_numbers WHERE ${SCOPED}`)
    this.deleteStmt = db.prepare(`DELETE FROM phone_numbers WHERE ${SCOPED} AND id = @id`)
    this.byNumberStmt = db.prepare<[string], PhoneNumberRow>('SELECT * FROM phone_numbers WHERE number = ?')
    this.onTrunkStmt = db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM phone_numbers WHERE trunk_id = ?')
  }

  insert(row: PhoneNumberRow): PhoneNumberRow {
    return this.insertStmt.get(row) as PhoneNumberRow
  }
  get(s: Scope, id: string): PhoneNumberRow | undefined {
    return this.getStmt.get({ org: s.organizationId, env: s.environmentId, id }) as PhoneNumberRow | undefined
  }
  list(s: Scope): PhoneNumberRow[] {
    return this.listStmt.all({ org: s.organizationId, env: s.environmentId }) as PhoneNumberRow[]
  }
  count(s: Scope): number {
    return (this.countStmt.get({ org: s.organizationId, env: s.environmentId }) as { n: number }).n
  }
  update(s: Scope, id: string, changes: PhoneNumberChanges): PhoneNumberRow | undefined {
    const columns = CHANGEABLE.filter((c) => changes[c] !== undefined)
    if (columns.length === 0) return this.get(s, id)
    const sets = columns.map((c) => `${c} = @${c}`).join(', ')
    const values = Object.fromEntries(columns.map((c) => [c, changes[c]]))
    return this.db.prepare(`UPDATE phone_numbers SET ${sets} WHERE ${SCOPED} AND id = @id RETURNING *`).get({
      ...values,
      org: s.organizationId,
      env: s.environmentId,
      id,
    }) as PhoneNumberRow | undefined
  }
  delete(s: Scope, id: string): boolean {
    return this.deleteStmt.run({ org: s.organizationId, env: s.environmentId, id }).changes === 1
  }
  /** How many numbers, of any scope, use a trunk (a trunk in use cannot be deleted). */
  countOnTrunk(trunkId: string): number {
    return this.onTrunkStmt.get(trunkId)!.n
  }

  // Unscoped, for the SIP service routing an inbound INVITE: never from a request.
  byNumber(number: string): PhoneNumberRow | undefined {
    return this.byNumberStmt.get(number)
  }
}
