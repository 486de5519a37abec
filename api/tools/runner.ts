/**
 * What one call of a library tool runs: its arguments checked against its parameters, its request
 * (or action input) filled in from them, then the integration action run through the same runner
 * as graph tool nodes (so every HTTP exchange passes the outbound guard), under the tool's deadline.
 */
import { compileAnalysisSchema, type ToolOutcome, type ToolRunner } from '../../engine/graph-runtime/index.js'
import type { ToolRunsT } from './schema.js'
import { placeholders, renderJson, renderText, textOf } from './template.js'

/** A stored version, secrets opened: what a run needs. */
export interface RunnableTool {
  id: string
  version: number
  name: string
  parameters: Record<string, unknown>
  runs: ToolRunsT
  secretHeaders: Record<string, string>
}

type ActionCall = { integration: string; action: string; input: Record<string, unknown> }

/** Whether the arguments fit the tool's parameters; the reason when they do not. */
export function checkArguments(parameters: Record<string, unknown>, args: Record<string, unknown>): string | null {
  const compiled = compileAnalysisSchema(parameters)
  // Checked at save: a stored schema that no longer compiles is a bug, refused rather than run.
  if (!compiled.ok) return `the tool's parameters do not compile: ${compiled.message}`
  const parsed = compiled.validator.safeParse(args)
  if (parsed.success) return null
  return parsed.error.issues
    .slice(0, 5)
    .map((i) => `${i.path.join('.') || 'arguments'}: ${i.message}`)
    .join('; ')
}

/** The integration action a call runs, its input filled in from the arguments. */
export function actionCall(tool: Pick<RunnableTool, 'runs' | 'secretHeaders'>, args: Record<string, unknown>): ActionCall {
  const runs = tool.runs
  if (runs.type === 'integration') {
    const input = runs.input === undefined ? args : (renderJson(runs.input, args) as Record<string, unknown>)
    return { integration: runs.integration, action: runs.action, input }
  }
  const url = new URL(renderText(runs.url, args, encodeURIComponent))
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(runs.headers)) headers[name] = renderText(value, args)
  Object.assign(headers, tool.secretHeaders)
  let body: unknown
  if (runs.body !== undefined) body = renderJson(runs.body, args)
  else if (runs.method === 'POST' || runs.method === 'PUT' || runs.method === 'PATCH') body = args
  else {
    const inUrl = new Set(placeholders(runs.url))
    for (const [k, v] of Object.entries(args)) if (!inUrl.has(k) && v !== undefined) url.searchParams.append(k, textOf(v))
  }
  // The http action sends strings as they are and objects or arrays as JSON; a lone scalar is JSON too.
  if (body === null || (body !== undefined && typeof body !== 'string' && typeof body !== 'object')) {
    body = JSON.stringify(body)
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json'
  }
  const input: Record<string, unknown> = { method: runs.method, url: url.toString(), headers, timeout_ms: runs.timeout_ms }
  if (body !== undefined) input.body = body
  return { integration: 'http', action: 'request', input }
}

/**
 * Runs a tool once. The deadline bounds the whole run whatever the action does (its own request
 * deadline says `timeout` too); the caller's signal (barge-in, a closed test request) cancels it.
 */
export async function runTool(tool: RunnableTool, args: Record<string, unknown>, actions: ToolRunner, signal: AbortSignal): Promise<ToolOutcome> {
  const refused = checkArguments(tool.parameters, args)
  if (refused) return { ok: false, error: `invalid_arguments: ${refused}` }
  let call: ActionCall
  try {
    call = actionCall(tool, args)
  } catch {
    return { ok: false, error: 'invalid_arguments: the arguments do not make a valid URL' }
  }
  const timeoutMs = tool.runs.timeout_ms
  const deadline = new AbortController()
  const both = AbortSignal.any([signal, deadline.signal])
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<ToolOutcome>((resolve) => {
    timer = setTimeout(() => {
      deadline.abort()
      resolve({ ok: false, error: `timeout: no result within ${timeoutMs} ms` })
    }, timeoutMs)
  })
  try {
    const outcome = await Promise.race([actions.run({ integration: call.integration, action: call.action }, call.input, both), late])
    if (!outcome.ok && deadline.signal.aborted) return { ok: false, error: `timeout: no result within ${timeoutMs} ms` }
    return outcome.ok && call.integration === 'http' && tool.runs.type === 'http' ? { ok: true, output: httpResult(outcome.output) } : outcome
  } finally {
    clearTimeout(timer)
  }
}

/** What the LLM gets from an HTTP tool: status and body (response headers are noise to it, and may carry cookies). */
function httpResult(output: unknown): unknown {
  const o = output as { status?: unknown; body?: unknown; truncated?: unknown }
  return { status: o.status, body: o.body, truncated: o.truncated }
}
