import { z } from 'zod'
import { jsonExcess } from '../../engine/graph-runtime/index.js'
import { FREE_FORM, boundedJson, boundedJsonObject } from '../http/bounded-json.js'
import { EVENT_TYPES } from '../webhooks/catalog.js'
import { checkFilter, type Problem } from './filter.js'
import { checkMapping } from './mapping.js'

/** Automations per environment: a bound on the fan-out of one event. */
export const MAX_AUTOMATIONS = 50
export const MAX_RUN_PAGE = 100
export const FILTER_BOUNDS = { maxDepth: 32, maxBytes: 16 * 1024 } as const
export const MAPPING_BOUNDS = { maxDepth: 8, maxBytes: 64 * 1024 } as const

const NAMES = EVENT_TYPES.map((e) => e.type) as [string, ...string[]]
export const EventName = z.enum(NAMES)

const report = (ctx: z.RefinementCtx, base: (string | number)[], problems: Problem[] | undefined) => {
  for (const p of problems ?? []) ctx.addIssue({ code: 'custom', message: p.msg, path: [...base, ...p.path] })
}

const Filter = boundedJson(FILTER_BOUNDS)
  .nullable()
  .superRefine((f, ctx) => {
    // Over its bounds it is already refused; the checks below walk only values within them.
    if (f !== null && !jsonExcess(f, FILTER_BOUNDS)) report(ctx, [], checkFilter(f))
  })
  .describe(
    'JSON Logic over the event as { event, data } (the body a webhook receives), e.g. {"==": [{"var": "data.status"}, "completed"]}. ' +
      `null: every event of the type. At most ${FILTER_BOUNDS.maxBytes} bytes; no method or log operator; no iterator inside another's body.`,
  )

export const AutomationTrigger = z
  .object({
    event: EventName.describe('The event type that starts a run (GET /api/v1/webhooks/events).'),
    filter: Filter.default(null),
  })
  .strict()
  .meta({ id: 'AutomationTrigger' })

const Mapping = boundedJsonObject(MAPPING_BOUNDS).describe(
  "The action's input (its input_schema in GET /api/v1/integrations). Strings are mustache templates over { event, data } ({{data.summary}}); " +
    '{"$value": "data.structured_data"} copies a value as it is. Rendered at each attempt. ' +
    `At most ${MAPPING_BOUNDS.maxBytes} bytes, ${MAPPING_BOUNDS.maxDepth} levels deep.`,
)

export const AutomationAction = z
  .object({
    integration: z.string().max(40).describe('Integration key, e.g. slack.'),
    action: z.string().max(60).describe('Action name, e.g. post_message.'),
    input: Mapping,
  })
  .strict()
  .superRefine((a, ctx) => {
    if (jsonExcess(a.input, MAPPING_BOUNDS)) return
    const problems = checkMapping(a.integration, a.action, a.input)
    report(ctx, ['integration'], problems.integration)
    report(ctx, ['action'], problems.action)
    report(ctx, ['input'], problems.input)
  })
  .meta({ id: 'AutomationAction' })

const Name = z.string().trim().min(1).max(100)
const Description = z.string().trim().max(500)

export const AutomationCreate = z
  .object({
    name: Name,
    description: Description.optional(),
    trigger: AutomationTrigger,
    action: AutomationAction,
    enabled: z.boolean().default(true),
  })
  .strict()
  .meta({ id: 'AutomationCreate' })

export const AutomationUpdate = z
  .object({
    name: Name.optional(),
    description: Description.nullable().optional(),
    trigger: AutomationTrigger.optional().describe('Replaces the trigger whole.'),
    action: AutomationAction.optional().describe('Replaces the action whole.'),
    enabled: z.boolean().optional().describe('false: no new runs, and pending runs wait until it is enabled again.'),
  })
  .strict()
  .meta({ id: 'AutomationUpdate' })

export const RUN_STATUSES = ['pending', 'running', 'succeeded', 'failed'] as const

const RunSummary = z.object({ id: z.uuid(), status: z.enum(RUN_STATUSES), created_at: z.iso.datetime() })

export const AutomationResponse = z
  .object({
    id: z.uuid(),
    name: z.string(),
    description: z.string().nullable(),
    enabled: z.boolean(),
    trigger: z.object({ event: z.string(), filter: z.unknown().describe('JSON Logic, or null.') }),
    action: z.object({ integration: z.string(), action: z.string(), input: z.record(z.string(), z.unknown()) }),
    last_run: RunSummary.nullable().describe('The newest run, if any.'),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'AutomationResponse' })

export const AutomationAttemptResponse = z
  .object({
    number: z.number().int(),
    trigger: z
      .enum(['event', 'backoff', 'retry', 'resume'])
      .describe('event: the first; backoff: an automatic retry; retry: asked for; resume: after a restart.'),
    started_at: z.iso.datetime(),
    finished_at: z.iso.datetime().nullable(),
    outcome: z.enum(['succeeded', 'failed', 'interrupted']).nullable().describe('null while in flight.'),
    input: z.record(z.string(), z.unknown()).nullable().describe('The input the action was given (null when the mapping could not be rendered).'),
    output: z.unknown().describe("The action's output (see its output description); null when none."),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    duration_ms: z.number().int().nullable(),
  })
  .meta({ id: 'AutomationAttemptResponse' })

export const AutomationRunResponse = z
  .object({
    id: z.uuid(),
    automation_id: z.uuid(),
    event_type: z.string(),
    status: z.enum(RUN_STATUSES),
    attempt_count: z.number().int(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
    finished_at: z.iso.datetime().nullable(),
    last_attempt: AutomationAttemptResponse.nullable(),
  })
  .meta({ id: 'AutomationRunResponse' })

export const AutomationRunDetail = AutomationRunResponse.extend({
  payload: z.object({ event: z.string(), data: z.record(z.string(), z.unknown()) }).describe('The event the run is for, as a webhook receives it.'),
  attempts: z.array(AutomationAttemptResponse).describe('Every attempt, oldest first.'),
}).meta({ id: 'AutomationRunDetail' })

export const AutomationRunPage = z
  .object({
    items: z.array(AutomationRunResponse).describe('Newest first.'),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
  })
  .meta({ id: 'Page_AutomationRunResponse_' })

export const RunQuery = z.object({
  status: z.enum(RUN_STATUSES).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_RUN_PAGE).default(25).describe(`At most ${MAX_RUN_PAGE}.`),
  offset: z.coerce.number().int().min(0).max(1_000_000_000).default(0),
})

export const AutomationTestRequest = z
  .object({
    data: boundedJsonObject(FREE_FORM.actionInput)
      .optional()
      .describe("A sample event payload (the event's data); left out: the catalog's example for the trigger's event."),
  })
  .strict()
  .meta({ id: 'AutomationTestRequest' })

export const AutomationTestResponse = z
  .object({
    matched: z.boolean().describe('Whether the filter lets this event through.'),
    input: z.record(z.string(), z.unknown()).nullable().describe('The input the action would be given; null when the mapping could not be rendered.'),
    problems: z
      .array(z.object({ loc: z.array(z.union([z.string(), z.number()])), msg: z.string() }))
      .describe("Where the rendered input breaks the action's input schema, or why it could not be rendered. Nothing is sent."),
  })
  .meta({ id: 'AutomationTestResponse' })

export const AutomationPath = z.object({ automation_id: z.uuid() })
export const RunPath = z.object({ automation_id: z.uuid(), run_id: z.uuid() })

export type AutomationCreateT = z.output<typeof AutomationCreate>
export type AutomationUpdateT = z.output<typeof AutomationUpdate>
export type AutomationResponseT = z.output<typeof AutomationResponse>
export type AutomationRunResponseT = z.output<typeof AutomationRunResponse>
export type AutomationRunDetailT = z.output<typeof AutomationRunDetail>
export type AutomationAttemptResponseT = z.output<typeof AutomationAttemptResponse>
export type AutomationTestResponseT = z.output<typeof AutomationTestResponse>
export type RunQueryT = z.output<typeof RunQuery>
