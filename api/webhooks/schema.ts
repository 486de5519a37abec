import { z } from 'zod'
import { EVENT_TYPES } from './catalog.js'

export const MAX_CUSTOM_HEADERS = 20
export const MAX_DELIVERY_PAGE = 100
/** Longest rotation overlap: a week is enough to roll a secret out to every receiver. */
export const MAX_OVERLAP_S = 7 * 86_400

const NAMES = EVENT_TYPES.map((e) => e.type) as [string, ...string[]]
const EventName = z.enum(NAMES)

// Header names the service sets itself, or that would change how the request is framed or routed.
const RESERVED_HEADERS = new Set([
  'x-ozan-signature',
  'x-ozan-event',
  'x-ozan-delivery',
  'host',
  'content-length',
  'content-type',
  'authorization',
  'user-agent',
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
  'cookie',
])
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,100}$/
// Visible ASCII, space and tab: no CR/LF (header injection) and nothing node would refuse to send.
const HEADER_VALUE = /^[\x20-\x7e\t]*$/

export const CustomHeaders = z
  .record(z.string(), z.string().max(1000).regex(HEADER_VALUE, 'Header values must be printable ASCII without line breaks'))
  .superRefine((headers, ctx) => {
    const names = Object.keys(headers)
    if (names.length > MAX_CUSTOM_HEADERS) ctx.addIssue({ code: 'custom', message: `At most ${MAX_CUSTOM_HEADERS} headers`, path: [] })
    const seen = new Set<string>()
    for (const name of names) {
      const lower = name.toLowerCase()
      if (!TOKEN.test(name)) ctx.addIssue({ code: 'custom', message: 'Not a valid header name', path: [name] })
      else if (RESERVED_HEADERS.has(lower) || lower.startsWith('x-ozan-'))
        ctx.addIssue({ code: 'custom', message: `${name} is set by the service and cannot be replaced (auth_header sets Authorization)`, path: [name] })
      else if (seen.has(lower)) ctx.addIssue({ code: 'custom', message: 'The same header twice (names are case-insensitive)', path: [name] })
      seen.add(lower)
    }
  })
  .describe(
    `Extra headers sent with every delivery (at most ${MAX_CUSTOM_HEADERS}). Readable by anyone who can read endpoints: put secrets in auth_header. ` +
      'Refused: X-Ozan-*, Host, Content-Length, Content-Type, Authorization, User-Agent, Cookie, Expect and hop-by-hop headers (case-insensitive).',
  )

const AuthHeader = z
  .string()
  .min(1)
  .max(4096)
  .regex(HEADER_VALUE, 'Must be printable ASCII without line breaks')
  .describe('Sent as the Authorization header, e.g. "Bearer abc…". Write-only: reads report only auth_header_set.')

const Url = z
  .url({ protocol: /^https?$/ })
  .max(2048)
  .describe('https; http only to an address inside OZAN_ALLOW_PRIVATE_CIDRS. Private, loopback and metadata addresses are refused unless allowed.')

export const EndpointCreate = z
  .object({
    url: Url,
    description: z.string().trim().max(500).optional(),
    events: z.array(EventName).min(1).max(NAMES.length).describe('Subscribed event types (GET /webhooks/events).'),
    timeout_seconds: z.number().int().min(1).max(300).default(10).describe('How long one attempt waits for the response.'),
    headers: CustomHeaders.default({}),
    auth_header: AuthHeader.optional(),
    enabled: z.boolean().default(true),
  })
  .meta({ id: 'EndpointCreate' })

export const EndpointUpdate = z
  .object({
    url: Url.optional(),
    description: z.string().trim().max(500).nullable().optional(),
    events: z.array(EventName).min(1).max(NAMES.length).optional(),
    timeout_seconds: z.number().int().min(1).max(300).optional(),
    headers: CustomHeaders.optional().describe('Replaces all custom headers.'),
    auth_header: AuthHeader.nullable().optional().describe('A new Authorization value; null removes it; leave out to keep it.'),
    enabled: z.boolean().optional(),
  })
  .meta({ id: 'EndpointUpdate' })

export const EndpointResponse = z
  .object({
    id: z.number().int(),
    url: z.string(),
    description: z.string().nullable(),
    events: z.array(z.string()),
    timeout_seconds: z.number().int(),
    headers: z.record(z.string(), z.string()),
    auth_header_set: z.boolean(),
    enabled: z.boolean(),
    previous_secret_expires_at: z.iso.datetime().nullable().describe('While set, deliveries are signed with the previous secret too.'),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'EndpointResponse' })

export const EndpointCreatedResponse = EndpointResponse.extend({
  secret: z.string().describe('The signing secret (whsec_…). Shown only here: store it now.'),
}).meta({ id: 'EndpointCreatedResponse' })

export const RotateSecretRequest = z
  .object({
    overlap_seconds: z
      .number()
      .int()
      .min(0)
      .max(MAX_OVERLAP_S)
      .default(86_400)
      .describe('How long deliveries also carry a signature made with the old secret (0: stop at once).'),
  })
  .meta({ id: 'RotateSecretRequest' })

export const EventResponse = z
  .object({ type: z.string(), description: z.string(), example: z.record(z.string(), z.unknown()).describe('An example `data` payload.') })
  .meta({ id: 'EventResponse' })

export const DELIVERY_STATUSES = ['pending', 'sending', 'succeeded', 'failed'] as const

export const AttemptResponse = z
  .object({
    number: z.number().int(),
    trigger: z
      .enum(['event', 'redeliver', 'resume'])
      .describe('event: the first send; redeliver: asked for; resume: resent after a restart interrupted an attempt.'),
    started_at: z.iso.datetime(),
    finished_at: z.iso.datetime().nullable(),
    outcome: z.enum(['succeeded', 'failed', 'interrupted']).nullable().describe('null while in flight.'),
    response_status: z.number().int().nullable(),
    error: z.string().nullable().describe('Why it failed: timeout, redirect (not followed), unreachable host, refused destination, non-2xx.'),
    duration_ms: z.number().nullable(),
    response_body: z.string().nullable().describe('The first 1 KiB of the response body.'),
  })
  .meta({ id: 'AttemptResponse' })

export const DeliveryResponse = z
  .object({
    id: z.number().int().describe('Sent as X-Ozan-Delivery; the same on every redelivery.'),
    endpoint_id: z.number().int(),
    event_type: z.string(),
    status: z.enum(DELIVERY_STATUSES),
    attempt_count: z.number().int(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
    last_attempt: AttemptResponse.nullable(),
  })
  .meta({ id: 'DeliveryResponse' })

export const DeliveryDetail = DeliveryResponse.extend({
  body: z.string().describe('The exact JSON body sent (the same bytes on every attempt).'),
  attempts: z.array(AttemptResponse).describe('Every attempt, oldest first.'),
}).meta({ id: 'DeliveryDetail' })

export const DeliveryPage = z
  .object({
    items: z.array(DeliveryResponse).describe('Newest first.'),
    total: z.number().int().describe('Deliveries matching the filters.'),
    limit: z.number().int(),
    offset: z.number().int(),
  })
  .meta({ id: 'Page_DeliveryResponse_' })

export const DeliveryQuery = z.object({
  event_type: EventName.optional(),
  status: z.enum(DELIVERY_STATUSES).optional(),
  endpoint_id: z.coerce.number().int().min(1).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_DELIVERY_PAGE).default(25).describe(`At most ${MAX_DELIVERY_PAGE}.`),
  offset: z.coerce.number().int().min(0).max(1_000_000_000).default(0),
})

const Id = z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER)
export const EndpointPath = z.object({ endpoint_id: Id })
export const DeliveryPath = z.object({ delivery_id: Id })

export type EndpointCreateT = z.output<typeof EndpointCreate>
export type EndpointUpdateT = z.output<typeof EndpointUpdate>
export type EndpointResponseT = z.output<typeof EndpointResponse>
export type EndpointCreatedResponseT = z.output<typeof EndpointCreatedResponse>
export type DeliveryResponseT = z.output<typeof DeliveryResponse>
export type DeliveryDetailT = z.output<typeof DeliveryDetail>
export type AttemptResponseT = z.output<typeof AttemptResponse>
export type DeliveryQueryT = z.output<typeof DeliveryQuery>
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number]
