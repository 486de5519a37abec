import type { Db } from '../database.js'
import type { Scope } from './workflows.js'

export type TrunkRegistrationState = 'unregistered' | 'registering' | 'registered' | 'failed'

export interface SipTrunkRow {
  id: string
  organization_id: string
  environment_id: string
  name: string
  host: string
  port: number
  transport: 'udp' | 'tcp'
  outbound_proxy: string | null
  domain: string | null
  username: string | null
  auth_username: string | null
  key_id: string | null
  /** iv || tag || ciphertext of the password (see 011_telephony.sql), or null when none is set. */
  password_sealed: Buffer | null
  register: number
  register_expires_s: number
  /** JSON array of CIDR strings. */
  allowed_sources: string
  registration_state: TrunkRegistrationState
  registration_error: string | null
  registration_changed_at: number | null
  registered_until: number | null
  created_by: string | null
  created_at: number
  updated_at: number
}

type Registration = Pick<SipTrunkRow, 'registration_state' | 'registration_error' | 'registration_changed_at' | 'registered_until'>
export type NewSipTrunk = Omit<SipTrunkRow, keyof Registration>
/** Columns the API may change (PATCH); identity, scope and registration are not among them. */
export type SipTrunkChanges = Partial<Omit<SipTrunkRow, 'id' | 'organization_id' | 'environment_id' | 'created_by' | 'created_at' | keyof Registration>>

const SCOPED = 'organization_id = @org AND environment_id = @env'
const CHANGEABLE: readonly (keyof SipTrunkChanges)[] = [
  'name',
  'host',
  'port',
  'transport',
  'outbound_proxy',
  'domain',
  'username',
  'auth_username',
  'key_id',
  'password_sealed',
  'register',
  'register_expires_s',
  'allowed_sources',
  'updated_at',
]

/** SIP trunks; every API read and write is bound to one organization and environment. */
export class SipTrunksRepo {
  private readonly insertStmt
  private readonly getStmt
  private readonly listStmt
  private readonly countStmt
  private readonly deleteStmt
  private readonly byIdStmt
  private readonly allStmt
  private readonly registrationStmt

  constructor(private readonly db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO sip_trunks (id, organization_id, environment_id, name, host, port, transport, outbound_proxy, domain, username,
         auth_username, key_id, password_sealed, register, register_expires_s, allowed_sources, created_by, created_at, updated_at)
       VALUES (@id, @organization_id, @environment_id, @name, @host, @port, @transport, @outbound_proxy, @domain, @username,
         @auth_username, @key_id, @password_sealed, @register, @register_expires_s, @allowed_sources, @created_by, @created_at, @updated_at)
       RETURNING *`,
    )
    this.getStmt = db.prepare(`SELECT * FROM sip_trunks WHERE ${SCOPED} AND id = @id`)
    this.listStmt = db.prepare(`SELECT * FROM sip_trunks WHERE ${SCOPED} ORDER BY created_at, id`)
    this.countStmt = db.prepare(`SELECT COUNT(*) AS n FROM sip_trunks WHERE ${SCOPED}`)
    this.deleteStmt = db.prepare(`DELETE FROM sip_trunks WHERE ${SCOPED} AND id = @id`)
    this.byIdStmt = db.prepare<[string], SipTrunkRow>('SELECT * FROM sip_trunks WHERE id = ?')
    this.allStmt = db.prepare<[], SipTrunkRow>('SELECT * FROM sip_trunks ORDER BY created_at, id')
    this.registrationStmt = db.prepare(
      `UPDATE sip_trunks SET registration_state = @registration_state, registration_error = @registration_error,
         registration_changed_at = @registration_changed_at, registered_until = @registered_until WHERE id = @id`,
    )
  }

  insert(row: NewSipTrunk): SipTrunkRow {
    return this.insertStmt.get(row) as SipTrunkRow
  }
  get(s: Scope, id: string): SipTrunkRow | undefined {
    return this.getStmt.get({ org: s.organizationId, env: s.environmentId, id }) as SipTrunkRow | undefined
  }
  list(s: Scope): SipTrunkRow[] {
    return this.listStmt.all({ org: s.organizationId, env: s.environmentId }) as SipTrunkRow[]
  }
  count(s: Scope): number {
    return (this.countStmt.get({ org: s.organizationId, env: s.environmentId }) as { n: number }).n
  }
  /** The changed row, or undefined when the trunk is not in the scope. */
  update(s: Scope, id: string, changes: SipTrunkChanges): SipTrunkRow | undefined {
    const columns = CHANGEABLE.filter((c) => changes[c] !== undefined)
    if (columns.length === 0) return this.get(s, id)
    const sets = columns.map((c) => `${c} = @${c}`).join(', ')
    const values = Object.fromEntries(columns.map((c) => [c, changes[c]]))
    return this.db.prepare(`UPDATE sip_trunks SET ${sets} WHERE ${SCOPED} AND id = @id RETURNING *`).get({
      ...values,
      org: s.organizationId,
      env: s.environmentId,
      id,
    }) as SipTrunkRow | undefined
  }
  delete(s: Scope, id: string): boolean {
    return this.deleteStmt.run({ org: s.organizationId, env: s.environmentId, id }).changes === 1
  }

  // Unscoped reads, for the SIP service only (it serves every organization): never from a request.
  byId(id: string): SipTrunkRow | undefined {
    return this.byIdStmt.get(id)
  }
  all(): SipTrunkRow[] {
    return this.allStmt.all()
  }
  setRegistration(id: string, r: Registration): void {
    this.registrationStmt.run({ id, ...r })
  }
}
