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
  const format = checkResponseFormat(b.response_format)
  if (format) return format
  const opts = b.stream_options as { include_usage?: boolean } | undefined
  return { ok: true, request: { model: b.model, messages, tools, stream, includeUsage: stream && opts?.include_usage === true } }
}

/** The text of a message's content, whether a string or an array of text parts. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content
  if (Array.isArray(content)) return content.map((p: { text?: unknown }) => (typeof p?.text === 'string' ? p.text : '')).join('')
  return ''
}

/**
 * `response_format` as OpenAI checks it: a known type; for json_schema a name and an object schema
 * whose root is an object, and under `strict: true` every object closed with every property
 * required (structured outputs' rules, with OpenAI's wording). Null when the format is acceptable.
 */
function checkResponseFormat(format: unknown): Checked | null {
  if (format === undefined) return null
  const f = format as { type?: unknown; json_schema?: { name?: unknown; schema?: unknown; strict?: unknown } } | null
  if (!f || typeof f !== 'object' || !['text', 'json_object', 'json_schema'].includes(f.type as string))
    return fail("Invalid value: 'response_format.type'. Supported values are: 'text', 'json_object', and 'json_schema'.", 'response_format.type')
  if (f.type !== 'json_schema') return null
  const js = f.json_schema
  if (!js || typeof js !== 'object') return fail("Missing required parameter: 'response_format.json_schema'.", 'response_format.json_schema')
  if (typeof js.name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(js.name))
    return fail("Invalid 'response_format.json_schema.name': string does not match pattern.", 'response_format.json_schema.name')
  const schema = js.schema as Record<string, unknown> | undefined
  const invalid = (message: string) => fail(`Invalid schema for response_format '${js.name}': ${message}`, 'response_format')
  if (!schema || typeof schema !== 'object' || schema.type !== 'object')
    return invalid(`schema must be a JSON Schema of 'type: "object"', got 'type: "${String(schema?.type)}"'.`)
  if (js.strict !== true) return null
  const stack: { node: Record<string, unknown>; path: string[] }[] = [{ node: schema, path: [] }]
  while (stack.length) {
    const { node, path } = stack.pop()!
    const at = `(${path.map((p) => `'${p}'`).join(', ')})`
    const properties = node.properties as Record<string, Record<string, unknown>> | undefined
    if (node.type === 'object' || properties) {
      if (node.additionalProperties !== false) return invalid(`In context=${at}, 'additionalProperties' is required to be supplied and to be false.`)
      const required = Array.isArray(node.required) ? (node.required as string[]) : []
      const missing = Object.keys(properties ?? {}).find((k) => !required.includes(k))
      if (missing !== undefined)
        return invalid(`In context=${at}, 'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'.`)
      for (const [k, v] of Object.entries(properties ?? {})) if (v && typeof v === 'object') stack.push({ node: v, path: [...path, 'properties', k] })
    }
    if (node.items && typeof node.items === 'object') stack.push({ node: node.items as Record<string, unknown>, path: [...path, 'items'] })
    if (Array.isArray(node.anyOf))
      for (const v of node.anyOf) if (v && typeof v === 'object') stack.push({ node: v as Record<string, unknown>, path: [...path, 'anyOf'] })
  }
  return null
}
