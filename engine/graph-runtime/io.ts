/**
 * What the graph runtime needs from the outside world, injected so the same runtime serves text
 * sessions, voice calls and tests. Every call takes the turn's AbortSignal (barge-in cancels it).
 */

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool'
  content: string
  tool_call_id?: string
  tool_calls?: { id: string; name: string; arguments: string }[]
}

export interface ChatTool {
  name: string
  description: string
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>
}

export type LlmChunk =
  | { type: 'text'; text: string }
  | { type: 'tool_call'; id: string; name: string; arguments: string }
  | { type: 'usage'; model: string; prompt_tokens: number; completion_tokens: number }

export interface LlmRequest {
  model: string | undefined
  messages: ChatMessage[]
  tools: ChatTool[]
  temperature: number
  maxTokens: number
}

export interface LlmClient {
  stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<LlmChunk>
  /** Opens a connection for the coming turn's request while the caller speaks (HTTP clients). */
  prewarm?(): void
}

export type ToolOutcome = { ok: true; output: unknown } | { ok: false; error: string }

/** How an action is offered to the LLM as a tool. */
export interface ToolSpec {
  description: string
  /** JSON Schema of the action's input, so the model sends arguments the action accepts. */
  parameters: Record<string, unknown>
}

/** A library tool's version as a run sees it: how it is offered to the LLM and what it runs. */
export interface LibraryTool {
  id: string
  version: number
  /** The function name the LLM sees. */
  name: string
  description: string
  parameters: Record<string, unknown>
  /** What it runs, for events and webhooks (`http`/`request` for an HTTP tool). */
  integration: string
  action: string
}

export interface ToolRunner {
  run(ref: { integration: string; action: string }, input: Record<string, unknown>, signal: AbortSignal): Promise<ToolOutcome>
  /** undefined (or no describe): the action is offered with an open schema, and its run explains any refusal. */
  describe?(ref: { integration: string; action: string }): ToolSpec | undefined
  /**
   * The version of a library tool a reference names (its pinned version, else the newest);
   * undefined when the organization has no such tool (or it was deleted and nothing pins it).
   */
  resolve?(ref: { tool_id: string; version?: number }): LibraryTool | undefined
  /** Runs a resolved library tool with the arguments (checked against its parameters first). */
  runLibrary?(tool: LibraryTool, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolOutcome>
}

export interface KnowledgeHit {
  document_id: string
  chunk_id: string
  text: string
  score: number
}

export interface KnowledgeBase {
  search(query: string, topK: number, signal: AbortSignal, documentIds?: string[]): Promise<KnowledgeHit[]>
}

export interface RuntimeIO {
  /** Absent when no LLM is configured: deterministic nodes still run. */
  llm?: LlmClient
  tools?: ToolRunner
  knowledge?: KnowledgeBase
  now(): Date
}

/** Everything the runtime tells its caller, in order. */
export type RuntimeEvent =
  | { type: 'node'; node_id: string; node_type: string }
  | { type: 'text_delta'; text: string }
  /** A complete agent utterance (after its deltas, when it came from the LLM). */
  | { type: 'say'; text: string; source: 'static' | 'llm' | 'knowledge' }
  | { type: 'variable'; name: string; value: unknown }
  /** `tool`: the library tool called (api/tools), with the version that ran. */
  | {
      type: 'tool_call'
      call_id: string
      integration: string
      action: string
      input: Record<string, unknown>
      tool?: { id: string; name: string; version: number }
    }
  | { type: 'tool_result'; call_id: string; ok: boolean; output?: unknown; error?: string }
  | { type: 'knowledge'; query: string; hits: number }
  | { type: 'transfer'; target: string; mode: 'cold' | 'warm' }
  /** Keys a `dtmf` node pressed (dtmf-keys.ts): sent on a phone line once what the agent said before them is heard. */
  | { type: 'agent_dtmf'; digits: string }
  | { type: 'usage'; model: string; prompt_tokens: number; completion_tokens: number }
  | { type: 'end'; disposition: string }
  | { type: 'error'; code: string; message: string; retryable: boolean }
