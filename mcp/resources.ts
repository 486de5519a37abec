import { ErrorCode, type ListResourcesResult, type ReadResourceResult, type ResourceTemplate } from '@modelcontextprotocol/sdk/types.js'
import type { AnyRoute } from '../api/index.js'
import type { OperationAnswer, RunOperation } from './host.js'

/** MCP's code for a resource that does not exist (spec: server/resources, "Error Handling"). */
const RESOURCE_NOT_FOUND = -32002
const WORKFLOW_URI = /^ozan:\/\/workflows\/([^/?#]+)$/
const CURSOR = /^\d{1,7}$/
const MIME = 'application/json'

export const WORKFLOW_TEMPLATE: ResourceTemplate = {
  uriTemplate: 'ozan://workflows/{workflow_uuid}',
  name: 'agent',
  title: 'Agent definition',
  description: 'An agent of the key’s environment as JSON: its draft graph (definition) and config, and its published versions.',
  mimeType: MIME,
}

/**
 * A JSON-RPC error for the SDK to send as it is. (The SDK's McpError puts "MCP error <code>: " in
 * its message, which the client then prefixes again.)
 */
export class ProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message)
  }
}

/** A REST failure as the JSON-RPC error a resource request answers with; `data` holds the REST body. */
export function mcpErrorOf(answer: OperationAnswer): ProtocolError {
  const body = (answer.body ?? {}) as { error?: { code?: string; message?: string } }
  const data = { status: answer.status, ...(answer.body as object) }
  const message = body.error ? `${body.error.code}: ${body.error.message}` : 'The request is not valid.'
  if (answer.status === 404) return new ProtocolError(RESOURCE_NOT_FOUND, message, data)
  if (answer.status === 422) return new ProtocolError(ErrorCode.InvalidParams, message, data)
  if (answer.status >= 500) return new ProtocolError(ErrorCode.InternalError, message, data)
  return new ProtocolError(ErrorCode.InvalidRequest, message, data)
}

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment // not percent-encoding: the id's own check refuses it
  }
}

function routeOf(routes: readonly AnyRoute[], operationId: string): AnyRoute {
  const route = routes.find((r) => r.operationId === operationId)
  if (!route) throw new Error(`mcp: the agent resources need the operation ${operationId}, which no route has`)
  return route
}

/**
 * Agents as resources, `ozan://workflows/{uuid}`: listed from and read through the same
 * operations as list_agents and get_agent (workflows_list, workflows_get), so the key's
 * environment, its agents:read permission and tenancy (another organization's agent is
 * "not found", as an unknown one) hold exactly as over REST.
 */
export function agentResources(routes: readonly AnyRoute[]) {
  const list = routeOf(routes, 'workflows_list')
  const get = routeOf(routes, 'workflows_get')
  return {
    async list(run: RunOperation, cursor: string | undefined): Promise<ListResourcesResult> {
      if (cursor !== undefined && !CURSOR.test(cursor)) throw new ProtocolError(ErrorCode.InvalidParams, 'The cursor is not one this server gave.')
      const parts = { params: {}, query: cursor === undefined ? {} : { offset: cursor }, body: undefined }
      const answer = await run(list, parts, `${list.path}${cursor === undefined ? '' : `?offset=${cursor}`}`)
      if (answer.status >= 400) throw mcpErrorOf(answer)
      const agents = answer.body as { id: string; name: string; description: string }[]
      const total = Number(answer.headers['X-Total-Count'] ?? agents.length)
      const next = Number(cursor ?? 0) + agents.length
      return {
        resources: agents.map((a) => ({
          uri: `ozan://workflows/${a.id}`,
          name: a.name,
          ...(a.description ? { description: a.description } : {}),
          mimeType: MIME,
        })),
        ...(agents.length > 0 && next < total ? { nextCursor: String(next) } : {}),
      }
    },

    async read(run: RunOperation, uri: string): Promise<ReadResourceResult> {
      const id = WORKFLOW_URI.exec(uri)?.[1]
      if (id === undefined) throw new ProtocolError(RESOURCE_NOT_FOUND, `No resource has the URI ${uri.slice(0, 200)}.`, { uri: uri.slice(0, 200) })
      const parts = { params: { workflow_uuid: decoded(id) }, query: {}, body: undefined }
      const answer = await run(get, parts, get.path.replace('{workflow_uuid}', id))
      if (answer.status >= 400) throw mcpErrorOf(answer)
      return { contents: [{ uri, mimeType: MIME, text: JSON.stringify(answer.body, null, 2) }] }
    },
  }
}

export type AgentResources = ReturnType<typeof agentResources>
