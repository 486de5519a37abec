import { z } from 'zod'
import { FREE_FORM, boundedJson } from '../http/bounded-json.js'
import { SessionAnalysis } from '../analysis/view.js'
import { DEFAULT_EVENT_PAGE_LIMITS, DEFAULT_PAGE_LIMITS, pageQuery } from '../http/paging.js'

const Variables = z
  .record(z.string().max(64), boundedJson(FREE_FORM.variable))
  .refine((v) => Object.keys(v).length <= 200, 'At most 200 variables')
  .describe(
    `Values for declared variables; unknown names are ignored. Each value nests at most ${FREE_FORM.variable.maxDepth} levels and is at most ${FREE_FORM.variable.maxBytes} bytes of JSON.`,
  )

const Which = {
  use_draft: z.boolean().default(false).describe('Run the draft instead of the newest published version (for testing).'),
  version: z.number().int().min(1).optional().describe('Run this published version instead of the newest.'),
}

export const SessionStartRequest = z.object({ variables: Variables.default({}), ...Which }).meta({ id: 'SessionStartRequest' })

export const SessionMessageRequest = z.object({ text: z.string().trim().min(1).max(4000) }).meta({ id: 'SessionMessageRequest' })

export const TextRunRequest = z
  .object({
    input: z.string().trim().min(1).max(4000).optional().describe('The caller’s words; omitted: only the opening runs.'),
    variables: Variables.default({}),
    ...Which,
  })
  .meta({ id: 'TextRunRequest' })

const Message = z.object({ role: z.enum(['user', 'assistant']), text: z.string() }).meta({ id: 'TranscriptMessage' })

const turnFields = {
  session_id: z.uuid(),
  status: z.enum(['active', 'completed', 'failed']),
  messages: z.array(z.string()).describe('What the agent said in this turn, in order.'),
  reply: z.string().describe('messages joined with spaces.'),
  node_id: z.string().nullable().describe('The node now waiting for the caller; null once ended.'),
  variables: z.record(z.string(), z.unknown()),
  ended: z.boolean(),
  disposition: z.string().nullable(),
}

export const SessionStartResponse = z
  .object({ ...turnFields, workflow_id: z.uuid(), version: z.number().int().nullable().describe('null when the draft runs.') })
  .meta({ id: 'SessionStartResponse' })

export const SessionTurnResponse = z.object(turnFields).meta({ id: 'SessionTurnResponse' })

export const VoiceTurnResponse = z
  .object({
    ...turnFields,
    transcript: z.string().describe('What the speech-to-text provider heard; the turn ran with it as the caller’s message.'),
    audio: z
      .object({
        format: z.literal('wav'),
        sample_rate: z.literal(16000),
        channels: z.literal(1),
        duration_ms: z.number().int(),
        base64: z.string().describe('The whole WAV file (PCM16 mono 16 kHz), base64-encoded.'),
      })
      .nullable()
      .describe('The reply spoken by the agent’s TTS provider; null when the agent said nothing this turn.'),
  })
  .meta({ id: 'VoiceTurnResponse' })

export const TextRunResponse = z
  .object({
    ...turnFields,
    output: z.string().describe('Everything the agent said, opening included.'),
    workflow_id: z.uuid(),
    version: z.number().int().nullable(),
  })
  .meta({ id: 'TextRunResponse' })

export const RunSummary = z
  .object({
    id: z.uuid(),
    workflow_id: z.uuid().nullable().describe('null for a transient agent (POST /calls with an inline agent).'),
    version: z.number().int().nullable(),
    channel: z.enum(['chat', 'run', 'web', 'phone']),
    status: z.enum(['pending', 'active', 'completed', 'failed']).describe('pending: a web call created by POST /calls, not connected yet.'),
    disposition: z.string().nullable(),
    turn_count: z.number().int(),
    started_at: z.iso.datetime(),
    ended_at: z.iso.datetime().nullable(),
  })
  .meta({ id: 'RunSummary' })

export const SessionDetail = RunSummary.extend({
  node_id: z.string().nullable(),
  variables: z.record(z.string(), z.unknown()),
  transcript: z.array(Message),
  usage: z.object({ prompt_tokens: z.number().int(), completion_tokens: z.number().int() }),
  error_code: z.string().nullable(),
  analysis: SessionAnalysis,
}).meta({ id: 'SessionDetail' })

export const RunEventResponse = z
  .object({ seq: z.number().int(), kind: z.string(), data: z.record(z.string(), z.unknown()), created_at: z.iso.datetime() })
  .meta({ id: 'RunEventResponse' })

export const SessionPath = z.object({ workflow_uuid: z.uuid(), session_uuid: z.uuid() })
export const DEFAULT_SESSION_PAGE_LIMITS = DEFAULT_PAGE_LIMITS
export const SessionListQuery = z.object({
  workflow_uuid: z.uuid().optional(),
  status: z.enum(['pending', 'active', 'completed', 'failed']).optional(),
  channel: z.enum(['chat', 'run', 'web', 'phone']).optional(),
  ...pageQuery(DEFAULT_SESSION_PAGE_LIMITS),
})
export const SessionEventsQuery = z.object({ ...pageQuery(DEFAULT_EVENT_PAGE_LIMITS) })

export type TurnFields = { [K in keyof typeof turnFields]: z.output<(typeof turnFields)[K]> }
