import { z } from 'zod'
import { DEFAULT_PAGE_LIMITS, pageQuery } from '../http/paging.js'

export const TestRunRequest = z
  .object({
    mode: z
      .enum(['text', 'voice'])
      .default('text')
      .describe('text: through the graph runtime; voice: through the call engine as a web call, the caller’s lines spoken and the agent’s heard.'),
    cases: z
      .array(z.string().trim().min(1).max(120))
      .min(1)
      .max(50)
      .optional()
      .describe('Run only the cases of these names (each must exist); left out: every case.'),
  })
  .meta({ id: 'TestRunRequest' })

const Status = z.enum(['queued', 'running', 'passed', 'failed'])

export const TestRunResponse = z
  .object({
    id: z.uuid(),
    suite_id: z.uuid(),
    mode: z.enum(['text', 'voice']),
    status: Status.describe('queued → running → passed (every case passed) or failed (a case failed, or could not run: error).'),
    workflow_uuid: z.uuid(),
    version: z.int().nullable().describe('The version run; null: the draft.'),
    counts: z.object({
      total: z.int(),
      pending: z.int(),
      running: z.int(),
      passed: z.int(),
      failed: z.int(),
      error: z.int(),
    }),
    created_at: z.iso.datetime(),
    started_at: z.iso.datetime().nullable(),
    finished_at: z.iso.datetime().nullable(),
  })
  .meta({ id: 'TestRunResponse' })

const Line = z.object({
  role: z.enum(['caller', 'agent']),
  text: z.string(),
  node_id: z.string().nullable().describe('The node the agent was at when it said this; null for the caller.'),
  at_ms: z.number().nullable().describe('Voice runs: ms from the start of the call when the line began; null over text.'),
})

const AssertionResult = z.object({
  index: z.int(),
  type: z.string(),
  status: z.enum(['passed', 'failed', 'not_applicable']),
  reason: z.string(),
})

const TurnMetrics = z.object({
  turn: z.int(),
  caller_text: z.string(),
  heard: z.string().nullable().describe('What the engine’s speech-to-text made of the caller’s line.'),
  response_ms: z.number().nullable().describe('From the end of the caller’s speech to the first agent audio; null: the agent did not answer.'),
  barge_in: z.boolean().describe('The caller started speaking while the agent was still speaking.'),
})

export const TestCaseResult = z
  .object({
    position: z.int(),
    name: z.string(),
    status: z.enum(['pending', 'running', 'passed', 'failed', 'error']),
    reason: z.string().nullable().describe('Why it failed (the failed assertions) or could not run.'),
    error_code: z.string().nullable(),
    attempts: z.int(),
    started_at: z.iso.datetime().nullable(),
    finished_at: z.iso.datetime().nullable(),
    transcript: z.array(Line),
    assertions: z.array(AssertionResult),
    path: z.array(z.string()).describe('The nodes entered, in order.'),
    variables: z.record(z.string(), z.unknown()),
    tool_calls: z.array(z.object({ integration: z.string(), action: z.string(), arguments: z.record(z.string(), z.unknown()), ok: z.boolean().nullable() })),
    ended: z.object({ ended: z.boolean(), disposition: z.string().nullable(), by: z.enum(['agent', 'caller', 'turn_limit', 'error']).nullable() }),
    usage: z.object({ prompt_tokens: z.int(), completion_tokens: z.int() }),
    voice: z
      .object({
        turns: z.array(TurnMetrics),
        barge_ins: z.int(),
        response_ms_p50: z.number().nullable(),
        response_ms_max: z.number().nullable(),
        agent_heard: z
          .array(z.object({ after_turn: z.int(), text: z.string().nullable() }))
          .describe(
            'The agent’s audio transcribed by its own speech-to-text after the call: after_turn 0 is the opening, n the answer to caller turn n; null: nothing heard.',
          ),
      })
      .nullable()
      .describe('Voice runs: per-turn latency and turn-taking; null over text.'),
  })
  .meta({ id: 'TestCaseResult' })

export const TestRunDetail = TestRunResponse.extend({ cases: z.array(TestCaseResult) }).meta({ id: 'TestRunDetail' })

export const TestRunPath = z.object({ suite_id: z.uuid(), test_run_id: z.uuid() })
export const TestRunListQuery = z.object(pageQuery(DEFAULT_PAGE_LIMITS))

export type TestRunRequestT = z.output<typeof TestRunRequest>
export type TestRunResponseT = z.output<typeof TestRunResponse>
export type TestCaseResultT = z.output<typeof TestCaseResult>
/** What a finished case stores in its result column (the fields of TestCaseResult a run produces). */
export type CaseOutcome = Pick<TestCaseResultT, 'transcript' | 'assertions' | 'path' | 'variables' | 'tool_calls' | 'ended' | 'usage' | 'voice'>
