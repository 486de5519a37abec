import type { AgentConfig } from './config.js'
import type { LlmClient, RuntimeEvent } from './io.js'

/** What a node that needs an LLM emits when none is configured (a text session answers the turn with the API error of that code). */
export function llmMissing(): RuntimeEvent {
  return {
    type: 'error',
    code: 'provider_not_configured',
    message: 'This node needs an LLM: store an OpenAI-compatible credential or set OZAN_OPENAI_API_KEY',
    retryable: false,
  }
}

export interface LineParams {
  llm: LlmClient
  /** The system prompt, its templates already rendered. */
  prompt: string
  config: AgentConfig
  emit: (e: RuntimeEvent) => void
  signal: AbortSignal
}

/**
 * One LLM completion meant to be spoken as a line (a first message, a knowledge answer): its
 * deltas and usage are emitted as they stream, and the whole text is returned, untrimmed.
 */
export async function completeLine(p: LineParams): Promise<string> {
  let text = ''
  const request = {
    model: p.config.llm.model,
    messages: [{ role: 'system' as const, content: p.prompt }],
    tools: [],
    temperature: p.config.llm.temperature,
    maxTokens: p.config.llm.max_tokens,
  }
  for await (const chunk of p.llm.stream(request, p.signal)) {
    if (chunk.type === 'text') {
      text += chunk.text
      p.emit({ type: 'text_delta', text: chunk.text })
    } else if (chunk.type === 'usage') p.emit(chunk)
  }
  return text
}
