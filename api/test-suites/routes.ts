import { z } from 'zod'
import { arrayPage, pagingDescription } from '../http/paging.js'
import { defineRoute } from '../http/route.js'
import { TEST_SUITE_LIMITS, TestSuiteCreate, TestSuiteListQuery, TestSuitePath, TestSuiteResponse, TestSuiteUpdate } from './schema.js'
import { TestRunDetail, TestRunListQuery, TestRunPath, TestRunRequest, TestRunResponse } from './schema-runs.js'
import type { TestSuiteService } from './service.js'

const tag = 'Test suites'
const BASE = '/api/v1/test-suites'
const resource = 'test_suite'

/**
 * Suites belong to the request's environment. Viewing suites and runs is agents:read, changing
 * suites agents:write, starting a run agents:run (it runs the agent, as a text run does): the
 * spec's workflow:read, workflow:write and workflow:run scopes.
 */
export function testSuiteRoutes(suites: TestSuiteService) {
  return [
    defineRoute({
      operationId: 'test_suites_list',
      method: 'get',
      path: BASE,
      auth: 'A',
      permission: 'agents:read',
      tag,
      summary: 'Test suites of the request’s environment, oldest first',
      description: pagingDescription(),
      query: TestSuiteListQuery,
      status: 200,
      response: z.array(TestSuiteResponse),
      handler: ({ auth, query, req }) => arrayPage(req, suites.list(auth, query), query),
    }),
    defineRoute({
      operationId: 'test_suites_create',
      method: 'post',
      path: BASE,
      auth: 'A',
      permission: 'agents:write',
      tag,
      summary: 'Create a test suite: an agent and its cases (scripted or simulated callers, with assertions)',
      description:
        `At most ${TEST_SUITE_LIMITS.casesPerSuite} cases, ${TEST_SUITE_LIMITS.assertionsPerCase} assertions each; ` +
        `at most ${TEST_SUITE_LIMITS.suitesPerEnvironment} suites per environment (409 test_suite_limit). docs/test-suites.md says what each assertion checks.`,
      audit: { action: 'test_suite.created', resource },
      body: TestSuiteCreate,
      status: 201,
      response: TestSuiteResponse,
      errors: ['test_suite_limit'],
      handler: ({ auth, body }) => suites.create(auth, body),
    }),
    defineRoute({
      operationId: 'test_suites_get',
      method: 'get',
      path: `${BASE}/{suite_id}`,
      auth: 'A',
      permission: 'agents:read',
      tag,
      summary: 'A test suite',
      params: TestSuitePath,
      status: 200,
      response: TestSuiteResponse,
      errors: ['not_found'],
      handler: ({ auth, params }) => suites.get(auth, params.suite_id),
    }),
    defineRoute({
      operationId: 'test_suites_update',
      method: 'patch',
      path: `${BASE}/{suite_id}`,
      auth: 'A',
      permission: 'agents:write',
      tag,
      summary: 'Change a suite; runs already started keep the cases and agent they started with',
      audit: { action: 'test_suite.updated', resource },
      params: TestSuitePath,
      body: TestSuiteUpdate,
      status: 200,
      response: TestSuiteResponse,
      errors: ['not_found'],
      handler: ({ auth, params, body }) => suites.update(auth, params.suite_id, body),
    }),
    defineRoute({
      operationId: 'test_suites_delete',
      method: 'delete',
      path: `${BASE}/{suite_id}`,
      auth: 'A',
      permission: 'agents:write',
      tag,
      summary: 'Delete a suite and its runs (a case in flight finishes unrecorded)',
      audit: { action: 'test_suite.deleted', resource },
      params: TestSuitePath,
      status: 204,
      errors: ['not_found'],
      handler: ({ auth, params }) => suites.remove(auth, params.suite_id),
    }),
    defineRoute({
      operationId: 'test_suites_start_run',
      method: 'post',
      path: `${BASE}/{suite_id}/runs`,
      auth: 'A',
      permission: 'agents:run',
      tag,
      summary: 'Start a run of the suite (every case, or those named); it is queued and runs in the background',
      description:
        'The agent’s version is resolved now (the draft, the suite’s version, or the newest published one) and copied into the run with the cases. ' +
        `At most ${TEST_SUITE_LIMITS.activeRunsPerEnvironment} runs queued or running per environment (409 test_run_limit). ` +
        'Poll GET …/runs/{test_run_id} for its cases’ results. The body may be absent (a text run of every case).',
      audit: { action: 'test_run.started', resource: 'test_suite' },
      params: TestSuitePath,
      body: TestRunRequest,
      bodyOptional: true,
      status: 202,
      response: TestRunDetail,
      errors: ['not_found', 'no_published_version', 'unknown_version', 'suite_agent_missing', 'test_run_limit', 'voice_unavailable', 'insufficient_credit'],
      handler: ({ auth, params, body }) => suites.startRun(auth, params.suite_id, body ?? TestRunRequest.parse({})),
    }),
    defineRoute({
      operationId: 'test_suites_list_runs',
      method: 'get',
      path: `${BASE}/{suite_id}/runs`,
      auth: 'A',
      permission: 'agents:read',
      tag,
      summary: 'Runs of a suite, newest first',
      description: pagingDescription(),
      params: TestSuitePath,
      query: TestRunListQuery,
      status: 200,
      response: z.array(TestRunResponse),
      errors: ['not_found'],
      handler: ({ auth, params, query, req }) => arrayPage(req, suites.runs(auth, params.suite_id, query), query),
    }),
    defineRoute({
      operationId: 'test_suites_get_run',
      method: 'get',
      path: `${BASE}/{suite_id}/runs/{test_run_id}`,
      auth: 'A',
      permission: 'agents:read',
      tag,
      summary: 'A run and each case’s result: pass or fail with the reason, the transcript, the assertions',
      params: TestRunPath,
      status: 200,
      response: TestRunDetail,
      errors: ['not_found'],
      handler: ({ auth, params }) => suites.runDetail(auth, params.suite_id, params.test_run_id),
    }),
  ]
}
