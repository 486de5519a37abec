import { z } from 'zod'
import { defineRoute } from '../http/route.js'
import { IntegrationPath, IntegrationResponse, RunActionRequest, RunActionResponse } from './schema.js'
import type { IntegrationService } from './service.js'

const tag = 'Integrations'

/**
 * Listing is reading (`integrations:read`, in org:read). Running an action acts on the outside
 * world with the organization's stored credentials (posts messages, books meetings), so it needs
 * `integrations:write` (in org:manage). Agents run the same actions from graph tool nodes as part
 * of running the agent (`workflow:run`), with no API caller involved.
 */
export function integrationRoutes(integrations: IntegrationService) {
  return [
    defineRoute({
      operationId: 'integrations_list',
      method: 'get',
      path: '/api/v1/integrations',
      auth: 'A',
      permission: 'integrations:read',
      tag,
      summary: 'Integrations with their actions, input schemas and the credential each needs',
      status: 200,
      response: z.array(IntegrationResponse),
      handler: ({ auth }) => integrations.list(auth),
    }),
    defineRoute({
      operationId: 'integrations_run',
      method: 'post',
      path: '/api/v1/integrations/{key}/run',
      auth: 'A',
      permission: 'integrations:write',
      tag,
      summary: "Run one action of an integration with the organization's stored credential",
      description:
        'Unknown integration → 404; unknown action or invalid input → 422 pointing at body.action or body.input.<field>; ' +
        'missing credential → 400 credential_missing naming the provider. Otherwise 200: ok false with error when the provider refused, ' +
        'timed out, or the destination was refused by the SSRF guard (private, loopback, link-local and metadata addresses).',
      // The service records it, with the action name and its outcome.
      audit: 'service',
      params: IntegrationPath,
      body: RunActionRequest,
      status: 200,
      response: RunActionResponse,
      errors: ['not_found', 'credential_missing'],
      handler: ({ auth, params, body, req }) => integrations.run(auth, params.key, body, req),
    }),
  ]
}
