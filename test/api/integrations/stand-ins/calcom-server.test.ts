import t, { type Test } from 'tap'
import { API_VERSION, startCalcomStandIn, type CalcomStandIn } from '../../../../api/integrations/stand-ins/index.js'

const KEY = 'cal_live_standin_0123456789'

async function standIn(t: Test): Promise<CalcomStandIn> {
  const s = await startCalcomStandIn({ apiKey: KEY })
  t.teardown(() => s.close())
  return s
}

async function book(s: CalcomStandIn, body: unknown, o: { key?: string | null; version?: string | null } = {}) {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (o.key !== null) headers.authorization = `Bearer ${o.key ?? KEY}`
  if (o.version !== null) headers['cal-api-version'] = o.version ?? API_VERSION
  const res = await fetch(`${s.url}/v2/bookings`, { method: 'POST', headers, body: JSON.stringify(body) })
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> } // eslint-disable-line @typescript-eslint/no-explicit-any
}

const valid = (over: Record<string, unknown> = {}) => ({
  start: '2026-12-01T09:00:00Z',
  eventTypeId: 1001,
  attendee: { name: 'Ayşe Yılmaz', email: 'ayse@example.com', timeZone: 'Europe/Istanbul', language: 'tr' },
  ...over,
})

t.test('books a slot and answers 201 with a booking derived from the input', async (t) => {
  const s = await standIn(t)
  const res = await book(s, valid({ guests: ['guest@example.com'], metadata: { source: 'ozan' }, bookingFieldsResponses: { notes: 'first visit' } }))
  t.equal(res.status, 201)
  t.match(res.body, {
    status: 'success',
    data: {
      id: Number,
      uid: /^[\w-]{22}$/,
      status: 'accepted',
      start: '2026-12-01T09:00:00.000Z',
      end: '2026-12-01T09:30:00.000Z',
      duration: 30,
      eventTypeId: 1001,
      eventType: { slug: 'intro-call' },
      title: 'Intro call between Stand-in Host and Ayşe Yılmaz',
      attendees: [{ name: 'Ayşe Yılmaz', email: 'ayse@example.com', timeZone: 'Europe/Istanbul', language: 'tr' }],
      guests: ['guest@example.com'],
      metadata: { source: 'ozan' },
      bookingFieldsResponses: { notes: 'first visit', email: 'ayse@example.com' },
    },
  })
  const other = await book(s, valid({ start: '2026-12-01T10:00:00Z', eventTypeId: 1002, lengthInMinutes: 45 }))
  t.match(other.body.data, { end: '2026-12-01T10:45:00.000Z', duration: 45 })
  t.not(other.body.data.uid, res.body.data.uid)
  t.not(other.body.data.id, res.body.data.id)
  t.equal(s.bookings.length, 2)
  t.match(s.requests[0], { method: 'POST', path: '/v2/bookings', headers: { 'cal-api-version': API_VERSION }, body: { eventTypeId: 1001 }, status: 201 })
})

t.test('the same slot cannot be booked twice', async (t) => {
  const s = await standIn(t)
  t.equal((await book(s, valid())).status, 201)
  const again = await book(s, valid({ attendee: { name: 'B', email: 'b@example.com', timeZone: 'UTC' } }))
  t.equal(again.status, 400)
  t.match(again.body, { status: 'error', path: '/v2/bookings', error: { code: 'BadRequestException', message: /already has booking/ } })
})

t.test("authentication and version: Cal.com's error envelope", async (t) => {
  const s = await standIn(t)
  const none = await book(s, valid(), { key: null })
  t.equal(none.status, 401)
  t.match(none.body, { status: 'error', timestamp: String, error: { code: 'UnauthorizedException', message: /No authentication/ } })
  t.match((await book(s, valid(), { key: 'cal_live_wrong' })).body, { error: { code: 'UnauthorizedException', message: 'Invalid API Key' } })
  const old = await book(s, valid(), { version: null })
  t.equal(old.status, 400)
  t.match(old.body.error.message, /cal-api-version 2024-08-13/)
  t.equal(s.bookings.length, 0)
})

t.test('invalid bodies are refused naming the field', async (t) => {
  const s = await standIn(t)
  const cases: [Record<string, unknown>, number, RegExp][] = [
    [valid({ start: 'tomorrow at nine' }), 400, /^start must be/],
    [valid({ start: '2026-12-01T09:00:00+03:00' }), 400, /^start must be .*UTC/],
    [valid({ eventTypeId: '1001' }), 400, /^eventTypeId must be/],
    [valid({ attendee: { name: 'A', email: 'not-an-email', timeZone: 'UTC' } }), 400, /^attendee\.email/],
    [valid({ attendee: { name: 'A', email: 'a@example.com', timeZone: 'Mars/Olympus' } }), 400, /^attendee\.timeZone/],
    [valid({ attendee: { email: 'a@example.com', timeZone: 'UTC' } }), 400, /^attendee\.name/],
    [valid({ guests: ['nope'] }), 400, /guests must be an email/],
    [valid({ eventTypeId: 9999 }), 404, /Event type with id=9999 not found/],
  ]
  for (const [body, status, message] of cases) {
    const res = await book(s, body)
    t.equal(res.status, status, String(message))
    t.match(res.body.error.message, message)
  }
  t.equal(s.bookings.length, 0)
})

t.test('injected failures: a 500 in the envelope, a delay, a hang', async (t) => {
  const s = await standIn(t)
  s.fail({ kind: 'status', status: 500 }, { kind: 'delay', ms: 150 }, { kind: 'hang' })
  const failed = await book(s, valid())
  t.equal(failed.status, 500)
  t.match(failed.body, { status: 'error', error: { code: 'InternalServerErrorException' } })
  const started = performance.now()
  t.equal((await book(s, valid())).status, 201)
  t.ok(performance.now() - started >= 140, 'the delay was applied')
  const hung = await fetch(`${s.url}/v2/bookings`, { method: 'POST', headers: { authorization: `Bearer ${KEY}` }, signal: AbortSignal.timeout(200) }).catch(
    (e: Error) => e,
  )
  t.match(hung, { name: 'TimeoutError' })
})
