/**
 * Cal.com: create a booking through API v2 (`POST /v2/bookings`, `cal-api-version: 2024-08-13`,
 * `Authorization: Bearer <api key>`). The input is flat (a graph's tool node passes strings) and is
 * mapped to Cal.com's nested body; `start` may carry any offset and is sent in UTC, as Cal.com
 * requires. Cal.com's error envelope `{ status: "error", error: { code, message } }` gives the
 * action's error code and message.
 */
import { z } from 'zod'
import { defineAction, endpoint, invalidResponse, jsonBody, type IntegrationDef } from './action.js'

export const CALCOM_API_URL = 'https://api.cal.com'
export const CALCOM_API_VERSION = '2024-08-13'

/** An integer given as a number or as digits (template-rendered inputs are strings). */
const integer = z.union([
  z.number().int().positive(),
  z
    .string()
    .regex(/^\d{1,12}$/, 'Must be a whole number')
    .transform(Number),
])

const createBooking = defineAction({
  name: 'create_booking',
  description: 'Book a slot of a Cal.com event type for an attendee.',
  input: z
    .object({
      event_type_id: integer.describe('Id of the Cal.com event type to book.'),
      start: z
        .string()
        .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/, {
          message: 'Must be an ISO 8601 date-time with a Z or an offset, e.g. 2026-12-01T12:00:00+03:00',
          abort: true,
        })
        .refine((s) => !Number.isNaN(Date.parse(s)), 'Must be a real date and time')
        .describe('Start of the booking; sent to Cal.com in UTC.'),
      name: z.string().trim().min(1).max(200).describe("Attendee's name."),
      email: z.email().describe("Attendee's email (Cal.com sends the confirmation there)."),
      time_zone: z
        .string()
        .refine((zone) => {
          try {
            return Boolean(new Intl.DateTimeFormat('en', { timeZone: zone }))
          } catch {
            return false
          }
        }, 'Must be an IANA time zone such as Europe/Istanbul')
        .default('UTC')
        .describe("Attendee's IANA time zone."),
      phone_number: z
        .string()
        .regex(/^\+[1-9]\d{6,14}$/, 'Must be an E.164 number such as +905551112233')
        .optional(),
      language: z
        .string()
        .regex(/^[a-z]{2}$/, 'A two-letter language code')
        .optional(),
      length_in_minutes: integer.optional().describe('For event types that offer several lengths.'),
      notes: z.string().max(2000).optional().describe('Sent as the booking field "notes".'),
    })
    .strict(),
  output:
    '{ booking: { id, uid, status, start, end, duration, title, event_type_id, location } }: the booking Cal.com created (uid identifies it in Cal.com links).',
  async run(input, ctx) {
    const attendee = {
      name: input.name,
      email: input.email,
      timeZone: input.time_zone,
      ...(input.phone_number && { phoneNumber: input.phone_number }),
      ...(input.language && { language: input.language }),
    }
    const body = {
      start: new Date(input.start).toISOString().replace('.000Z', 'Z'),
      eventTypeId: input.event_type_id,
      attendee,
      ...(input.length_in_minutes !== undefined && { lengthInMinutes: input.length_in_minutes }),
      ...(input.notes !== undefined && { bookingFieldsResponses: { notes: input.notes } }),
    }
    const res = await ctx.request({
      method: 'POST',
      url: endpoint(ctx.credential, CALCOM_API_URL, '/v2/bookings'),
      headers: { authorization: `Bearer ${ctx.credential!.api_key}`, 'cal-api-version': CALCOM_API_VERSION, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    const json = jsonBody(res)
    if (!json) return invalidResponse('Cal.com', res.status)
    if (res.status >= 300 || json.status !== 'success') {
      const err = (json.error ?? {}) as { code?: unknown; message?: unknown }
      const code = typeof err.code === 'string' ? err.code : `http_${res.status}`
      const message = typeof err.message === 'string' ? err.message.slice(0, 500) : `Cal.com answered HTTP ${res.status}.`
      return { ok: false, error: { code, message: `Cal.com refused the booking: ${message}` } }
    }
    const b = (json.data ?? {}) as Record<string, unknown>
    if (typeof b.uid !== 'string') return invalidResponse('Cal.com', res.status)
    return {
      ok: true,
      output: {
        booking: {
          id: b.id,
          uid: b.uid,
          status: b.status,
          start: b.start,
          end: b.end,
          duration: b.duration,
          title: b.title,
          event_type_id: b.eventTypeId,
          location: b.location ?? null,
        },
      },
    }
  },
})

export const calcomIntegration: IntegrationDef = {
  key: 'calcom',
  name: 'Cal.com',
  description: 'Book meetings in Cal.com (cal.com or a self-hosted instance via the credential base_url).',
  provider: 'calcom',
  actions: [createBooking],
}
