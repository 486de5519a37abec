/**
 * The OpenAI Chat Completions wire format as the stand-in writes it: chunk bodies for streaming,
 * the whole `chat.completion` object otherwise, and OpenAI's error envelope. Shapes follow the
 * API reference (object names, `usage: null` on every chunk when usage was asked for, a final
 * chunk with `choices: []` carrying the usage).
 */
import { randomBytes } from 'node:crypto'

export interface ScriptedToolCall {
  id?: string
  name: string
  arguments: string | Record<string, unknown>
  /** How many chunks the arguments are split across (default 3), as OpenAI streams them. */
  fragments?: number
}

export interface ScriptedReply {
  /** Text pieces, one chunk each; a plain string is split into words (each keeps its space). */
  text?: string | string[]
  toolCalls?: ScriptedToolCall[]
  finishReason?: 'stop' | 'length' | 'tool_calls' | 'content_filter'
  /** Overrides the computed token counts. */
  usage?: { prompt_tokens: number; completion_tokens: number }
  /**
   * Answers only a request whose last user message is exactly this text (replies for one text are
   * used in order, once each, ahead of the unkeyed queue). A voice agent that speculates on partial
   * transcripts sends requests it then drops: an unkeyed reply would go to whichever came first.
   * A tool call's follow-up request still ends its history with the same user message.
   */
  forUser?: string
}

export interface ChunkPlan {
  deltas: { delta: Record<string, unknown>; finish_reason: string | null }[]
  content: string
  toolCalls: { id: string; type: 'function'; function: { name: string; arguments: string } }[]
  finishReason: string
  completionTokens: number
}

export const newId = (prefix: string) => `${prefix}-${randomBytes(12).toString('base64url')}`

export function words(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? []
}

function split(text: string, parts: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / Math.max(1, parts)))
  const out: string[] = []
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size))
  return out.length ? out : ['']
}

/** Turns a reply into the deltas OpenAI would stream: role first, content, tool calls, finish. */
export function planChunks(reply: ScriptedReply): ChunkPlan {
  const pieces = typeof reply.text === 'string' ? words(reply.text) : (reply.text ?? [])
  const deltas: ChunkPlan['deltas'] = []
  let tokens = 0
  for (const [i, piece] of pieces.entries()) {
    deltas.push({ delta: i === 0 ? { role: 'assistant', content: piece, refusal: null } : { content: piece }, finish_reason: null })
    tokens++
  }
  const toolCalls = (reply.toolCalls ?? []).map((c) => ({
    id: c.id ?? newId('call').replace('-', '_'),
    type: 'function' as const,
    function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments) },
    fragments: c.fragments ?? 3,
  }))
  for (const [index, c] of toolCalls.entries()) {
    const head = { index, id: c.id, type: 'function', function: { name: c.function.name, arguments: '' } }
    deltas.push({ delta: deltas.length ? { tool_calls: [head] } : { role: 'assistant', content: null, tool_calls: [head] }, finish_reason: null })
    for (const part of split(c.function.arguments, c.fragments)) {
      deltas.push({ delta: { tool_calls: [{ index, function: { arguments: part } }] }, finish_reason: null })
      tokens++
    }
  }
  if (!deltas.length) deltas.push({ delta: { role: 'assistant', content: '', refusal: null }, finish_reason: null })
  const finishReason = reply.finishReason ?? (toolCalls.length ? 'tool_calls' : 'stop')
  deltas.push({ delta: {}, finish_reason: finishReason })
  return {
    deltas,
    content: pieces.join(''),
    toolCalls: toolCalls.map(({ fragments: _, ...c }) => c),
    finishReason,
    completionTokens: reply.usage?.completion_tokens ?? tokens,
  }
}

export interface Envelope {
  id: string
  created: number
  model: string
}

export function chunkBody(env: Envelope, d: ChunkPlan['deltas'][number], withUsage: boolean): Record<string, unknown> {
  return {
    ...env,
    object: 'chat.completion.chunk',
    system_fingerprint: 'fp_standin',
    choices: [{ index: 0, delta: d.delta, logprobs: null, finish_reason: d.finish_reason }],
    ...(withUsage ? { usage: null } : {}),
  }
}

export function usageBody(env: Envelope, usage: Usage): Record<string, unknown> {
  return { ...env, object: 'chat.completion.chunk', system_fingerprint: 'fp_standin', choices: [], usage }
}

export interface Usage {
  prompt_tokens: number
  completion_tokens: number
  total_tokens: number
}

export function completionBody(env: Envelope, plan: ChunkPlan, usage: Usage): Record<string, unknown> {
  const message = {
    role: 'assistant',
    content: plan.toolCalls.length && !plan.content ? null : plan.content,
    refusal: null,
    ...(plan.toolCalls.length ? { tool_calls: plan.toolCalls } : {}),
  }
  return {
    ...env,
    object: 'chat.completion',
    system_fingerprint: 'fp_standin',
    choices: [{ index: 0, message, logprobs: null, finish_reason: plan.finishReason }],
    usage,
  }
}

/** OpenAI's error envelope: `{ error: { message, type, param, code } }`. */
export function errorBody(message: string, type: string, code: string | null = null, param: string | null = null) {
  return { error: { message, type, param, code } }
}

/** Masks a key the way OpenAI's 401 message does: a few leading characters and the last four. */
export function maskKey(key: string): string {
  return key.length <= 8 ? '*'.repeat(key.length) : `${key.slice(0, 3)}${'*'.repeat(key.length - 7)}${key.slice(-4)}`
}
