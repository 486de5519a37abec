/**
 * The request checks OpenAI itself makes before it answers, with its own wording, so a client
 * that sends what OpenAI would refuse is refused here too (400, `invalid_request_error`).
 */

export interface StandInMessage {
  role: string
  content?: unknown
  tool_call_id?: string
  tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[]
}

export interface StandInTool {
  type: string
  function: { name: string; description?: string; parameters?: Record<string, unknown> }
}

export interface ValidRequest {
  model: string
  messages: StandInMessage[]
  tools: StandInTool[] | undefined
  stream: boolean
  includeUsage: boolean
}

export type Checked = { ok: true; request: ValidRequest } | { ok: false; message: string; param: string | null }

const fail = (message: string, param: string | null = null): Checked => ({ ok: false, message, param })

export function checkRequest(body: unknown): Checked {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return fail('We could not parse the JSON body of your request.')
  const b = body as Record<string, unknown>
  if (typeof b.model !== 'string' || !b.model) return fail('you must provide a model parameter', 'model')
  if (!Array.isArray(b.messages) || !b.messages.length) return fail("[] is too short - 'messages'", 'messages')
  const stream = b.stream === true
  if (b.stream_options != null && !stream) return fail("The 'stream_options' parameter is only allowed when 'stream' is enabled.", 'stream_options')
  let tools: StandInTool[] | undefined
  if (b.tools !== undefined) {
    if (!Array.isArray(b.tools) || !b.tools.length) return fail("[] is too short - 'tools'", 'tools')
    for (const [i, tool] of (b.tools as StandInTool[]).entries()) {
      if (tool?.type !== 'function' || typeof tool.function?.name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(tool.function.name)) {
        return fail(
          `Invalid 'tools[${i}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
          `tools[${i}].function.name`,
        )
      }
    }
    tools = b.tools as StandInTool[]
  }
  const messages = b.messages as StandInMessage[]
  // Every tool message answers a call of the assistant message before it, and every call is answered.
  let open = new Set<string>()
  for (const [i, m] of messages.entries()) {
    if (!m || typeof m.role !== 'string') return fail(`Missing required parameter: 'messages[${i}].role'.`, `messages[${i}].role`)
    if (m.role === 'tool') {
      if (!m.tool_call_id || !open.has(m.tool_call_id)) {
        return fail("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", `messages.[${i}].role`)
      }
      open.delete(m.tool_call_id)
      continue
    }
    if (open.size) {
      return fail(
        `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(', ')}`,
        'messages',
      )
    }
    if (m.role === 'assistant' && m.tool_calls?.length) open = new Set(m.tool_calls.map((c) => c.id))
    else if (m.content === undefined || m.content === null) return fail(`Invalid value for 'content': expected a string, got null.`, `messages.[${i}].content`)
  }
  if (open.size) {
    return fail(
      `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(', ')}`,
      'messages',
    )
  }
  const opts = b.stream_options as { include_usage?: boolean } | undefined
  return { ok: true, request: { model: b.model, messages, tools, stream, includeUsage: stream && opts?.include_usage === true } }
}

/** The text of a message's content, whether a string or an array of text parts. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content
  if (Array.isArray(content)) return content.map((p: { text?: unknown }) => (typeof p?.text === 'string' ? p.text : '')).join('')
  return ''
}
