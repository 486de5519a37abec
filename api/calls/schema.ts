import { z } from 'zod'
import { FREE_FORM, boundedJson } from '../http/bounded-json.js'
import { AgentConfig, Definition } from '../../engine/graph-runtime/index.js'
import { CostItem } from '../billing/schema.js'
import { SessionAnalysis } from '../analysis/view.js'

export const WebCallTokenRequest = z
  .object({
    workflow_uuid: z.uuid().describe('The agent to call; its newest published version runs.'),
    variables: z
      .record(z.string().max(64), boundedJson(FREE_FORM.variable))
      .refine((v) => Object.keys(v).length <= 200, 'At most 200 variables')
      .optional()
      .describe('Values for declared variables (at most 8 KiB of JSON); unknown names are ignored.'),
  })
  .meta({ id: 'WebCallTokenRequest' })

export const WebCallTokenResponse = z
  .object({
    token: z.string().describe('Single-use web-call token (JWT); it is already part of ws_url.'),
    ws_url: z.string().describe('Open a WebSocket here (protocol v1, docs/protocol.md). It holds the token: do not log it.'),
    expires_at: z.iso.datetime().describe('The token must be used (the socket opened) before this instant.'),
  })
  .meta({ id: 'WebCallTokenResponse' })

const Variables = z
  .record(z.string().max(64), boundedJson(FREE_FORM.variable))
  .refine((v) => Object.keys(v).length <= 200, 'At most 200 variables')
  .describe('Values for declared variables (at most 8 KiB of JSON); unknown names are ignored.')

export const CALL_CHANNELS = ['chat', 'web', 'phone'] as const
export const CALL_STATUSES = ['pending', 'active', 'completed', 'failed'] as const
/**
 * A phone call's progress in the words carriers use (docs/api.md "Phone calls"), derived from its
 * status and disposition: queued → ringing → in-progress → completed, or busy / no-answer /
 * canceled / failed.
 */
export const PHONE_STATUSES = ['queued', 'ringing', 'in-progress', 'completed', 'busy', 'no-answer', 'canceled', 'failed'] as const
export const MAX_CALL_PAGE = 100

export const CallCreate = z
  .object({
    channel: z.enum(CALL_CHANNELS).describe('chat: a text session, answered at once; web: a browser call (connect to ws_url); phone: needs telephony.'),
    workflow_uuid: z.uuid().optional().describe('A saved agent of the request’s environment; its newest published version runs.'),
    agent: z
      .object({ definition: Definition, config: AgentConfig.optional() })
      .optional()
      .describe('A transient agent, run as given and not saved (config defaults apply). Give this or workflow_uuid.'),
    variables: Variables.default({}),
    to: z.string().min(1).max(64).optional().describe('Phone calls: the number to dial (E.164, e.g. +905551234567).'),
    from: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .describe('Phone calls: one of the environment’s phone numbers (E.164); the call leaves through its SIP trunk and shows it as the caller.'),
  })
  .superRefine((b, ctx) => {
    if ((b.workflow_uuid === undefined) === (b.agent === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['workflow_uuid'], message: 'Give exactly one of workflow_uuid and agent' })
    }
  })
  .meta({ id: 'CallCreate' })

const callFields = {
  call_uuid: z.uuid().describe('The call’s id; it is also the session id (GET /sessions, webhooks’ session_uuid).'),
  channel: z.enum(['chat', 'run', 'web', 'phone']),
  status: z.enum(CALL_STATUSES).describe('pending (web call not connected yet) → active → completed | failed.'),
  workflow_uuid: z.uuid().nullable().describe('null for a transient agent.'),
  version: z.number().int().nullable().describe('The published version that runs; null for a transient agent or a draft run.'),
  transient: z.boolean(),
  phone_status: z
    .enum(PHONE_STATUSES)
    .nullable()
    .optional()
    .describe('Phone calls: queued → ringing → in-progress → completed, or busy, no-answer, canceled, failed. null for other channels.'),
}

export const CallResponse = z
  .object({
    ...callFields,
    created_at: z.iso.datetime(),
    variables: z.record(z.string(), z.unknown()),
    messages: z.array(z.string()).optional().describe('chat: what the agent said first. Continue with POST /calls/{call_uuid}/messages.'),
    ended: z.boolean().optional().describe('chat: the opening already ended the session.'),
    disposition: z.string().nullable().optional(),
    token: z.string().optional().describe('web: single-use token, already part of ws_url.'),
    ws_url: z.string().optional().describe('web: open a WebSocket here (protocol v1, docs/protocol.md). It holds the token: do not log it.'),
    expires_at: z.iso.datetime().optional().describe('web: connect before this instant, or the call fails with error_code not_connected.'),
  })
  .meta({ id: 'CallResponse' })

export const CallSummary = z
  .object({
    ...callFields,
    workflow_name: z.string().nullable(),
    disposition: z.string().nullable(),
    error_code: z.string().nullable(),
    turn_count: z.number().int(),
    started_at: z.iso.datetime().describe('When the call was created; for a web call created pending, when the browser connected.'),
    ended_at: z.iso.datetime().nullable(),
    duration_ms: z.number().int().nullable().describe('null while the call is pending or live.'),
  })
  .meta({ id: 'CallSummary' })

export const PageCallSummary = z
  .object({ items: z.array(CallSummary), total: z.number().int(), limit: z.number().int(), offset: z.number().int() })
  .meta({ id: 'Page_CallSummary_' })

const TurnLatency = z
  .object({
    turn: z.number().int(),
    duration_ms: z.number().int(),
    turn_id: z.string().optional(),
    endpointing_ms: z.number().int().nullable().optional(),
    stt_ms: z.number().int().nullable().optional(),
    llm_first_token_ms: z.number().int().nullable().optional(),
    tts_first_byte_ms: z.number().int().nullable().optional(),
    engine_ms: z.number().int().nullable().optional(),
    voice_to_voice_ms: z.number().int().nullable().optional(),
    barge_in_stop_ms: z.number().int().nullable().optional(),
    interrupted: z.boolean().optional(),
  })
  .meta({ id: 'CallTurnLatency' })

export const CallDetail = CallSummary.extend({
  variables: z.record(z.string(), z.unknown()),
  transcript: z.array(
    z
      .object({ role: z.enum(['user', 'assistant']), text: z.string(), turn_id: z.string().nullable(), interrupted: z.boolean() })
      .meta({ id: 'CallTranscriptLine' }),
  ),
  events: z.array(z.object({ seq: z.number().int(), kind: z.string(), data: z.record(z.string(), z.unknown()), created_at: z.iso.datetime() })),
  usage: z.object({ prompt_tokens: z.number().int(), completion_tokens: z.number().int() }),
  cost: z.object({
    prompt_tokens: z.number().int(),
    completion_tokens: z.number().int(),
    amount_minor: z.number().int().nullable().describe('Metered cost in minor units once the call has ended (api/billing); null before.'),
    currency: z.string().nullable(),
    items: z.array(CostItem).optional().describe('The itemised cost, each provider and unit used; present once metered.'),
  }),
  latency: z.object({ turns: z.array(TurnLatency), average_turn_ms: z.number().int().nullable() }),
  analysis: SessionAnalysis,
}).meta({ id: 'CallDetail' })

export const CallListQuery = z
  .object({
    channel: z
      .enum(['calls', 'chat', 'sessions'])
      .optional()
      .describe('calls: web and phone calls; chat: chat sessions; sessions (default): everything, text runs included.'),
    status: z.enum(CALL_STATUSES).optional(),
    q: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .optional()
      .describe('Matches the agent’s name, transcript text, variable names and values (numbers, names), or a call uuid prefix.'),
    since: z.iso.datetime({ offset: true }).optional().describe('Calls started at or after this instant.'),
    until: z.iso.datetime({ offset: true }).optional().describe('Calls started before this instant.'),
    limit: z.coerce.number().int().min(1).max(MAX_CALL_PAGE).default(25).describe(`At most ${MAX_CALL_PAGE}.`),
    offset: z.coerce.number().int().min(0).max(1_000_000_000).default(0),
  })
  .superRefine((q, ctx) => {
    if (q.since !== undefined && q.until !== undefined && Date.parse(q.until) <= Date.parse(q.since)) {
      ctx.addIssue({ code: 'custom', path: ['until'], message: 'until must be after since' })
    }
  })

export const CallPath = z.object({ call_uuid: z.uuid() })

export const CallControlRequest = z
  .discriminatedUnion('action', [
    z
      .object({
        action: z.literal('say'),
        text: z.string().trim().min(1).max(2000),
        interrupt: z.boolean().default(false).describe('true: cut the line being spoken (as a barge-in would); false: speak after it.'),
      })
      .strict(),
    z
      .object({
        action: z.literal('transfer'),
        target: z.string().trim().min(1).max(256).describe('A phone number, SIP URI or label; a web call hands it to the browser.'),
      })
      .strict(),
    z.object({ action: z.literal('end'), immediately: z.boolean().default(false).describe('false: end after the line being spoken; true: at once.') }).strict(),
  ])
  .meta({ id: 'CallControlRequest' })

export const CallControlResponse = z
  .object({ receivers: z.number().int().describe('Workers that received the message; 0 when the call has already ended (or has not connected yet).') })
  .meta({ id: 'CallControlResponse' })

export type CallCreateT = z.output<typeof CallCreate>
export type CallListQueryT = z.output<typeof CallListQuery>
export type CallControlRequestT = z.output<typeof CallControlRequest>
