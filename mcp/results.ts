import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { OperationAnswer } from './host.js'

/** Headers worth a model's reading: a page's total and its neighbours, a throttle's wait. */
const TOLD_HEADERS = ['X-Total-Count', 'Link', 'Retry-After']

function headerLines(headers: Record<string, string>): string | null {
  const lines = TOLD_HEADERS.flatMap((name) => {
    const value = Object.entries(headers).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1]
    return value === undefined ? [] : [`${name}: ${value}`]
  })
  return lines.length ? lines.join('\n') : null
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * An operation's answer as a tool result. Success: the REST body as JSON text (and as
 * structuredContent when it is an object); a bodiless success says so. Failure: an MCP tool
 * error (isError) whose JSON is the REST error body with its HTTP status beside it:
 * `{ status, error: { code, message, request_id } }`, or `{ status: 422, detail: [...] }` for
 * arguments the operation's schemas refused. A paged list's X-Total-Count and Link, and a
 * throttle's Retry-After, follow as a second text block.
 */
export function toolResult(answer: OperationAnswer): CallToolResult {
  const told = headerLines(answer.headers)
  const extra = told === null ? [] : [{ type: 'text' as const, text: told }]
  if (answer.status >= 400) {
    const payload = { status: answer.status, ...(isObject(answer.body) ? answer.body : {}) }
    return { isError: true, content: [{ type: 'text', text: JSON.stringify(payload) }, ...extra], structuredContent: payload }
  }
  if (answer.body === null) return { content: [{ type: 'text', text: `Done (HTTP ${answer.status}, no content).` }, ...extra] }
  return {
    content: [{ type: 'text', text: JSON.stringify(answer.body) }, ...extra],
    ...(isObject(answer.body) ? { structuredContent: answer.body } : {}),
  }
}
