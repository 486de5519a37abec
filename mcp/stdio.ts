import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { MCP_PATH } from './http.js'

export const DEFAULT_OZAN_URL = 'http://127.0.0.1:8080'

export interface BridgeOptions {
  /** The running server's base URL (OZAN_URL). */
  url: string
  /** The API key (OZAN_API_KEY): the bridge acts with its scopes and its creator's permissions. */
  apiKey: string
  /** The environment to act in (OZAN_ENVIRONMENT_ID: an id or dev/staging/prod); else the organization's default. */
  environmentId?: string
}

/** The bridge's settings from the environment, or what is wrong with them. */
export function bridgeOptionsFromEnv(env: NodeJS.ProcessEnv): BridgeOptions | { problem: string } {
  const apiKey = env.OZAN_API_KEY?.trim()
  if (!apiKey) return { problem: 'set OZAN_API_KEY to an API key of your organization (create one with POST /api/v1/api-keys)' }
  const url = env.OZAN_URL?.trim() || DEFAULT_OZAN_URL
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return { problem: `OZAN_URL is not a URL: ${url}` }
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return { problem: `OZAN_URL must be http or https: ${url}` }
  const environmentId = env.OZAN_ENVIRONMENT_ID?.trim()
  return { url, apiKey, ...(environmentId ? { environmentId } : {}) }
}

type Reply = { jsonrpc: '2.0'; id: string | number; error: { code: number; message: string; data?: unknown } }

const isRequest = (m: JSONRPCMessage): m is JSONRPCMessage & { id: string | number; method: string } => 'method' in m && 'id' in m

/**
 * `ozan mcp`: an MCP server on stdin/stdout that hands every message to a running server's
 * Streamable HTTP endpoint (POST /mcp) with the key, and its answer back. The tools, their
 * schemas and every rule stay in the server, run by the API's own pipeline; this process holds
 * no database and no tool table, so it cannot drift from the server it talks to. A refusal at
 * the HTTP level (401 bad key, 429 throttled, the server unreachable) answers the request that
 * met it as a JSON-RPC error whose message starts with the API's error code.
 */
export async function runStdioBridge(o: BridgeOptions): Promise<void> {
  const endpoint = `${o.url.replace(/\/+$/, '')}${MCP_PATH}`
  const transport = new StdioServerTransport()
  let protocolVersion: string | undefined
  const inFlight = new Set<Promise<void>>()

  const fail = (id: string | number, message: string, data?: unknown): Reply => ({
    jsonrpc: '2.0',
    id,
    error: { code: -32000, message, ...(data === undefined ? {} : { data }) },
  })

  async function forward(message: JSONRPCMessage): Promise<void> {
    const id = isRequest(message) ? message.id : undefined
    let res: Response
    try {
      res = await fetch(endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'x-api-key': o.apiKey,
          ...(o.environmentId ? { 'x-environment-id': o.environmentId } : {}),
          ...(protocolVersion ? { 'mcp-protocol-version': protocolVersion } : {}),
        },
        body: JSON.stringify(message),
      })
    } catch (err) {
      const why = `cannot reach the Ozan server at ${endpoint}: ${(err as Error).cause ?? (err as Error).message}`
      if (id !== undefined) await transport.send(fail(id, why))
      else process.stderr.write(`ozan mcp: ${why}\n`)
      return
    }
    const text = await res.text()
    let body: Record<string, unknown> | undefined
    try {
      body = text ? (JSON.parse(text) as Record<string, unknown>) : undefined
    } catch {
      body = undefined
    }
    if (res.ok) {
      if (body?.jsonrpc !== '2.0') return // 202: a notification or a response, nothing to answer
      const result = body.result as { protocolVersion?: unknown } | undefined
      if (isRequest(message) && message.method === 'initialize' && typeof result?.protocolVersion === 'string') protocolVersion = result.protocolVersion
      await transport.send(body as JSONRPCMessage)
      return
    }
    if (id === undefined) {
      process.stderr.write(`ozan mcp: the server answered HTTP ${res.status}: ${text.slice(0, 500)}\n`)
      return
    }
    // The transport's own refusal is already JSON-RPC; the API's (401, 429) is its error body.
    if (body?.jsonrpc === '2.0' && body.error) return void (await transport.send({ ...(body as object), id } as JSONRPCMessage))
    const apiError = (body?.error ?? null) as { code?: string; message?: string } | null
    const why = apiError?.code ? `${apiError.code}: ${apiError.message}` : `the Ozan server answered HTTP ${res.status}`
    await transport.send(fail(id, why, { status: res.status, ...(body ?? {}) }))
  }

  transport.onmessage = (message) => {
    const p = forward(message).catch((err: unknown) => {
      process.stderr.write(`ozan mcp: ${(err as Error).message}\n`)
    })
    inFlight.add(p)
    void p.finally(() => inFlight.delete(p))
  }
  transport.onerror = (err) => process.stderr.write(`ozan mcp: ${err.message}\n`)
  await transport.start()
  // The client closing stdin ends the session: answer what is in flight, then stop.
  await new Promise<void>((resolve) => process.stdin.once('end', resolve))
  await Promise.allSettled([...inFlight])
  await transport.close()
}

/** `ozan mcp` from bin/ozan.ts: settings from the environment; a usage problem exits 78 (EX_CONFIG). */
export async function runStdioBridgeFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const options = bridgeOptionsFromEnv(env)
  if ('problem' in options) {
    process.stderr.write(`ozan mcp: ${options.problem}\n`)
    process.exit(78)
  }
  await runStdioBridge(options)
  process.exit(0)
}
