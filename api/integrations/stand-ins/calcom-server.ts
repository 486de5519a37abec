/**
 * A local stand-in for the Cal.com API v2 booking endpoint, `POST /v2/bookings` with
 * `cal-api-version: 2024-08-13` and `Authorization: Bearer <api key>`. It validates the body as
 * Cal.com does (start in ISO 8601 UTC, a known eventTypeId, an attendee with name, email and an
 * IANA time zone, optional guests, lengthInMinutes, location, metadata, bookingFieldsResponses),
 * refuses a second booking of the same slot, and answers 201 `{ status: "success", data: booking }`
 * or Cal.com's error envelope `{ status: "error", timestamp, path, error: { code, message } }`.
 */
import { createHash } from 'node:crypto'
import { startStandIn, type Answer, type InjectedFailure, type LoggedRequest } from './stand-in-http.js'

export type { InjectedFailure, LoggedRequest } from './stand-in-http.js'

export interface CalEventType {
  id: number
  slug: string
  title: string
  lengthInMinutes: number
}

export interface CalcomStandInOptions {
  apiKey: string
  eventTypes?: CalEventType[]
  host?: string
  port?: number
}

export interface CalBooking {
  id: number
  uid: string
  title: string
  status: 'accepted'
  start: string
  end: string
  duration: number
  eventTypeId: number
  attendees: { name: string; email: string; timeZone: string; language: string; absent: boolean; phoneNumber?: string }[]
  guests: string[]
  [key: string]: unknown
}

export interface CalcomStandIn {
  /** API base URL (as https://api.cal.com); the endpoint is `${url}/v2/bookings`. */
  url: string
  requests: LoggedRequest[]
  bookings: CalBooking[]
  fail(...failures: InjectedFailure[]): void
  close(): Promise<void>
}

export const API_VERSION = '2024-08-13'
export const DEFAULT_EVENT_TYPES: CalEventType[] = [
  { id: 1001, slug: 'intro-call', title: 'Intro call', lengthInMinutes: 30 },
  { id: 1002, slug: 'consultation', title: 'Consultation', lengthInMinutes: 60 },
]
const HOST = { id: 7, name: 'Stand-in Host', email: 'host@cal.example', username: 'standin', timeZone: 'Europe/Istanbul' }
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
const UTC_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?Z$/

const STATUS_CODES: Record<number, string> = {
  400: 'BadRequestException',
  401: 'UnauthorizedException',
  404: 'NotFoundException',
  429: 'ThrottlerException',
  500: 'InternalServerErrorException',
  503: 'ServiceUnavailableException',
}

const validZone = (zone: string) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone })
    return true
  } catch {
    return false
  }
}

export async function startCalcomStandIn(o: CalcomStandInOptions): Promise<CalcomStandIn> {
  const eventTypes = o.eventTypes ?? DEFAULT_EVENT_TYPES
  const bookings: CalBooking[] = []
  let nextId = 501

  const error = (req: LoggedRequest, status: number, message: string, headers: Record<string, string> = {}): Answer => ({
    status,
    headers,
    body: { status: 'error', timestamp: new Date().toISOString(), path: req.path, error: { code: STATUS_CODES[status] ?? 'HttpException', message } },
  })

  const running = await startStandIn((req, failure) => {
    if (req.path !== '/v2/bookings' || req.method !== 'POST') return error(req, 404, `Cannot ${req.method} ${req.path}`)
    const auth = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1]
    if (auth !== o.apiKey)
      return error(req, 401, auth ? 'Invalid API Key' : 'No authentication method provided. Either pass an API key as Bearer token in the Authorization header')
    if (failure?.kind === 'status') {
      const headers: Record<string, string> = failure.retryAfterS !== undefined ? { 'retry-after': String(failure.retryAfterS) } : {}
      return error(req, failure.status, failure.status === 429 ? 'Too Many Requests' : 'Internal server error', headers)
    }
    if (req.headers['cal-api-version'] !== API_VERSION) return error(req, 400, `This stand-in speaks only cal-api-version ${API_VERSION}`)
    const b = req.body
    if (!b) return error(req, 400, 'Body must be a JSON object')
    const problem = validate(b)
    if (problem) return error(req, 400, problem)
    const eventType = eventTypes.find((e) => e.id === b.eventTypeId)
    if (!eventType) return error(req, 404, `Event type with id=${String(b.eventTypeId)} not found`)
    const startMs = Date.parse(b.start as string)
    const duration = typeof b.lengthInMinutes === 'number' ? b.lengthInMinutes : eventType.lengthInMinutes
    const start = new Date(startMs).toISOString()
    if (bookings.some((x) => x.eventTypeId === eventType.id && x.start === start)) {
      return error(req, 400, 'User either already has booking at this time or is not available')
    }
    const attendee = b.attendee as { name: string; email: string; timeZone: string; language?: string; phoneNumber?: string }
    const booking: CalBooking = {
      id: nextId++,
      // Derived from what was booked, so the same input gives the same uid across runs.
      uid: createHash('sha256').update(`${eventType.id}|${start}|${attendee.email.toLowerCase()}`).digest('base64url').slice(0, 22),
      title: `${eventType.title} between ${HOST.name} and ${attendee.name}`,
      description: '',
      hosts: [HOST],
      status: 'accepted',
      start,
      end: new Date(startMs + duration * 60_000).toISOString(),
      duration,
      eventTypeId: eventType.id,
      eventType: { id: eventType.id, slug: eventType.slug },
      location: typeof b.location === 'string' ? b.location : 'integrations:daily',
      absentHost: false,
      createdAt: new Date().toISOString(),
      attendees: [
        {
          name: attendee.name,
          email: attendee.email,
          timeZone: attendee.timeZone,
          language: attendee.language ?? 'en',
          absent: false,
          ...(attendee.phoneNumber && { phoneNumber: attendee.phoneNumber }),
        },
      ],
      guests: (b.guests as string[] | undefined) ?? [],
      bookingFieldsResponses: { name: attendee.name, email: attendee.email, ...(b.bookingFieldsResponses as Record<string, unknown> | undefined) },
      metadata: (b.metadata as Record<string, unknown> | undefined) ?? {},
    }
    bookings.push(booking)
    return { status: 201, body: { status: 'success', data: booking } }
  }, o)

  return { url: running.origin, requests: running.requests, bookings, fail: running.fail, close: running.close }
}

/** The first problem with a booking body, worded as Cal.com's validation messages are. */
function validate(b: Record<string, unknown>): string | null {
  if (typeof b.start !== 'string' || !UTC_ISO.test(b.start) || Number.isNaN(Date.parse(b.start)))
    return 'start must be a valid ISO 8601 date in UTC, e.g. 2024-08-13T09:00:00Z'
  if (typeof b.eventTypeId !== 'number' || !Number.isInteger(b.eventTypeId)) return 'eventTypeId must be an integer number'
  const a = b.attendee
  if (!a || typeof a !== 'object' || Array.isArray(a)) return 'attendee must be an object'
  const att = a as Record<string, unknown>
  if (typeof att.name !== 'string' || !att.name.trim()) return 'attendee.name must be a string'
  if (typeof att.email !== 'string' || !EMAIL.test(att.email)) return 'attendee.email must be an email'
  if (typeof att.timeZone !== 'string' || !validZone(att.timeZone)) return 'attendee.timeZone must be a valid IANA time zone'
  if (att.phoneNumber !== undefined && (typeof att.phoneNumber !== 'string' || !/^\+[1-9]\d{6,14}$/.test(att.phoneNumber)))
    return 'attendee.phoneNumber must be a valid phone number'
  if (b.guests !== undefined && (!Array.isArray(b.guests) || !b.guests.every((g) => typeof g === 'string' && EMAIL.test(g))))
    return 'each value in guests must be an email'
  if (b.lengthInMinutes !== undefined && (typeof b.lengthInMinutes !== 'number' || !Number.isInteger(b.lengthInMinutes) || b.lengthInMinutes < 1))
    return 'lengthInMinutes must be a positive integer'
  for (const k of ['metadata', 'bookingFieldsResponses'] as const) {
    if (b[k] !== undefined && (typeof b[k] !== 'object' || b[k] === null || Array.isArray(b[k]))) return `${k} must be an object`
  }
  return null
}
