/**
 * The simulated caller: an LLM given a persona and a goal says the caller's next line, seeing the
 * conversation from the caller's side (the agent's lines as the other party's). It hangs up by
 * answering [END], or when it runs out of turns (the runner counts them).
 */
import type { ChatMessage, LlmClient } from '../../engine/graph-runtime/index.js'
import { completeText } from './llm-text.js'

export const HANG_UP = '[END]'

export function simulatorPrompt(persona: string, goal: string): string {
  return (
    'You are playing a caller talking to an AI voice agent, to test it. Stay in character throughout.\n' +
    `Who you are: ${persona}\n` +
    `What you want: ${goal}\n` +
    'Answer with only your next line as the caller: one or two short spoken sentences, no stage directions, no quotes. ' +
    `When your goal is reached, when the agent ends the conversation, or when it clearly cannot be reached, answer exactly ${HANG_UP}.`
  )
}

/** The conversation as the caller sees it: agent lines are the other party's (user), the caller's own are assistant. */
export function callerView(lines: { role: 'caller' | 'agent'; text: string }[]): ChatMessage[] {
  const out: ChatMessage[] = []
  for (const l of lines) {
    const role = l.role === 'agent' ? 'user' : 'assistant'
    const last = out.at(-1)
    if (last?.role === role) last.content += `\n${l.text}`
    else out.push({ role, content: l.text })
  }
  // The caller speaks after the agent; a call the agent opened silently starts with a placeholder.
  if (out[0]?.role !== 'user') out.unshift({ role: 'user', content: '(The call connects. The agent says nothing.)' })
  return out
}

/** The caller's next line, or null when it hangs up; `then` hang up: it said a last line with [END]. */
export async function nextCallerLine(
  llm: LlmClient,
  o: { persona: string; goal: string; model: string | undefined; lines: { role: 'caller' | 'agent'; text: string }[] },
  signal: AbortSignal,
): Promise<{ line: string | null; hangUpAfter: boolean; usage: { prompt_tokens: number; completion_tokens: number } }> {
  const answer = await completeText(
    llm,
    { model: o.model, maxTokens: 300, messages: [{ role: 'system', content: simulatorPrompt(o.persona, o.goal) }, ...callerView(o.lines)] },
    signal,
  )
  const at = answer.text.indexOf(HANG_UP)
  const said = (at >= 0 ? answer.text.slice(0, at) : answer.text).trim().slice(0, 2000)
  return { line: said || null, hangUpAfter: at >= 0, usage: answer.usage }
}
