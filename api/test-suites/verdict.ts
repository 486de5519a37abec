/**
 * A case's verdict once its conversation is over (text or voice alike): the deterministic
 * assertions, then each rubric judged by the LLM, then passed or failed with the failed
 * assertions' reasons. A provider failure while judging makes the case an error, never a pass.
 */
import type { LlmClient } from '../../engine/graph-runtime/index.js'
import { type AssertionResult, checkAssertions, type VoiceMeasures } from './assertions.js'
import { judgeRubric } from './judge.js'
import type { Recording } from './recording.js'
import type { TestCaseT } from './schema.js'
import type { CaseOutcome } from './schema-runs.js'

export interface CaseEnd {
  status: 'passed' | 'failed' | 'error'
  reason: string | null
  errorCode: string | null
  outcome: CaseOutcome
}

/** A case that could not be run to a verdict: what it recorded so far, and why. */
export class CaseError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
    this.name = 'CaseError'
  }
}

export const NO_LLM = 'No LLM is configured for this organization: store an "openai" credential (PUT /api/v1/credentials) or set OZAN_OPENAI_API_KEY.'

export async function verdictOf(
  c: TestCaseT,
  rec: Recording,
  o: { llm: LlmClient | undefined; judgeModel: string | undefined; voice: VoiceMeasures | null; voiceOutcome?: CaseOutcome['voice']; signal: AbortSignal },
): Promise<CaseEnd> {
  const results = checkAssertions(c.assertions, rec, o.voice)
  const done: AssertionResult[] = []
  for (const [index, a] of c.assertions.entries()) {
    const checked = results[index]
    if (checked) {
      done.push(checked)
      continue
    }
    if (a.type !== 'rubric') continue
    if (!o.llm) throw new CaseError('provider_not_configured', `A rubric needs an LLM to judge it. ${NO_LLM}`)
    const verdict = await judgeRubric(o.llm, o.judgeModel, a.criteria, rec.transcript, o.signal)
    rec.usage.prompt_tokens += verdict.usage.prompt_tokens
    rec.usage.completion_tokens += verdict.usage.completion_tokens
    done.push({ index, type: 'rubric', ...verdict.result })
  }
  const failed = done.filter((r) => r.status === 'failed')
  const outcome = rec.outcome(done, o.voiceOutcome ?? null)
  if (!failed.length) return { status: 'passed', reason: null, errorCode: null, outcome }
  const reason = failed.map((r) => `#${r.index + 1} ${r.type}: ${r.reason}`).join(' ')
  return { status: 'failed', reason: reason.slice(0, 4000), errorCode: null, outcome }
}
