import { z } from 'zod'
import { defineRoute } from '../http/route.js'
import {
  AutomationCreate,
  AutomationPath,
  AutomationResponse,
  AutomationRunDetail,
  AutomationRunPage,
  AutomationRunResponse,
  AutomationTestRequest,
  AutomationTestResponse,
  AutomationUpdate,
  RunPath,
  RunQuery,
} from './schema.js'
import type { AutomationService } from './service.js'

const tag = 'Automations'
const BASE = '/api/v1/automations'
const resource = 'automation'

/**
 * Automations belong to the request's environment (X-Environment-Id), as webhook endpoints do.
 * Reading them and their runs is `automations:read` (org:read); changing them and retrying a run
 * (which acts on the outside world with the organization's credentials) is `automations:write`
 * (org:manage).
 */
export function automationRoutes(automations: AutomationService) {
  return [
    defineRoute({
      operationId: 'automations_list',
      method: 'get',
      path: BASE,
      auth: 'A',
      permission: 'automations:read',
      tag,
      summary: 'Automations of the request’s environment, each with its newest run',
      status: 200,
      response: z.array(AutomationResponse),
      handler: ({ auth }) => automations.list(auth),
    }),
    defineRoute({
      operationId: 'automations_create',
      method: 'post',
      path: BASE,
      auth: 'A',
      permission: 'automations:write',
      tag,
      summary: 'Create an automation: when an event happens (and passes the filter), run an integration action with fields mapped from it',
      description:
        'An unknown event type, integration or action, an action field that does not exist or a required one left out, a template that does not parse, ' +
        'or a filter with a forbidden operator is refused with 422 at the offending field. At most 50 per environment (409 automation_limit).',
      audit: { action: 'automation.created', resource },
      body: AutomationCreate,
      status: 201,
      response: AutomationResponse,
      errors: ['automation_limit'],
      handler: ({ auth, body }) => automations.create(auth, body),
    }),
    defineRoute({
      operationId: 'automations_get',
      method: 'get',
      path: `${BASE}/{automation_id}`,
      auth: 'A',
      permission: 'automations:read',
      tag,
      summary: 'One automation',
      params: AutomationPath,
      status: 200,
      response: AutomationResponse,
      errors: ['not_found'],
      handler: ({ auth, params }) => automations.get(auth, params.automation_id),
    }),
    defineRoute({
      operationId: 'automations_update',
      method: 'patch',
      path: `${BASE}/{automation_id}`,
      auth: 'A',
      permission: 'automations:write',
      tag,
      summary: 'Change an automation; fields left out stay as they are (enabled: false pauses it)',
      audit: { action: 'automation.updated', resource },
      params: AutomationPath,
      body: AutomationUpdate,
      status: 200,
      response: AutomationResponse,
      errors: ['not_found'],
      handler: ({ auth, params, body }) => automations.update(auth, params.automation_id, body),
    }),
    defineRoute({
      operationId: 'automations_delete',
      method: 'delete',
      path: `${BASE}/{automation_id}`,
      auth: 'A',
      permission: 'automations:write',
      tag,
      summary: 'Delete an automation with its runs (pending ones never run)',
      audit: { action: 'automation.deleted', resource },
      params: AutomationPath,
      status: 204,
      errors: ['not_found'],
      handler: ({ auth, params }) => automations.remove(auth, params.automation_id),
    }),
    defineRoute({
      operationId: 'automations_test',
      method: 'post',
      path: `${BASE}/{automation_id}/test`,
      auth: 'A',
      permission: 'automations:read',
      tag,
      summary: 'Dry run against a sample event: whether the filter passes and the input the action would get; nothing is sent',
      // Reads the automation and renders it; it changes nothing and sends nothing.
      audit: 'none',
      params: AutomationPath,
      body: AutomationTestRequest,
      bodyOptional: true,
      status: 200,
      response: AutomationTestResponse,
      errors: ['not_found'],
      handler: ({ auth, params, body }) => automations.test(auth, params.automation_id, body?.data),
    }),
    defineRoute({
      operationId: 'automations_list_runs',
      method: 'get',
      path: `${BASE}/{automation_id}/runs`,
      auth: 'A',
      permission: 'automations:read',
      tag,
      summary: 'Runs of an automation, newest first, each with its latest attempt',
      params: AutomationPath,
      query: RunQuery,
      status: 200,
      response: AutomationRunPage,
      errors: ['not_found'],
      handler: ({ auth, params, query }) => automations.runs(auth, params.automation_id, query),
    }),
    defineRoute({
      operationId: 'automations_get_run',
      method: 'get',
      path: `${BASE}/{automation_id}/runs/{run_id}`,
      auth: 'A',
      permission: 'automations:read',
      tag,
      summary: 'A run with its event and every attempt (input sent, output or error, timing)',
      params: RunPath,
      status: 200,
      response: AutomationRunDetail,
      errors: ['not_found'],
      handler: ({ auth, params }) => automations.run(auth, params.automation_id, params.run_id),
    }),
    defineRoute({
      operationId: 'automations_retry_run',
      method: 'post',
      path: `${BASE}/{automation_id}/runs/{run_id}/retry`,
      auth: 'A',
      permission: 'automations:write',
      tag,
      summary: 'Run a finished run again: a new attempt with the automation as it is now and the same event',
      description:
        'Answers at once with the run back in pending; the attempt shows in its detail. 409 run_in_progress while it is pending or running, ' +
        '409 automation_disabled while the automation is disabled.',
      audit: { action: 'automation_run.retried', resource: 'automation_run' },
      params: RunPath,
      status: 200,
      response: AutomationRunResponse,
      errors: ['not_found', 'run_in_progress', 'automation_disabled'],
      handler: ({ auth, params }) => automations.retry(auth, params.automation_id, params.run_id),
    }),
  ]
}
