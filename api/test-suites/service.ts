import { randomUUID } from 'node:crypto'
import type { Clock } from '../../core/index.js'
import type { Repos, TestSuiteChanges, TestSuiteRow, WorkflowRow } from '../../db/index.js'
import { ApiError } from '../http/errors.js'
import type { PageRequest } from '../http/paging.js'
import { ValidationError } from '../http/validation.js'
import type { Principal } from '../security/principal.js'
import { type SuiteSettings, TEST_SUITE_LIMITS, type TestSuiteCreateT, type TestSuiteResponseT, type TestSuiteUpdateT } from './schema.js'
import type { TestRunRequestT } from './schema-runs.js'
import { caseView, runView, suiteView } from './views.js'

const scope = (p: Principal) => ({ organizationId: p.organizationId, environmentId: p.environmentId })

export interface TestSuiteDeps {
  repos: Repos
  clock: Clock
  /** Told when a run is queued, so its cases start at once rather than at the next poll. */
  wake: () => void
  /** Whether this process can run voice cases (a call engine is attached). */
  voiceAvailable: () => boolean
  /** 402 insufficient_credit when billing is on and the organization has no credit left (a run spends LLM tokens). */
  credit?: { assertCredit(organizationId: string): void }
}

/**
 * Test suites of the request's environment and their runs. A suite's agent must be of the same
 * environment; one of another organization is refused exactly like one that does not exist (422
 * at the field, the same words). Starting a run resolves the agent's version and copies it and
 * the cases into the run, then queues the cases for the worker (worker.ts).
 */
export class TestSuiteService {
  constructor(private readonly deps: TestSuiteDeps) {}

  list(p: Principal, at: PageRequest) {
    const page = this.deps.repos.testSuites.page(scope(p), at)
    return { items: page.items.map((r) => this.view(r)), total: page.total }
  }

  get(p: Principal, id: string): TestSuiteResponseT {
    return this.view(this.suite(p, id))
  }

  create(p: Principal, body: TestSuiteCreateT): TestSuiteResponseT {
    const { repos, clock } = this.deps
    this.checkAgent(p, body.workflow_uuid)
    const now = clock.now()
    const row = repos.transaction(() => {
      if (repos.testSuites.count(scope(p)) >= TEST_SUITE_LIMITS.suitesPerEnvironment) throw new ApiError('test_suite_limit')
      return repos.testSuites.insert({
        id: randomUUID(),
        organization_id: p.organizationId,
        environment_id: p.environmentId,
        name: body.name,
        description: body.description,
        workflow_id: body.workflow_uuid,
        use_draft: body.use_draft ? 1 : 0,
        version: body.version,
        settings: JSON.stringify({ live_tools: body.live_tools, judge_model: body.judge_model } satisfies SuiteSettings),
        cases: JSON.stringify(body.cases),
        created_by: p.userId,
        created_at: now,
        updated_at: now,
      })
    })
    return this.view(row)
  }

  update(p: Principal, id: string, body: TestSuiteUpdateT): TestSuiteResponseT {
    const current = this.suite(p, id)
    if (body.workflow_uuid !== undefined) this.checkAgent(p, body.workflow_uuid)
    const settings = JSON.parse(current.settings) as SuiteSettings
    const changes: TestSuiteChanges = { updated_at: this.deps.clock.now() }
    if (body.name !== undefined) changes.name = body.name
    if (body.description !== undefined) changes.description = body.description
    if (body.workflow_uuid !== undefined) changes.workflow_id = body.workflow_uuid
    if (body.cases !== undefined) changes.cases = JSON.stringify(body.cases)
    // Choosing the draft clears a version and the other way round, so the two never both hold.
    if (body.use_draft !== undefined) changes.use_draft = body.use_draft ? 1 : 0
    if (body.version !== undefined) changes.version = body.version
    if (body.use_draft === true && body.version === undefined) changes.version = null
    if (body.version != null && body.use_draft === undefined) changes.use_draft = 0
    if (body.live_tools !== undefined || body.judge_model !== undefined)
      changes.settings = JSON.stringify({
        live_tools: body.live_tools ?? settings.live_tools,
        judge_model: body.judge_model === undefined ? settings.judge_model : body.judge_model,
      } satisfies SuiteSettings)
    const row = this.deps.repos.testSuites.update(scope(p), id, changes)
    if (!row) throw new ApiError('not_found')
    return this.view(row)
  }

  remove(p: Principal, id: string): void {
    if (!this.deps.repos.testSuites.delete(scope(p), id)) throw new ApiError('not_found')
  }

  startRun(p: Principal, suiteId: string, body: TestRunRequestT) {
    const { repos, clock } = this.deps
    const suite = this.suite(p, suiteId)
    this.deps.credit?.assertCredit(p.organizationId)
    if (body.mode === 'voice' && !this.deps.voiceAvailable()) throw new ApiError('voice_unavailable')
    const wf = repos.workflows.get(scope(p), suite.workflow_id)
    if (!wf) throw new ApiError('suite_agent_missing')
    const target = this.target(wf, suite)
    const all = JSON.parse(suite.cases) as { name: string }[]
    const wanted = body.cases ? new Set(body.cases) : null
    if (body.cases) {
      const known = new Set(all.map((c) => c.name))
      const detail = body.cases.flatMap((name, i) =>
        known.has(name) ? [] : [{ type: 'not_found', loc: ['body', 'cases', i], msg: 'No case of this suite has this name', input: name }],
      )
      if (detail.length) throw new ValidationError(detail)
    }
    const cases = all.filter((c) => !wanted || wanted.has(c.name)).map((c) => ({ name: c.name, spec: JSON.stringify(c) }))
    const now = clock.now()
    const id = randomUUID()
    repos.transaction(() => {
      if (repos.testRuns.activeCount(scope(p)) >= TEST_SUITE_LIMITS.activeRunsPerEnvironment) throw new ApiError('test_run_limit')
      repos.testRuns.insert(
        {
          id,
          suite_id: suite.id,
          organization_id: p.organizationId,
          environment_id: p.environmentId,
          mode: body.mode,
          workflow_id: wf.id,
          workflow_version: target.version,
          definition: target.definition,
          config: target.config,
          settings: suite.settings,
          started_by_user: p.userId,
          started_by_key: p.apiKeyId,
          created_at: now,
        },
        cases,
      )
    })
    this.deps.wake()
    return this.runDetail(p, suite.id, id)
  }

  runs(p: Principal, suiteId: string, at: PageRequest) {
    const suite = this.suite(p, suiteId)
    const page = this.deps.repos.testRuns.page(scope(p), suite.id, at)
    return { items: page.items.map((r) => runView(r, this.deps.repos.testRuns.cases(r.id))), total: page.total }
  }

  runDetail(p: Principal, suiteId: string, runId: string) {
    const run = this.deps.repos.testRuns.get(scope(p), suiteId, runId)
    if (!run) throw new ApiError('not_found')
    const cases = this.deps.repos.testRuns.cases(run.id)
    return { ...runView(run, cases), cases: cases.map(caseView) }
  }

  private target(wf: WorkflowRow, suite: TestSuiteRow): { definition: string; config: string; version: number | null } {
    if (suite.use_draft === 1) return { definition: wf.draft_definition, config: wf.draft_config, version: null }
    const number = suite.version ?? wf.latest_version
    if (number === null) throw new ApiError('no_published_version')
    const v = this.deps.repos.workflows.version(wf.id, number)
    if (!v) throw new ApiError('unknown_version')
    return { definition: v.definition, config: v.config, version: number }
  }

  private view(row: TestSuiteRow): TestSuiteResponseT {
    return suiteView(row, this.deps.repos.testRuns.latest(row.id))
  }

  private suite(p: Principal, id: string): TestSuiteRow {
    const row = this.deps.repos.testSuites.get(scope(p), id)
    if (!row) throw new ApiError('not_found')
    return row
  }

  private checkAgent(p: Principal, workflowId: string): void {
    if (!this.deps.repos.workflows.get(scope(p), workflowId))
      throw new ValidationError([{ type: 'not_found', loc: ['body', 'workflow_uuid'], msg: 'No agent with this id in this environment', input: workflowId }])
  }
}
