import { randomUUID } from 'node:crypto'
import type { Clock } from '../../core/index.js'
import type { PhoneNumberChanges, PhoneNumberRow, Repos } from '../../db/index.js'
import { ApiError } from '../http/errors.js'
import { ValidationError } from '../http/validation.js'
import type { Principal } from '../security/principal.js'
import { MAX_PHONE_NUMBERS, type PhoneNumberCreateT, type PhoneNumberResponseT, type PhoneNumberUpdateT } from './schema.js'

const iso = (ms: number) => new Date(ms).toISOString()
const scope = (p: Principal) => ({ organizationId: p.organizationId, environmentId: p.environmentId })

/**
 * Phone numbers of the request's environment: which trunk carries each, and which agent answers.
 * A trunk or agent named in the body must be of the same environment; one of another organization
 * is refused exactly like one that does not exist (422 at the field, the same words), so the
 * answer tells nothing about other organizations.
 */
export class PhoneNumberService {
  constructor(private readonly deps: { repos: Repos; clock: Clock }) {}

  list(p: Principal): PhoneNumberResponseT[] {
    return this.deps.repos.phoneNumbers.list(scope(p)).map((r) => this.response(p, r))
  }

  get(p: Principal, id: string): PhoneNumberResponseT {
    return this.response(p, this.row(p, id))
  }

  create(p: Principal, body: PhoneNumberCreateT): PhoneNumberResponseT {
    const { repos, clock } = this.deps
    this.checkReferences(p, body.trunk_id, body.workflow_uuid)
    const now = clock.now()
    const row = repos.transaction(() => {
      if (repos.phoneNumbers.count(scope(p)) >= MAX_PHONE_NUMBERS) throw new ApiError('phone_number_limit')
      // Unique across the server: an inbound call is routed by its number alone. Whose it is stays unsaid.
      if (repos.phoneNumbers.byNumber(body.number)) throw new ApiError('phone_number_taken')
      return repos.phoneNumbers.insert({
        id: randomUUID(),
        organization_id: p.organizationId,
        environment_id: p.environmentId,
        number: body.number,
        label: body.label,
        trunk_id: body.trunk_id,
        workflow_id: body.workflow_uuid,
        created_by: p.userId,
        created_at: now,
        updated_at: now,
      })
    })
    return this.response(p, row)
  }

  update(p: Principal, id: string, body: PhoneNumberUpdateT): PhoneNumberResponseT {
    this.row(p, id)
    this.checkReferences(p, body.trunk_id, body.workflow_uuid)
    const changes: PhoneNumberChanges = { updated_at: this.deps.clock.now() }
    if (body.label !== undefined) changes.label = body.label
    if (body.trunk_id !== undefined) changes.trunk_id = body.trunk_id
    if (body.workflow_uuid !== undefined) changes.workflow_id = body.workflow_uuid
    const row = this.deps.repos.phoneNumbers.update(scope(p), id, changes)
    if (!row) throw new ApiError('not_found')
    return this.response(p, row)
  }

  remove(p: Principal, id: string): void {
    if (!this.deps.repos.phoneNumbers.delete(scope(p), id)) throw new ApiError('not_found')
  }

  private row(p: Principal, id: string): PhoneNumberRow {
    const row = this.deps.repos.phoneNumbers.get(scope(p), id)
    if (!row) throw new ApiError('not_found')
    return row
  }

  private checkReferences(p: Principal, trunkId: string | undefined, workflowId: string | null | undefined): void {
    const detail = []
    if (trunkId !== undefined && !this.deps.repos.sipTrunks.get(scope(p), trunkId))
      detail.push({ type: 'not_found', loc: ['body', 'trunk_id'], msg: 'No SIP trunk with this id in this environment', input: trunkId })
    if (typeof workflowId === 'string' && !this.deps.repos.workflows.get(scope(p), workflowId))
      detail.push({ type: 'not_found', loc: ['body', 'workflow_uuid'], msg: 'No agent with this id in this environment', input: workflowId })
    if (detail.length) throw new ValidationError(detail)
  }

  private response(p: Principal, row: PhoneNumberRow): PhoneNumberResponseT {
    // A deleted agent leaves the number unanswered (its id stays until changed); so does an unpublished one.
    const wf = row.workflow_id === null ? undefined : this.deps.repos.workflows.get(scope(p), row.workflow_id)
    return {
      id: row.id,
      number: row.number,
      label: row.label,
      trunk_id: row.trunk_id,
      workflow_uuid: row.workflow_id,
      answering_version: wf?.latest_version ?? null,
      created_at: iso(row.created_at),
      updated_at: iso(row.updated_at),
    }
  }
}
