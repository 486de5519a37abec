/**
 * Mapping between the graph runtime's chat shapes and the OpenAI SDK's, and the assembly of
 * streamed tool calls (OpenAI sends each call's id and name once, then its arguments in pieces).
 */
import { randomUUID } from 'node:crypto'
import type { ChatCompletionChunk, ChatCompletionFunctionTool, ChatCompletionMessageParam } from 'openai/resources/chat/completions'
import type { ChatMessage, ChatTool } from '../../../graph-runtime/index.js'

export function toSdkMessages(messages: ChatMessage[]): ChatCompletionMessageParam[] {
  return messages.map((m, i): ChatCompletionMessageParam => {
    switch (m.role) {
      case 'system':
        return { role: 'system', content: m.content }
      case 'user':
        return { role: 'user', content: m.content }
      case 'assistant':
        if (!m.tool_calls?.length) return { role: 'assistant', content: m.content }
        return {
          role: 'assistant',
          // OpenAI accepts null content beside tool calls; an empty string is refused by some servers.
          content: m.content || null,
          tool_calls: m.tool_calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments || '{}' } })),
        }
      case 'tool':
        if (!m.tool_call_id) throw new TypeError(`messages[${i}]: a tool message needs the tool_call_id it answers`)
        return { role: 'tool', tool_call_id: m.tool_call_id, content: m.content }
    }
  })
}

export function toSdkTools(tools: ChatTool[]): ChatCompletionFunctionTool[] {
  return tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: withoutDialect(t.parameters) } }))
}

/** `$schema` names a validator dialect, tells the model nothing, and some compatible servers refuse it. */
function withoutDialect(schema: Record<string, unknown>): Record<string, unknown> {
  if (!('$schema' in schema)) return schema
  const { $schema: _, ...rest } = schema
  return rest
}

export interface AssembledCall {
  id: string
  name: string
  arguments: string
}

/** Collects tool-call fragments by their index until the model finishes. */
export class ToolCallAssembler {
  private readonly calls = new Map<number, AssembledCall>()
  private last = -1

  add(fragments: ChatCompletionChunk.Choice.Delta.ToolCall[]): void {
    for (const f of fragments) {
      // A few OpenAI-compatible servers omit `index`; a fragment with a new id then starts a call.
      const index =
        typeof f.index === 'number' ? f.index : f.id && ![...this.calls.values()].some((c) => c.id === f.id) ? this.calls.size : Math.max(this.last, 0)
      this.last = index
      const call = this.calls.get(index) ?? { id: '', name: '', arguments: '' }
      // Ids and names arrive whole (some servers repeat them on every fragment); arguments accumulate.
      if (f.id) call.id = f.id
      if (f.function?.name) call.name = f.function.name
      if (f.function?.arguments) call.arguments += f.function.arguments
      this.calls.set(index, call)
    }
  }

  get size(): number {
    return this.calls.size
  }

  /** The complete calls in index order; a call the server gave no id gets a unique local one. */
  drain(): AssembledCall[] {
    const out = [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, c]) => ({ id: c.id || `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`, name: c.name, arguments: c.arguments || '{}' }))
    this.calls.clear()
    return out
  }
}
