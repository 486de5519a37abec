import t, { type Test } from 'tap'
import { API_VERSION, startCalcomStandIn } from '../../../api/integrations/stand-ins/index.js'
import { integrationApp, run, storeCredential } from './integration-fixtures.js'

const KEY = 'cal_live_ozan_integration_0123'

async function setup(t: Test, key = KEY) {
  const cal = await startCalcomStandIn({ apiKey: KEY })
  t.teardown(() => cal.close())
  const { a, owner } = await integrationApp(t, { allowLoopback: true })
  await storeCredential(a, owner, 'calcom', { api_key: key, base_url: cal.url })
  return { a, owner, cal }
}

const input = (over: Record<string, unknown> = {}) => ({
  event_type_id: '1002',
  start: '2026-12-01T12:00:00+03:00',
  name: 'Ayşe Yılmaz',
  email: 'ayse@example.com',
  time_zone: 'Europe/Istanbul',
  ...over,
})

t.test('create_booking sends Cal.com v2 its nested body in UTC and maps the booking', async (t) => {
  const { a, owner, cal } = await setup(t)
  const res = await run(a, owner, 'calcom', 'create_booking', input({ phone_number: '+905551112233', language: 'tr', notes: 'Kontrol randevusu' }))
  t.equal(res.status, 200, res.text)
  t.equal(cal.requests.length, 1)
  const sent = cal.requests[0]!
  t.equal(sent.path, '/v2/bookings')
  t.equal(sent.headers.authorization, `Bearer ${KEY}`)
  t.equal(sent.headers['cal-api-version'], API_VERSION)
  t.same(sent.body, {
    start: '2026-12-01T09:00:00Z',
    eventTypeId: 1002,
    attendee: { name: 'Ayşe Yılmaz', email: 'ayse@example.com', timeZone: 'Europe/Istanbul', phoneNumber: '+905551112233', language: 'tr' },
    bookingFieldsResponses: { notes: 'Kontrol randevusu' },
  })
  const made = cal.bookings[0]!
  t.same(res.body.output, {
    booking: {
      id: made.id,
      uid: made.uid,
      status: 'accepted',
      start: '2026-12-01T09:00:00.000Z',
      end: '2026-12-01T10:00:00.000Z',
      duration: 60,
      title: 'Consultation between Stand-in Host and Ayşe Yılmaz',
      event_type_id: 1002,
      location: 'integrations:daily',
    },
  })
  t.equal(res.body.ok, true)
})

t.test("Cal.com's refusals are ok false with its error code and message", async (t) => {
  const { a, owner, cal } = await setup(t)
  t.equal((await run(a, owner, 'calcom', 'create_booking', input())).body.ok, true)
  const taken = await run(a, owner, 'calcom', 'create_booking', input({ email: 'other@example.com' }))
  t.match(taken.body, { ok: false, error: { code: 'BadRequestException', message: /already has booking at this time/ } })
  const missing = await run(a, owner, 'calcom', 'create_booking', input({ event_type_id: 4242, start: '2026-12-02T09:00:00Z' }))
  t.match(missing.body, { ok: false, error: { code: 'NotFoundException', message: /id=4242 not found/ } })
  cal.fail({ kind: 'status', status: 503 })
  t.match((await run(a, owner, 'calcom', 'create_booking', input({ start: '2026-12-03T09:00:00Z' }))).body, {
    ok: false,
    error: { code: 'ServiceUnavailableException' },
  })
  t.equal(cal.bookings.length, 1)
})

t.test('a wrong API key is ok false UnauthorizedException', async (t) => {
  const { a, owner, cal } = await setup(t, 'cal_live_wrong_key_0000')
  const res = await run(a, owner, 'calcom', 'create_booking', input())
  t.match(res.body, { ok: false, output: null, error: { code: 'UnauthorizedException', message: /Invalid API Key/ } })
  t.equal(cal.requests[0]!.headers.authorization, 'Bearer cal_live_wrong_key_0000')
})

t.test('invalid input is 422 at each field, before Cal.com is called', async (t) => {
  const { a, owner, cal } = await setup(t)
  const res = await run(a, owner, 'calcom', 'create_booking', {
    event_type_id: 'abc',
    start: 'next monday',
    name: 'A',
    email: 'nope',
    time_zone: 'Mars/Olympus',
  })
  t.equal(res.status, 422)
  const locs = res.body.detail.map((d: { loc: unknown[] }) => d.loc.join('.'))
  t.same(locs.sort(), ['body.input.email', 'body.input.event_type_id', 'body.input.start', 'body.input.time_zone'])
  t.equal(cal.requests.length, 0)
  const action = await run(a, owner, 'calcom', 'cancel_booking', {})
  t.equal(action.status, 422)
  t.match(action.body.detail, [{ loc: ['body', 'action'], type: 'enum', msg: "Input should be 'create_booking'", input: 'cancel_booking' }])
})
