/**
 * Rubric assertions: an LLM reads the transcript and the criteria and answers pass or fail with a
 * reason. An answer that is not the JSON asked for fails the assertion and says so, rather than
 * passing by default.
 */
import type { LlmClient } from '../../engine/graph-runtime/index.js'
import type { AssertionResult } from './assertions.js'
import { completeText, transcriptText } from './llm-text.js'

export const JUDGE_SYSTEM_PROMPT =
  'You judge a conversation between a caller and an AI voice agent against the given criteria. ' +
  'Judge only what the transcript shows. Answer with only a JSON object: {"pass": true or false, "reason": "one or two sentences"}.'

export interface Verdict {
  result: Pick<AssertionResult, 'status' | 'reason'>
  usage: { prompt_tokens: number; completion_tokens: number }
}

export async function judgeRubric(
  llm: LlmClient,
  model: string | undefined,
  criteria: string,
  transcript: { role: 'caller' | 'agent'; text: string }[],
  signal: AbortSignal,
): Promise<Verdict> {
  const answer = await completeText(
    llm,
    {
      model,
      maxTokens: 400,
      messages: [
        { role: 'system', content: JUDGE_SYSTEM_PROMPT },
        { role: 'user', content: `Criteria:\n${criteria}\n\nTranscript:\n${transcriptText(transcript) || '(nothing was said)'}` },
      ],
    },
    signal,
  )
  return { result: readVerdict(answer.text), usage: answer.usage }
}

/** The judge's answer as a result: the first JSON object in it, with a boolean pass and a reason. */
export function readVerdict(text: string): Pick<AssertionResult, 'status' | 'reason'> {
  const start = text.indexOf('{')
  const end = text.lastIndexOf('}')
  let parsed: unknown
  try {
    parsed = start >= 0 && end > start ? JSON.parse(text.slice(start, end + 1)) : undefined
  } catch {
    parsed = undefined
  }
  const v = parsed as { pass?: unknown; reason?: unknown } | undefined
  if (!v || typeof v.pass !== 'boolean')
    return { status: 'failed', reason: `The judge's answer was not a verdict ({"pass": …, "reason": …}): ${JSON.stringify(text.slice(0, 300))}.` }
  const reason = typeof v.reason === 'string' && v.reason.trim() ? v.reason.trim().slice(0, 2000) : '(the judge gave no reason)'
  return { status: v.pass ? 'passed' : 'failed', reason: `Judge: ${reason}` }
}
