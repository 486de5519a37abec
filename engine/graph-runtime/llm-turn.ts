import type { AgentConfig } from './config.js'
import { type Definition, isLibraryRef, type WorkflowEdge, type WorkflowNode } from './definition.js'
import { RUNTIME_VALUE_BOUNDS, boundOutcome } from './guard.js'
import type { ChatMessage, ChatTool, LibraryTool, RuntimeEvent, RuntimeIO } from './io.js'
import { describeExcess, jsonExcess } from './json-bounds.js'

const MAX_TOOL_ROUNDS = 5
const MAX_TOOL_RESULT_CHARS = 4000
const HISTORY_TURNS = 40

const JSON_TYPES: Record<string, string> = {
  string: 'string',
  number: 'number',
  boolean: 'boolean',
  date: 'string',
  email: 'string',
  phone: 'string',
  object: 'object',
}

export interface TurnParams {
  node: Extract<WorkflowNode, { type: 'conversation' }>
  text: string
  globals: WorkflowNode[]
  edges: WorkflowEdge[]
  config: AgentConfig
  io: RuntimeIO
  signal: AbortSignal
  emit: (e: RuntimeEvent) => void
  history: { role: 'user' | 'assistant'; text: string }[]
  variables: Record<string, unknown>
  declared: Definition['variables']
  render: (template: string) => string
  /** false: the value was beyond the bounds of a variable and was not stored. */
  setVariable: (name: string, value: unknown) => boolean
}

export interface TurnResult {
  reply: string
  /** The node an intent edge or a global node moved to, if any. */
  transition: string | null
}

/**
 * One caller turn at a conversation node: the LLM answers, may call integration tools, may set
 * the node's extracted variables, and may leave by an intent (an edge or a global node). Intents
 * and extraction are offered to the model as tools, so the choice is explicit, not parsed from prose.
 */
export async function conversationTurn(p: TurnParams): Promise<TurnResult> {
  const { node, io, signal, emit } = p
  const tools: ChatTool[] = []
  const transitions = new Map<string, string>()
  for (const e of p.edges) {
    if (e.condition.kind !== 'intent') continue
    const name = `transition_${e.id}`.slice(0, 64)
    transitions.set(name, e.target)
    tools.push({ name, description: `Call when: ${e.condition.description}`, parameters: { type: 'object', properties: {} } })
  }
  for (const g of p.globals) {
    const name = `goto_${g.id}`.slice(0, 64)
    transitions.set(name, g.id)
    tools.push({ name, description: `Call when: ${g.global!.intent}`, parameters: { type: 'object', properties: {} } })
  }
  if (node.data.extract.length) {
    const types = new Map(p.declared.map((v) => [v.name, v.type]))
    tools.push({
      name: 'set_variables',
      description: 'Record values the caller has stated. Only include values you are sure of.',
      parameters: {
        type: 'object',
        properties: Object.fromEntries(
          node.data.extract.map((x) => [x.variable, { type: JSON_TYPES[types.get(x.variable) ?? 'string'] ?? 'string', description: x.description }]),
        ),
      },
    })
  }
  const integrations = new Map<string, { integration: string; action: string }>()
  const library = new Map<string, LibraryTool>()
  for (const ref of node.data.tools) {
    if (isLibraryRef(ref)) {
      // A tool the organization no longer has (deleted after this draft named it) is not offered:
      // publishing refuses such a reference, so only a draft can meet one.
      const tool = io.tools?.resolve?.(ref)
      if (!tool || library.has(tool.name)) continue
      library.set(tool.name, tool)
      tools.push({ name: tool.name, description: tool.description, parameters: tool.parameters })
      continue
    }
    const name = `${ref.integration}__${ref.action}`.slice(0, 64)
    integrations.set(name, ref)
    tools.push({ name, ...integrationTool(ref, io) })
  }

  let system = p.render(node.data.prompt)
  const known = Object.fromEntries(Object.entries(p.variables).filter(([k]) => k !== 'system'))
  if (Object.keys(known).length) system += `\n\nKnown facts: ${JSON.stringify(known)}`
  if (node.data.knowledge_base.enabled && io.knowledge) {
    const hits = await io.knowledge.search(p.text, node.data.knowledge_base.top_k, signal, node.data.knowledge_base.document_ids)
    emit({ type: 'knowledge', query: p.text, hits: hits.length })
    if (hits.length) system += `\n\nAnswer from these sources when relevant:\n${hits.map((h, i) => `[${i + 1}] ${h.text}`).join('\n')}`
  }
  const messages: ChatMessage[] = [
    { role: 'system', content: system },
    ...p.history.slice(-HISTORY_TURNS).map((h) => ({ role: h.role, content: h.text }) as ChatMessage),
  ]

  let reply = ''
  let transition: string | null = null
  for (let round = 0; round < MAX_TOOL_ROUNDS && transition === null; round++) {
    const calls: { id: string; name: string; arguments: string }[] = []
    let text = ''
    const request = { model: p.config.llm.model, messages, tools, temperature: p.config.llm.temperature, maxTokens: p.config.llm.max_tokens }
    for await (const chunk of io.llm!.stream(request, signal)) {
      if (chunk.type === 'text') {
        text += chunk.text
        emit({ type: 'text_delta', text: chunk.text })
      } else if (chunk.type === 'tool_call') calls.push(chunk)
      else emit(chunk)
    }
    reply += text
    if (!calls.length) break
    messages.push({ role: 'assistant', content: text, tool_calls: calls })
    for (const call of calls) {
      let result: string
      if (transitions.has(call.name)) {
        transition ??= transitions.get(call.name)!
        result = 'ok'
      } else if (call.name === 'set_variables') {
        result = setFromArguments(call.arguments, node, p.setVariable)
      } else if (integrations.has(call.name) || library.has(call.name)) {
        const ref = integrations.get(call.name)
        const tool = library.get(call.name)
        const input = parseObject(call.arguments) ?? {}
        // The model's arguments are stored with the call's events: bounded like an API request's.
        const excess = jsonExcess(input, RUNTIME_VALUE_BOUNDS)
        if (excess) {
          result = JSON.stringify({ error: `arguments refused: ${describeExcess(excess).msg}` })
          messages.push({ role: 'tool', tool_call_id: call.id, content: result })
          continue
        }
        const runs = tool ?? ref!
        emit({
          type: 'tool_call',
          call_id: call.id,
          integration: runs.integration,
          action: runs.action,
          input,
          ...(tool && { tool: { id: tool.id, name: tool.name, version: tool.version } }),
        })
        const outcome = boundOutcome(
          !io.tools
            ? { ok: false, error: 'No tool runner is configured' }
            : tool
              ? io.tools.runLibrary
                ? await io.tools.runLibrary(tool, input, signal)
                : { ok: false, error: 'This runner cannot run library tools' }
              : await io.tools.run(ref!, input, signal),
        )
        emit({ type: 'tool_result', call_id: call.id, ok: outcome.ok, ...(outcome.ok ? { output: outcome.output } : { error: outcome.error }) })
        result = (JSON.stringify(outcome.ok ? outcome.output : { error: outcome.error }) ?? 'null').slice(0, MAX_TOOL_RESULT_CHARS)
      } else {
        result = JSON.stringify({ error: `Unknown tool ${call.name}` })
      }
      messages.push({ role: 'tool', tool_call_id: call.id, content: result })
    }
  }
  reply = reply.trim()
  if (reply) emit({ type: 'say', text: reply, source: 'llm' })
  return { reply, transition }
}

/**
 * The action's own description and input schema when the runner knows it: a model that sees the
 * exact fields sends arguments the action accepts instead of guessing and failing validation.
 */
function integrationTool(ref: { integration: string; action: string }, io: RuntimeIO): Omit<ChatTool, 'name'> {
  const spec = io.tools?.describe?.(ref)
  if (spec) return { description: spec.description, parameters: spec.parameters }
  // Still offered: if the model calls it, the runner's refusal tells it (and the transcript) why.
  return { description: `Run the ${ref.action} action of ${ref.integration}`, parameters: { type: 'object', additionalProperties: true } }
}

function parseObject(json: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(json || '{}')
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null
  } catch {
    return null
  }
}

/** Sets only the node's own extract variables; anything else the model sends is ignored. */
function setFromArguments(json: string, node: TurnParams['node'], set: TurnParams['setVariable']): string {
  const args = parseObject(json)
  if (!args) return JSON.stringify({ error: 'arguments must be a JSON object' })
  const allowed = new Set(node.data.extract.map((x) => x.variable))
  const offered = Object.entries(args).filter(([k, v]) => allowed.has(k) && v !== null && v !== undefined)
  const stored = offered.filter(([k, v]) => set(k, v)).map(([k]) => k)
  const refused = offered.map(([k]) => k).filter((k) => !stored.includes(k))
  return JSON.stringify({ stored, ...(refused.length && { refused, reason: 'value too large or too deeply nested' }) })
}
