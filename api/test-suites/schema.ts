import { z } from 'zod'
import { FREE_FORM, boundedJson } from '../http/bounded-json.js'
import { DEFAULT_PAGE_LIMITS, pageQuery } from '../http/paging.js'

/** Bounds of a suite (docs/test-suites.md, "Limits"). */
export const TEST_SUITE_LIMITS = {
  suitesPerEnvironment: 200,
  casesPerSuite: 50,
  scriptedTurns: 30,
  simulatedTurns: 20,
  assertionsPerCase: 30,
  toolResultsPerCase: 20,
  /** Runs queued or running at once in one environment; one more is 409 test_run_limit. */
  activeRunsPerEnvironment: 10,
} as const

const Line = z.string().trim().min(1).max(2000)
const Name = z.string().trim().min(1).max(64)
const NodeId = z.string().min(1).max(64)
const JsonValue = boundedJson(FREE_FORM.variable)

const ScriptedCaller = z
  .object({
    type: z.literal('scripted'),
    turns: z
      .array(
        z.union([
          Line,
          z
            .object({
              text: Line,
              interrupt_after_ms: z
                .int()
                .min(0)
                .max(30_000)
                .describe('Voice runs: say this line this long after the agent starts answering the previous one, over it (a barge-in), instead of after it.'),
            })
            .meta({ id: 'InterruptingLine' }),
        ]),
      )
      .min(1)
      .max(TEST_SUITE_LIMITS.scriptedTurns)
      .describe('The caller’s lines, said one per turn in this order.'),
  })
  .meta({ id: 'ScriptedCaller' })

const SimulatedCaller = z
  .object({
    type: z.literal('simulated'),
    persona: z.string().trim().min(1).max(4000).describe('Who the caller is and how they talk.'),
    goal: z.string().trim().min(1).max(2000).describe('What the caller wants; they hang up once it is reached.'),
    max_turns: z.int().min(1).max(TEST_SUITE_LIMITS.simulatedTurns).default(8).describe('Caller turns at most.'),
    model: z.string().min(1).max(100).optional().describe('The LLM playing the caller; default: the agent’s model.'),
  })
  .meta({ id: 'SimulatedCaller', description: 'An LLM plays the caller: it is given the persona and the goal and says one line per turn.' })

export const TestAssertion = z
  .discriminatedUnion('type', [
    z
      .object({
        type: z.literal('path'),
        nodes: z.array(NodeId).min(1).max(50),
        match: z
          .enum(['in_order', 'exact'])
          .default('in_order')
          .describe('in_order: these nodes were entered in this order, others between; exact: exactly these.'),
      })
      .meta({ title: 'path', description: 'The path through named nodes.' }),
    z
      .object({
        type: z.literal('variable'),
        name: Name,
        equals: JsonValue.optional().describe('The value expected (JSON equality); left out: any value but null.'),
      })
      .meta({ title: 'variable', description: 'A variable extracted by the end of the case.' }),
    z
      .object({ type: z.literal('said'), text: Line })
      .meta({ title: 'said', description: 'The agent said this (a case-insensitive match inside one of its lines, spacing aside).' }),
    z.object({ type: z.literal('not_said'), text: Line }).meta({ title: 'not_said', description: 'The agent never said this.' }),
    z
      .object({
        type: z.literal('tool_called'),
        integration: Name,
        action: Name,
        arguments: z.record(z.string().max(64), JsonValue).optional().describe('Each of these arguments had this value (others may be present).'),
        times: z.int().min(0).max(100).optional().describe('Exactly this many matching calls; left out: at least one. 0: never called.'),
      })
      .meta({ title: 'tool_called', description: 'A tool called with these arguments.' }),
    z
      .object({ type: z.literal('ended'), disposition: z.string().min(1).max(100).optional() })
      .meta({ title: 'ended', description: 'The call ended (by the agent), with this disposition when given.' }),
    z
      .object({ type: z.literal('rubric'), criteria: z.string().trim().min(1).max(2000) })
      .meta({ title: 'rubric', description: 'An LLM judges the transcript against the criteria: pass or fail, with its reason.' }),
    z.object({ type: z.literal('latency'), max_response_ms: z.int().min(1).max(60_000) }).meta({
      title: 'latency',
      description: 'Voice runs only: every agent response began within this many ms of the end of the caller’s speech (not applicable over text).',
    }),
  ])
  .meta({ id: 'TestAssertion' })

const ToolResult = z
  .object({
    integration: Name,
    action: Name,
    output: boundedJson(FREE_FORM.actionInput).optional().describe('What the tool answers (default null).'),
    error: z.string().min(1).max(2000).optional().describe('Answer with this error instead of an output.'),
  })
  .meta({ id: 'TestToolResult' })

export const TestCase = z
  .object({
    name: z.string().trim().min(1).max(120),
    caller: z.discriminatedUnion('type', [ScriptedCaller, SimulatedCaller]),
    variables: z
      .record(z.string().max(64), JsonValue)
      .refine((v) => Object.keys(v).length <= 200, 'At most 200 variables')
      .default({})
      .describe('Values seeding the agent’s declared variables, as a session’s.'),
    tool_results: z
      .array(ToolResult)
      .max(TEST_SUITE_LIMITS.toolResultsPerCase)
      .default([])
      .describe('What a tool answers in this case instead of running. A tool not listed runs only when the suite has live_tools.'),
    assertions: z.array(TestAssertion).max(TEST_SUITE_LIMITS.assertionsPerCase).default([]),
  })
  .meta({ id: 'TestCase' })

const Cases = z
  .array(TestCase)
  .min(1)
  .max(TEST_SUITE_LIMITS.casesPerSuite)
  .superRefine((cases, ctx) => {
    const seen = new Set<string>()
    cases.forEach((c, i) => {
      if (seen.has(c.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: 'Case names must be unique in a suite' })
      seen.add(c.name)
    })
  })

const suiteFields = {
  name: z.string().trim().min(1).max(120),
  description: z.string().trim().max(2000).nullable(),
  workflow_uuid: z.uuid().describe('The agent under test, of the request’s environment.'),
  use_draft: z.boolean().describe('Runs test the agent’s draft.'),
  version: z.int().min(1).nullable().describe('Runs test this published version; null (and use_draft false): the newest published one when the run starts.'),
  live_tools: z
    .boolean()
    .describe('Tools without a tool_results answer really run (integration actions with the stored credentials). Default false: they answer an error.'),
  judge_model: z.string().min(1).max(100).nullable().describe('The LLM judging rubric assertions; null: the agent’s model.'),
  cases: Cases,
}

const oneTarget = (v: { use_draft?: boolean; version?: number | null }) => !(v.use_draft && v.version != null)
const oneTargetIssue = { message: 'Give use_draft or version, not both', path: ['version'] }

export const TestSuiteCreate = z
  .object({
    ...suiteFields,
    description: suiteFields.description.default(null),
    use_draft: suiteFields.use_draft.default(false),
    version: suiteFields.version.default(null),
    live_tools: suiteFields.live_tools.default(false),
    judge_model: suiteFields.judge_model.default(null),
  })
  .refine(oneTarget, oneTargetIssue)
  .meta({ id: 'TestSuiteCreate' })

export const TestSuiteUpdate = z
  .object(
    Object.fromEntries(Object.entries(suiteFields).map(([k, v]) => [k, v.optional()])) as {
      [K in keyof typeof suiteFields]: z.ZodOptional<(typeof suiteFields)[K]>
    },
  )
  .refine(oneTarget, oneTargetIssue)
  .meta({ id: 'TestSuiteUpdate', description: 'Fields left out stay as they are; cases, when given, replace the suite’s cases whole.' })

export const TestSuiteResponse = z
  .object({
    id: z.uuid(),
    ...suiteFields,
    cases: z.array(TestCase),
    last_run: z
      .object({ id: z.uuid(), status: z.enum(['queued', 'running', 'passed', 'failed']), mode: z.enum(['text', 'voice']), created_at: z.iso.datetime() })
      .nullable()
      .describe('The newest run, if any.'),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'TestSuiteResponse' })

export const TestSuitePath = z.object({ suite_id: z.uuid() })
export const TestSuiteListQuery = z.object(pageQuery(DEFAULT_PAGE_LIMITS))

export type TestCaseT = z.output<typeof TestCase>
export type ScriptedLine = Extract<TestCaseT['caller'], { type: 'scripted' }>['turns'][number]
/** A scripted line's words (an interrupting line's too). */
export const lineText = (l: ScriptedLine): string => (typeof l === 'string' ? l : l.text)
export type TestAssertionT = z.output<typeof TestAssertion>
export type TestSuiteCreateT = z.output<typeof TestSuiteCreate>
export type TestSuiteUpdateT = z.output<typeof TestSuiteUpdate>
export type TestSuiteResponseT = z.output<typeof TestSuiteResponse>
export type SuiteSettings = { live_tools: boolean; judge_model: string | null }
