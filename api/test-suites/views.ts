import type { TestRunCaseRow, TestRunRow, TestSuiteRow } from '../../db/index.js'
import type { SuiteSettings, TestCaseT, TestSuiteResponseT } from './schema.js'
import type { CaseOutcome, TestCaseResultT, TestRunResponseT } from './schema-runs.js'

const iso = (ms: number) => new Date(ms).toISOString()
const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms))

export function suiteView(row: TestSuiteRow, lastRun: TestRunRow | undefined): TestSuiteResponseT {
  const settings = JSON.parse(row.settings) as SuiteSettings
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    workflow_uuid: row.workflow_id,
    use_draft: row.use_draft === 1,
    version: row.version,
    live_tools: settings.live_tools,
    judge_model: settings.judge_model,
    cases: JSON.parse(row.cases) as TestCaseT[],
    last_run: lastRun ? { id: lastRun.id, status: lastRun.status, mode: lastRun.mode, created_at: iso(lastRun.created_at) } : null,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  }
}

export function runView(run: TestRunRow, cases: TestRunCaseRow[]): TestRunResponseT {
  const count = (s: TestRunCaseRow['status']) => cases.filter((c) => c.status === s).length
  return {
    id: run.id,
    suite_id: run.suite_id,
    mode: run.mode,
    status: run.status,
    workflow_uuid: run.workflow_id,
    version: run.workflow_version,
    counts: {
      total: cases.length,
      pending: count('pending'),
      running: count('running'),
      passed: count('passed'),
      failed: count('failed'),
      error: count('error'),
    },
    created_at: iso(run.created_at),
    started_at: isoOrNull(run.started_at),
    finished_at: isoOrNull(run.finished_at),
  }
}

const EMPTY: CaseOutcome = {
  transcript: [],
  assertions: [],
  path: [],
  variables: {},
  tool_calls: [],
  ended: { ended: false, disposition: null, by: null },
  usage: { prompt_tokens: 0, completion_tokens: 0 },
  voice: null,
}

export function caseView(row: TestRunCaseRow): TestCaseResultT {
  const outcome = row.result ? (JSON.parse(row.result) as CaseOutcome) : EMPTY
  return {
    position: row.position,
    name: row.name,
    status: row.status,
    reason: row.reason,
    error_code: row.error_code,
    attempts: row.attempts,
    started_at: isoOrNull(row.started_at),
    finished_at: isoOrNull(row.finished_at),
    ...outcome,
  }
}
