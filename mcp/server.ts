import { createRequire } from 'node:module'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js'
import { operationUrl, partsOf, type Tool } from './catalog.js'
import type { RunOperation } from './host.js'
import { ProtocolError, WORKFLOW_TEMPLATE, type AgentResources } from './resources.js'
import { toolResult } from './results.js'

const { version } = createRequire(import.meta.url)('../package.json') as { version: string }

const INSTRUCTIONS = [
  'Ozan is a voice AI agent platform. Agents (also called workflows) are graphs of nodes; they run as text runs, text sessions, chat, web and phone calls.',
  'Every tool acts in the environment of the API key (dev, staging or prod; the X-Environment-Id header picks another) with the permissions the key has.',
  'A failed tool call returns isError with the API’s error: {status, error: {code, message, request_id}}, or {status: 422, detail: [...]} naming each argument that was refused.',
  'Agents are also resources: ozan://workflows/{workflow_uuid}.',
].join(' ')

/**
 * One MCP server for one request: the tools of the catalog and the agent resources, each run as
 * its REST operation for the request's caller (`run`). Built per request because the HTTP
 * endpoint is stateless (see http.ts); building it is a few closures over the prebuilt catalog.
 */
export function createMcpServer(tools: ReadonlyMap<string, Tool>, resources: AgentResources, run: RunOperation): Server {
  const server = new Server({ name: 'ozan', title: 'Ozan', version }, { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS })
  const definitions = [...tools.values()].map((t) => t.definition)

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: definitions }))

  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = tools.get(request.params.name)
    // The spec's answer to an unknown tool is a protocol error, not a tool result.
    if (!tool) throw new ProtocolError(ErrorCode.InvalidParams, `There is no tool named ${request.params.name.slice(0, 128)}.`)
    const parts = partsOf(tool, request.params.arguments ?? {})
    return toolResult(await run(tool.route, parts, operationUrl(tool.route, parts)))
  })

  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [WORKFLOW_TEMPLATE] }))
  server.setRequestHandler(ListResourcesRequestSchema, (request) => resources.list(run, request.params?.cursor))
  server.setRequestHandler(ReadResourceRequestSchema, (request) => resources.read(run, request.params.uri))
  return server
}
