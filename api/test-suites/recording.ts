/**
 * What a case's conversation left behind, gathered from the graph runtime's events turn by turn:
 * the transcript, the nodes entered, the tools called, how it ended and the tokens used. Pure: the
 * text and voice runners feed it and the assertions read it.
 */
import type { RuntimeEvent } from '../../engine/graph-runtime/index.js'
import type { CaseOutcome } from './schema-runs.js'

export type EndedBy = 'agent' | 'caller' | 'turn_limit' | 'error'

export class Recording {
  readonly transcript: CaseOutcome['transcript'] = []
  readonly path: string[] = []
  readonly toolCalls: CaseOutcome['tool_calls'] = []
  variables: Record<string, unknown> = {}
  ended: CaseOutcome['ended'] = { ended: false, disposition: null, by: null }
  readonly usage = { prompt_tokens: 0, completion_tokens: 0 }
  /** Runtime error events ({code, message}), in order. */
  readonly errors: { code: string; message: string }[] = []
  private nodeId: string | null = null
  /** A tool call's id → its index in toolCalls, to mark it with its result. */
  private readonly callIds = new Map<string, number>()

  caller(text: string, atMs: number | null = null): void {
    this.transcript.push({ role: 'caller', text, node_id: null, at_ms: atMs })
  }

  agent(text: string, atMs: number | null = null): void {
    this.transcript.push({ role: 'agent', text, node_id: this.nodeId, at_ms: atMs })
  }

  /** One runtime event; `atMs` is when it happened on a voice call's clock (null over text). */
  event(e: RuntimeEvent, atMs: number | null = null): void {
    switch (e.type) {
      case 'node':
        this.nodeId = e.node_id
        this.path.push(e.node_id)
        break
      case 'say':
        this.agent(e.text, atMs)
        break
      case 'tool_call':
        this.toolCalls.push({ integration: e.integration, action: e.action, arguments: e.input, ok: null })
        this.callIds.set(e.call_id, this.toolCalls.length - 1)
        break
      case 'tool_result': {
        const at = this.callIds.get(e.call_id)
        if (at !== undefined) this.toolCalls[at]!.ok = e.ok
        break
      }
      case 'usage':
        this.usage.prompt_tokens += e.prompt_tokens
        this.usage.completion_tokens += e.completion_tokens
        break
      case 'end':
        this.ended = { ended: true, disposition: e.disposition, by: e.disposition === 'error' ? 'error' : 'agent' }
        break
      case 'error':
        this.errors.push({ code: e.code, message: e.message })
        break
      default:
        break
    }
  }

  /** The conversation stopped without the agent ending it: the caller hung up, or ran out of turns. */
  hungUp(by: Exclude<EndedBy, 'agent'>): void {
    if (!this.ended.ended) this.ended = { ended: false, disposition: null, by }
  }

  outcome(assertions: CaseOutcome['assertions'], voice: CaseOutcome['voice'] = null): CaseOutcome {
    return {
      transcript: this.transcript,
      assertions,
      path: this.path,
      variables: this.variables,
      tool_calls: this.toolCalls,
      ended: this.ended,
      usage: this.usage,
      voice,
    }
  }
}
