import type { ChatMessage, LlmClient } from '../../engine/graph-runtime/index.js'

/** A whole text answer of the LLM (the caller's simulator and the rubric judge need no streaming), with its tokens. */
export async function completeText(
  llm: LlmClient,
  request: { model: string | undefined; messages: ChatMessage[]; maxTokens: number },
  signal: AbortSignal,
): Promise<{ text: string; usage: { prompt_tokens: number; completion_tokens: number } }> {
  let text = ''
  const usage = { prompt_tokens: 0, completion_tokens: 0 }
  for await (const chunk of llm.stream({ ...request, tools: [], temperature: 0 }, signal)) {
    if (chunk.type === 'text') text += chunk.text
    else if (chunk.type === 'usage') {
      usage.prompt_tokens += chunk.prompt_tokens
      usage.completion_tokens += chunk.completion_tokens
    }
  }
  return { text: text.trim(), usage }
}

/** Transcript lines as the judge and the simulator read them, at most `maxChars` (the newest kept). */
export function transcriptText(lines: { role: 'caller' | 'agent'; text: string }[], maxChars = 60_000): string {
  const all = lines.map((l) => `${l.role === 'caller' ? 'Caller' : 'Agent'}: ${l.text}`).join('\n')
  return all.length <= maxChars ? all : `…${all.slice(all.length - maxChars)}`
}
