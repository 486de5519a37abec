import { z } from 'zod'
import { defineRoute } from '../http/route.js'
import {
  TOOL_LIMITS,
  ToolCreate,
  ToolGetQuery,
  ToolPath,
  ToolResponse,
  ToolTestRequest,
  ToolTestResponse,
  ToolUpdate,
  ToolVersionResponse,
  ToolVersionsQuery,
} from './schema.js'
import type { ToolService } from './service.js'

const tag = 'Tools'
const BASE = '/api/v1/tools'
const resource = 'tool'

/**
 * The organization's tool library (docs/tools.md). Tools belong to the organization, not to an
 * environment: every environment's agents reference the same tools. `tools:read` is in the
 * org:read scope, `tools:write` in org:manage (the spec's scope table names tools under both).
 */
export function toolRoutes(tools: ToolService) {
  return [
    defineRoute({
      operationId: 'tools_list',
      method: 'get',
      path: BASE,
      auth: 'A',
      permission: 'tools:read',
      tag,
      summary: 'The organization’s tools, each at its newest version, by name',
      status: 200,
      response: z.array(ToolResponse),
      handler: ({ auth }) => tools.list(auth),
    }),
    defineRoute({
      operationId: 'tools_create',
      method: 'post',
      path: BASE,
      auth: 'A',
      permission: 'tools:write',
      tag,
      summary: 'Add a tool to the library (its version 1)',
      description:
        'The parameters schema is checked (bounded subset of JSON Schema, root an object); every {{placeholder}} must name one of its properties; an HTTP tool’s host is checked against the outbound guard. ' +
        `Names are unique in the organization (409 tool_name_taken); at most ${TOOL_LIMITS.perOrganization} tools (409 tool_limit).`,
      audit: { action: 'tool.created', resource },
      body: ToolCreate,
      status: 201,
      response: ToolResponse,
      errors: ['tool_name_taken', 'tool_limit'],
      handler: ({ auth, body }) => tools.create(auth, body),
    }),
    defineRoute({
      operationId: 'tools_get',
      method: 'get',
      path: `${BASE}/{tool_id}`,
      auth: 'A',
      permission: 'tools:read',
      tag,
      summary: 'One tool, at its newest version or the one asked for',
      params: ToolPath,
      query: ToolGetQuery,
      status: 200,
      response: ToolResponse,
      errors: ['not_found'],
      handler: ({ auth, params, query }) => tools.get(auth, params.tool_id, query.version),
    }),
    defineRoute({
      operationId: 'tools_update',
      method: 'patch',
      path: `${BASE}/{tool_id}`,
      auth: 'A',
      permission: 'tools:write',
      tag,
      summary: 'Change a tool: writes its next version (fields left out stay as they are)',
      description:
        'Agent drafts use the newest version at once; published agent versions keep the version they were published with. Secret headers left out are kept.',
      audit: { action: 'tool.updated', resource },
      params: ToolPath,
      body: ToolUpdate,
      status: 200,
      response: ToolResponse,
      errors: ['not_found', 'tool_name_taken', 'tool_secrets_unreadable'],
      handler: ({ auth, params, body }) => tools.update(auth, params.tool_id, body),
    }),
    defineRoute({
      operationId: 'tools_delete',
      method: 'delete',
      path: `${BASE}/{tool_id}`,
      auth: 'A',
      permission: 'tools:write',
      tag,
      summary: 'Delete a tool: drafts can no longer use it; published agents pinned to it keep running it',
      audit: { action: 'tool.deleted', resource },
      params: ToolPath,
      status: 204,
      errors: ['not_found'],
      handler: ({ auth, params }) => tools.remove(auth, params.tool_id),
    }),
    defineRoute({
      operationId: 'tools_list_versions',
      method: 'get',
      path: `${BASE}/{tool_id}/versions`,
      auth: 'A',
      permission: 'tools:read',
      tag,
      summary: 'A tool’s versions, newest first (page on with before=<last version shown>)',
      params: ToolPath,
      query: ToolVersionsQuery,
      status: 200,
      response: z.array(ToolVersionResponse),
      errors: ['not_found'],
      handler: ({ auth, params, query }) => tools.versions(auth, params.tool_id, query.limit, query.before),
    }),
    defineRoute({
      operationId: 'tools_test',
      method: 'post',
      path: `${BASE}/{tool_id}/test`,
      auth: 'A',
      permission: 'tools:write',
      tag,
      summary: 'Run the tool once with the given arguments, as an agent would, and return its result',
      description:
        'It really runs: an HTTP tool sends its request (through the outbound guard), an integration action acts. A failed run (arguments that do not fit parameters, a refused destination, a timeout, a non-2xx answer) is ok false with error, still HTTP 200.',
      audit: 'service',
      params: ToolPath,
      body: ToolTestRequest,
      bodyOptional: true,
      status: 200,
      response: ToolTestResponse,
      errors: ['not_found', 'tool_secrets_unreadable'],
      handler: ({ auth, params, body, req }) => tools.test(auth, params.tool_id, body ?? { arguments: {} }, req),
    }),
  ]
}
