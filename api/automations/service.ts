import { randomUUID } from 'node:crypto'
import type { Clock } from '../../core/index.js'
import type { AutomationAttemptRow, AutomationRow, AutomationRunRow, Repos } from '../../db/index.js'
import { ApiError } from '../http/errors.js'
import { findIntegration } from '../integrations/catalog.js'
import type { Principal } from '../security/principal.js'
import { EVENT_TYPES } from '../webhooks/catalog.js'
import { passes } from './filter.js'
import { renderMapping } from './mapping.js'
import {
  MAX_AUTOMATIONS,
  type AutomationAttemptResponseT,
  type AutomationCreateT,
  type AutomationResponseT,
  type AutomationRunDetailT,
  type AutomationRunResponseT,
  type AutomationTestResponseT,
  type AutomationUpdateT,
  type RunQueryT,
} from './schema.js'
import type { AutomationWorker } from './worker.js'

const iso = (ms: number) => new Date(ms).toISOString()
const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms))
const scope = (p: Principal) => ({ organizationId: p.organizationId, environmentId: p.environmentId })

export interface AutomationServiceDeps {
  repos: Repos
  clock: Clock
  worker: Pick<AutomationWorker, 'wake'>
}

/** Automations of the request's environment, their runs, retries and dry runs. */
export class AutomationService {
  constructor(private readonly deps: AutomationServiceDeps) {}

  list(p: Principal): AutomationResponseT[] {
    return this.deps.repos.automations.list(scope(p)).map((row) => this.view(row))
  }

  get(p: Principal, id: string): AutomationResponseT {
    return this.view(this.row(p, id))
  }

  create(p: Principal, body: AutomationCreateT): AutomationResponseT {
    const { repos, clock } = this.deps
    const now = clock.now()
    const row = repos.transaction(() => {
      if (repos.automations.count(scope(p)) >= MAX_AUTOMATIONS) throw new ApiError('automation_limit')
      return repos.automations.insert({
        id: randomUUID(),
        organization_id: p.organizationId,
        environment_id: p.environmentId,
        name: body.name,
        description: body.description ?? null,
        event_type: body.trigger.event,
        filter: body.trigger.filter === null ? null : JSON.stringify(body.trigger.filter),
        integration: body.action.integration,
        action: body.action.action,
        input: JSON.stringify(body.action.input),
        enabled: body.enabled ? 1 : 0,
        created_by: p.userId,
        created_at: now,
        updated_at: now,
      })
    })
    return this.view(row)
  }

  update(p: Principal, id: string, body: AutomationUpdateT): AutomationResponseT {
    this.row(p, id)
    const updated = this.deps.repos.automations.update(scope(p), id, {
      name: body.name,
      description: body.description,
      ...(body.trigger && { event_type: body.trigger.event, filter: body.trigger.filter === null ? null : JSON.stringify(body.trigger.filter) }),
      ...(body.action && { integration: body.action.integration, action: body.action.action, input: JSON.stringify(body.action.input) }),
      enabled: body.enabled === undefined ? undefined : body.enabled ? 1 : 0,
      updated_at: this.deps.clock.now(),
    })
    if (!updated) throw new ApiError('not_found')
    // Runs that waited while it was disabled go now.
    if (updated.enabled) this.deps.worker.wake()
    return this.view(updated)
  }

  /** Deletes the automation with its runs; a run in flight finishes, its result is not kept. */
  remove(p: Principal, id: string): void {
    if (!this.deps.repos.automations.remove(scope(p), id)) throw new ApiError('not_found')
  }

  runs(p: Principal, id: string, q: RunQueryT) {
    this.row(p, id)
    const { rows, total } = this.deps.repos.automationRuns.page({ automationId: id, status: q.status, limit: q.limit, offset: q.offset })
    return { items: rows.map((r) => this.runView(r)), total, limit: q.limit, offset: q.offset }
  }

  run(p: Principal, id: string, runId: string): AutomationRunDetailT {
    const run = this.runRow(p, id, runId)
    const attempts = this.deps.repos.automationRuns.attempts(run.id)
    return {
      ...runView(run, attempts.at(-1) ?? null),
      payload: JSON.parse(run.payload) as AutomationRunDetailT['payload'],
      attempts: attempts.map(attemptView),
    }
  }

  /**
   * Runs a finished run again: a new attempt with the automation as it is now (so a fixed channel
   * or credential takes effect) and the event as it was. Answers at once with the run pending.
   */
  retry(p: Principal, id: string, runId: string): AutomationRunResponseT {
    const automation = this.row(p, id)
    const run = this.runRow(p, id, runId)
    if (!automation.enabled) throw new ApiError('automation_disabled')
    if (!this.deps.repos.automationRuns.retry(run.id, this.deps.clock.now())) throw new ApiError('run_in_progress')
    this.deps.worker.wake()
    return this.runView(this.deps.repos.automationRuns.byId(run.id)!)
  }

  /** A dry run: whether an event passes the filter and the input the action would get. Nothing is sent. */
  test(p: Principal, id: string, data: Record<string, unknown> | undefined): AutomationTestResponseT {
    const row = this.row(p, id)
    const sample = data ?? EVENT_TYPES.find((e) => e.type === row.event_type)?.example ?? {}
    const view = { event: row.event_type, data: sample }
    const matched = passes(row.filter === null ? null : JSON.parse(row.filter), view)
    const rendered = renderMapping(JSON.parse(row.input) as Record<string, unknown>, view)
    if (!rendered.ok) return { matched, input: null, problems: [{ loc: ['input'], msg: rendered.message }] }
    const action = findIntegration(row.integration)?.actions.find((a) => a.name === row.action)
    const parsed = action?.input.safeParse(rendered.input)
    const problems =
      parsed && !parsed.success
        ? parsed.error.issues.map((i) => ({ loc: ['input', ...i.path.map((k) => (typeof k === 'number' ? k : String(k)))], msg: i.message }))
        : []
    return { matched, input: rendered.input, problems }
  }

  private view(row: AutomationRow): AutomationResponseT {
    const last = this.deps.repos.automationRuns.page({ automationId: row.id, limit: 1, offset: 0 }).rows[0]
    return {
      id: row.id,
      name: row.name,
      description: row.description,
      enabled: row.enabled === 1,
      trigger: { event: row.event_type, filter: row.filter === null ? null : JSON.parse(row.filter) },
      action: { integration: row.integration, action: row.action, input: JSON.parse(row.input) as Record<string, unknown> },
      last_run: last ? { id: last.id, status: last.status, created_at: iso(last.created_at) } : null,
      created_at: iso(row.created_at),
      updated_at: iso(row.updated_at),
    }
  }

  private runView(run: AutomationRunRow): AutomationRunResponseT {
    return runView(run, this.deps.repos.automationRuns.lastAttempt(run.id) ?? null)
  }

  private row(p: Principal, id: string): AutomationRow {
    const row = this.deps.repos.automations.get(scope(p), id)
    if (!row) throw new ApiError('not_found')
    return row
  }

  private runRow(p: Principal, id: string, runId: string): AutomationRunRow {
    this.row(p, id)
    const run = this.deps.repos.automationRuns.get(id, runId)
    if (!run) throw new ApiError('not_found')
    return run
  }
}

function runView(run: AutomationRunRow, last: AutomationAttemptRow | null): AutomationRunResponseT {
  return {
    id: run.id,
    automation_id: run.automation_id,
    event_type: run.event_type,
    status: run.status,
    attempt_count: run.attempts,
    created_at: iso(run.created_at),
    updated_at: iso(run.updated_at),
    finished_at: isoOrNull(run.finished_at),
    last_attempt: last && attemptView(last),
  }
}

function attemptView(a: AutomationAttemptRow): AutomationAttemptResponseT {
  return {
    number: a.number,
    trigger: a.trigger,
    started_at: iso(a.started_at),
    finished_at: isoOrNull(a.finished_at),
    outcome: a.outcome,
    input: a.input === null ? null : (JSON.parse(a.input) as Record<string, unknown>),
    output: a.output === null ? null : JSON.parse(a.output),
    error: a.error_code === null ? null : { code: a.error_code, message: a.error_message ?? '' },
    duration_ms: a.duration_ms,
  }
}
