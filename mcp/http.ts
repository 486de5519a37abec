import type Router from '@koa/router'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import type { Context } from 'koa'
import getRawBody from 'raw-body'
import { buildCatalog } from './catalog.js'
import type { McpHost } from './host.js'
import { agentResources } from './resources.js'
import { createMcpServer } from './server.js'
import { TOOLS } from './tools.js'

export const MCP_PATH = '/mcp'

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i
const UTF8 = new TextDecoder('utf-8', { fatal: true })
/** The headers the transport reads; the rest of the request stays with Koa. */
const TRANSPORT_HEADERS = ['accept', 'content-type', 'mcp-protocol-version', 'mcp-session-id']

/** A transport-level failure, answered as JSON-RPC answers one (no id: the message was not read). */
function refuse(ctx: Context, status: number, code: number, message: string): void {
  ctx.status = status
  ctx.body = { jsonrpc: '2.0', error: { code, message }, id: null }
}

/** The message, bounded in bytes and checked as UTF-8 JSON; undefined once a refusal is answered. */
async function readMessage(ctx: Context, limit: number): Promise<unknown> {
  if (!JSON_TYPE.test(ctx.get('content-type'))) {
    ctx.req.resume()
    refuse(ctx, 415, -32000, 'Unsupported Media Type: Content-Type must be application/json')
    return undefined
  }
  let bytes: Buffer
  try {
    bytes = await getRawBody(ctx.req, { limit })
  } catch (err) {
    // As the REST parser does: read off the rest so a kept-alive connection does not hang.
    ctx.req.resume()
    if ((err as { type?: string }).type === 'entity.too.large') refuse(ctx, 413, -32000, `The request body is larger than ${limit} bytes.`)
    else refuse(ctx, 400, -32000, 'The request body could not be read.')
    return undefined
  }
  let message: unknown
  try {
    message = JSON.parse(UTF8.decode(bytes))
  } catch {
    refuse(ctx, 400, -32700, 'Parse error: the body is not UTF-8 JSON')
    return undefined
  }
  // One message per request, as in protocol 2025-06-18 (batches were dropped): one request then
  // costs one token from each rate-limit bucket, as one REST request does.
  if (Array.isArray(message)) {
    refuse(ctx, 400, -32600, 'Invalid Request: send one JSON-RPC message per request (batches are not accepted)')
    return undefined
  }
  return message
}

function webRequest(ctx: Context): Request {
  const headers = new Headers()
  for (const name of TRANSPORT_HEADERS) {
    const value = ctx.get(name)
    if (value) headers.set(name, value)
  }
  return new Request(new URL(ctx.originalUrl, 'http://ozan.invalid'), { method: 'POST', headers })
}

/**
 * POST /mcp: the Streamable HTTP transport of MCP, on the shell's own Koa app. Each request is
 * admitted as a REST request is (X-API-Key and X-Environment-Id; address, organization and key
 * rate limits; 401/429 with the API's error body before any MCP is spoken), its body bounded by
 * OZAN_BODY_LIMIT_BYTES, then answered by a fresh server and transport (stateless mode, JSON
 * responses). Stateless because nothing needs a session: every request carries its key, tools
 * answer within the request and the server never pushes (call events go out as webhooks), so
 * there is no session table to bound or expire, and any shell process can take any request.
 * GET and DELETE (a server-pushed stream, ending a session) answer 405, which the transport
 * spec allows. No Origin check: a browser page cannot send the X-API-Key header cross-site
 * without a CORS preflight this app never grants, so DNS rebinding gains it nothing.
 */
export function mountMcp<Caller>(router: Router, host: McpHost<Caller>): void {
  const tools = buildCatalog(host.routes, TOOLS)
  const resources = agentResources(host.routes)
  router.post(MCP_PATH, async (ctx: Context) => {
    const caller = await host.admitByKey(ctx)
    const message = await readMessage(ctx, host.bodyLimitBytes)
    if (message === undefined) return
    const server = createMcpServer(tools, resources, (route, parts, url) => host.invoke(ctx, caller, route, parts, url))
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
    try {
      await server.connect(transport)
      const res = await transport.handleRequest(webRequest(ctx), { parsedBody: message })
      const text = await res.text()
      res.headers.forEach((value, name) => {
        if (name !== 'content-length') ctx.set(name, value)
      })
      // Koa sends an explicit null body as empty, keeping the status set after it (202).
      ctx.body = text === '' ? null : text
      ctx.status = res.status
    } finally {
      await server.close()
    }
  })
}
