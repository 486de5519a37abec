import { createHmac } from 'node:crypto'
import t from 'tap'
import { ManualClock } from '../../../core/index.js'
import { createEndpoint, delivery, emit, receiver, settled, webhookApp, WH, type Captured } from './webhook-fixtures.js'

const T0 = Date.parse('2026-11-22T10:00:00Z')

/** The v1 values of a signature header, and its timestamp. */
function parseSignature(header: string | string[] | undefined): { t: number; v1: string[] } {
  const parts = String(header).split(',')
  return { t: Number(parts.find((p) => p.startsWith('t='))!.slice(2)), v1: parts.filter((p) => p.startsWith('v1=')).map((p) => p.slice(3)) }
}
const sign = (secret: string, ts: number, raw: Buffer) => createHmac('sha256', secret).update(`${ts}.`).update(raw).digest('hex')

function signedWith(c: Captured, secret: string): boolean {
  const { t: ts, v1 } = parseSignature(c.headers['x-ozan-signature'])
  return v1.includes(sign(secret, ts, c.raw))
}

t.test('a 2xx delivery: body, headers, signature, success recorded', async (t) => {
  const clock = new ManualClock(T0)
  const { a, owner } = await webhookApp(t, { clock })
  const r = await receiver(t)
  const ep = await createEndpoint(a, owner, { url: r.url('/ok'), headers: { 'X-Tenant': 'acme' }, auth_header: 'Bearer receiver-token' })
  emit(a, ep.id, 'workflow.published', { workflow_uuid: 'w1', name: 'Çağrı merkezi', version: 2 })
  emit(a, ep.id, 'session.started', { session_uuid: 's1' }) // not subscribed: no delivery
  const [got] = await r.waitFor(1)
  await settled(a)
  t.equal(r.seen.length, 1, 'only the subscribed type was sent')
  const body = JSON.parse(got!.raw.toString('utf8'))
  t.same(body, { event: 'workflow.published', data: { workflow_uuid: 'w1', name: 'Çağrı merkezi', version: 2, occurred_at: new Date(T0).toISOString() } })
  t.equal(got!.headers['x-ozan-event'], 'workflow.published')
  t.equal(got!.headers['content-type'], 'application/json')
  t.equal(got!.headers['x-tenant'], 'acme')
  t.equal(got!.headers.authorization, 'Bearer receiver-token')
  t.equal(parseSignature(got!.headers['x-ozan-signature']).t, T0 / 1000, 't is the send time in unix seconds')
  t.ok(signedWith(got!, ep.secret), 'v1 is the HMAC of "<t>.<raw body>" with the endpoint secret')

  const page = await a.request('GET', `${WH}/deliveries`, { token: owner.token })
  t.equal(page.status, 200)
  t.match(page.body, {
    total: 1,
    limit: 25,
    offset: 0,
    items: [{ id: Number(got!.headers['x-ozan-delivery']), endpoint_id: ep.id, event_type: 'workflow.published', status: 'succeeded', attempt_count: 1 }],
  })
  t.match(page.body.items[0].last_attempt, { number: 1, trigger: 'event', outcome: 'succeeded', response_status: 200, response_body: 'thanks', error: null })
})

t.test('failures: 500, redirect (not followed), timeout, unreachable; one attempt each', async (t) => {
  const { a, owner } = await webhookApp(t)
  const r = await receiver(t)
  const fail = await createEndpoint(a, owner, { url: r.url('/fail') })
  const redirect = await createEndpoint(a, owner, { url: r.url('/redirect') })
  const hang = await createEndpoint(a, owner, { url: r.url('/hang'), timeout_seconds: 1 })
  const dead = await createEndpoint(a, owner, { url: `http://127.0.0.1:1/` })
  const started = Date.now()
  emit(a, fail.id, 'workflow.published') // one event, four subscribed endpoints
  await settled(a)
  const took = Date.now() - started
  const page = (await a.request('GET', `${WH}/deliveries?status=failed`, { token: owner.token })).body
  t.equal(page.total, 4, 'all four failed')
  const byEndpoint = new Map<number, any>(page.items.map((d: any) => [d.endpoint_id, d])) // eslint-disable-line @typescript-eslint/no-explicit-any
  t.match(byEndpoint.get(fail.id).last_attempt, { outcome: 'failed', response_status: 500, error: /http_status/ })
  t.equal(byEndpoint.get(fail.id).last_attempt.response_body.length, 1024, 'the first 1 KiB of the answer is kept')
  t.match(byEndpoint.get(redirect.id).last_attempt, { outcome: 'failed', response_status: 302, error: /redirect.*not followed/ })
  t.match(byEndpoint.get(hang.id).last_attempt, { outcome: 'failed', response_status: null, error: /^timeout/ })
  const hangMs = byEndpoint.get(hang.id).last_attempt.duration_ms
  t.ok(hangMs >= 950 && hangMs < 2500, `the timeout fired close to 1 s (${hangMs} ms)`)
  t.match(byEndpoint.get(dead.id).last_attempt, { outcome: 'failed', response_status: null, error: /^unreachable/ })
  t.ok(took < 5000, 'nothing waited longer than the slowest timeout')
  t.same(r.seen.map((c) => c.path).sort(), ['/fail', '/hang', '/redirect'], 'the redirect target was never requested')
  for (const d of page.items) t.equal(d.attempt_count, 1, 'no automatic retry')
})

t.test('redelivery keeps the id and body, re-signs with a fresh timestamp, keeps every attempt', async (t) => {
  const clock = new ManualClock(T0)
  let answer = 500
  const { a, owner } = await webhookApp(t, { clock })
  // answer 0: hold the request until the attempt times out.
  const r = await receiver(t, { '/flaky': (_q, res) => (answer ? ((res.statusCode = answer), res.end(String(answer))) : undefined) })
  const ep = await createEndpoint(a, owner, { url: r.url('/flaky'), timeout_seconds: 1 })
  emit(a, ep.id, 'workflow.published', { v: 1 })
  await r.waitFor(1)
  await settled(a)
  const id = Number(r.seen[0]!.headers['x-ozan-delivery'])
  t.equal((await delivery(a, owner, id)).status, 'failed')

  answer = 200
  clock.advance(90_000)
  const redo = await a.request('POST', `${WH}/deliveries/${id}/redeliver`, { token: owner.token })
  t.equal(redo.status, 200)
  t.match(redo.body, { id, status: 'pending' })
  await r.waitFor(2)
  await settled(a)
  const [first, second] = r.seen
  t.equal(second!.headers['x-ozan-delivery'], String(id), 'same delivery id')
  t.ok(first!.raw.equals(second!.raw), 'same body bytes')
  t.equal(parseSignature(second!.headers['x-ozan-signature']).t, (T0 + 90_000) / 1000, 'fresh timestamp')
  t.not(second!.headers['x-ozan-signature'], first!.headers['x-ozan-signature'], 'fresh signature')
  t.ok(signedWith(second!, ep.secret))
  const detail = await delivery(a, owner, id)
  t.match(detail, { status: 'succeeded', attempt_count: 2 })
  t.match(detail.attempts, [
    { number: 1, trigger: 'event', outcome: 'failed', response_status: 500 },
    { number: 2, trigger: 'redeliver', outcome: 'succeeded', response_status: 200 },
  ])
  t.equal(detail.body, first!.raw.toString('utf8'), 'the detail shows the exact body')

  answer = 0
  t.equal((await a.request('POST', `${WH}/deliveries/${id}/redeliver`, { token: owner.token })).status, 200, 'a succeeded delivery can be sent again')
  await r.waitFor(3)
  const busy = await a.request('POST', `${WH}/deliveries/${id}/redeliver`, { token: owner.token })
  t.equal(busy.status, 409, 'not while it is pending')
  t.equal(busy.body.error.code, 'delivery_in_progress')
  await settled(a)
  t.match(await delivery(a, owner, id), { status: 'failed', attempt_count: 3, last_attempt: { trigger: 'redeliver', error: /^timeout/ } })
  t.equal((await a.request('POST', `${WH}/deliveries/999999/redeliver`, { token: owner.token })).status, 404)
})

t.test('secret rotation: two v1 signatures during the overlap, then only the new one', async (t) => {
  const clock = new ManualClock(T0)
  const { a, owner } = await webhookApp(t, { clock })
  const r = await receiver(t)
  const ep = await createEndpoint(a, owner, { url: r.url('/ok') })
  const rotated = await a.request('POST', `${WH}/endpoints/${ep.id}/rotate-secret`, { token: owner.token, body: { overlap_seconds: 600 } })
  t.equal(rotated.status, 200)
  t.not(rotated.body.secret, ep.secret)
  t.equal(rotated.body.previous_secret_expires_at, new Date(T0 + 600_000).toISOString())
  emit(a, ep.id, 'workflow.published')
  await r.waitFor(1)
  const during = parseSignature(r.seen[0]!.headers['x-ozan-signature'])
  t.equal(during.v1.length, 2, 'two v1 values')
  t.equal(during.v1[0], sign(rotated.body.secret, during.t, r.seen[0]!.raw), 'the new secret signs first')
  t.equal(during.v1[1], sign(ep.secret, during.t, r.seen[0]!.raw), 'the old one still signs')
  clock.advance(600_000)
  emit(a, ep.id, 'workflow.published')
  await r.waitFor(2)
  const after = parseSignature(r.seen[1]!.headers['x-ozan-signature'])
  t.same(after.v1, [sign(rotated.body.secret, after.t, r.seen[1]!.raw)], 'after the overlap only the new secret signs')
  const listed = (await a.request('GET', `${WH}/endpoints`, { token: owner.token })).body
  t.equal(listed[0].previous_secret_expires_at, null, 'an ended overlap is no longer shown')
  const now = await a.request('POST', `${WH}/endpoints/${ep.id}/rotate-secret`, { token: owner.token })
  t.equal(now.status, 200, 'the body is optional (24 h overlap)')
  t.equal(now.body.previous_secret_expires_at, new Date(clock.now() + 86_400_000).toISOString())
})

t.test('SSRF at send time: a name that later resolves to loopback is refused, nothing is sent', async (t) => {
  let address = '93.184.216.34'
  const { a, owner } = await webhookApp(t, { allowLoopback: false, resolve: async () => [{ address, family: 4 }] })
  const ep = await createEndpoint(a, owner, { url: 'https://hooks.customer.example/in' })
  address = '127.0.0.1'
  emit(a, ep.id, 'workflow.published')
  await settled(a)
  const page = (await a.request('GET', `${WH}/deliveries`, { token: owner.token })).body
  t.match(page.items[0].last_attempt, { outcome: 'failed', error: /destination_refused.*loopback/ })
})

t.test('list filters, paging and bounds', async (t) => {
  const { a, owner } = await webhookApp(t)
  const r = await receiver(t)
  const ok = await createEndpoint(a, owner, { url: r.url('/ok'), events: ['workflow.published', 'member.invited'] })
  const bad = await createEndpoint(a, owner, { url: r.url('/fail') })
  // Both endpoints are in one environment: each event reaches every endpoint subscribed to it.
  for (let i = 0; i < 4; i++) emit(a, ok.id, 'workflow.published', { i })
  emit(a, ok.id, 'member.invited', {})
  await settled(a)
  const get = (q: string) => a.request('GET', `${WH}/deliveries${q}`, { token: owner.token })
  t.equal((await get('')).body.total, 4 * 2 + 1, 'workflow.published to both endpoints, member.invited to one')
  const failed = (await get('?status=failed')).body
  t.equal(failed.total, 4)
  t.ok(failed.items.every((d: { endpoint_id: number }) => d.endpoint_id === bad.id))
  t.equal((await get('?event_type=member.invited')).body.total, 1)
  t.equal((await get(`?endpoint_id=${ok.id}&status=succeeded`)).body.total, 5)
  const page = (await get('?limit=2&offset=1')).body
  t.match(page, { total: 9, limit: 2, offset: 1 })
  const all = (await get('')).body.items.map((d: { id: number }) => d.id)
  t.same(
    page.items.map((d: { id: number }) => d.id),
    all.slice(1, 3),
    'newest first, offset then limit',
  )
  t.same(
    [...all].sort((x: number, y: number) => y - x),
    all,
  )
  for (const q of ['?limit=101', '?limit=0', '?offset=-1', '?status=lost', '?event_type=nope', '?limit=abc']) t.equal((await get(q)).status, 422, q)
  t.equal((await get('?limit=100')).status, 200)
})

t.test('a disabled endpoint gets nothing; re-enabled it gets new events', async (t) => {
  const { a, owner } = await webhookApp(t)
  const r = await receiver(t)
  const ep = await createEndpoint(a, owner, { url: r.url('/ok'), enabled: false })
  emit(a, ep.id, 'workflow.published')
  await settled(a)
  t.equal((await a.request('GET', `${WH}/deliveries`, { token: owner.token })).body.total, 0)
  await a.request('PATCH', `${WH}/endpoints/${ep.id}`, { token: owner.token, body: { enabled: true } })
  emit(a, ep.id, 'workflow.published')
  await r.waitFor(1)
  t.equal(r.seen.length, 1)
})

t.test('a receiver that hangs holds only its own slots: another endpoint gets every delivery at once', async (t) => {
  const { a, owner } = await webhookApp(t)
  const r = await receiver(t)
  await createEndpoint(a, owner, { url: r.url('/hang'), timeout_seconds: 5 })
  const fast = await createEndpoint(a, owner, { url: r.url('/ok') })
  const started = Date.now()
  for (let i = 0; i < 20; i++) emit(a, fast.id, 'workflow.published', { i })
  await r.waitFor(4 + 20, 4000)
  const okArrivals = r.seen.filter((c) => c.path === '/ok')
  t.equal(okArrivals.length, 20, 'all 20 reached the healthy endpoint')
  t.ok(Math.max(...okArrivals.map((c) => c.at)) - started < 2000, 'without waiting for the hanging one')
  t.equal(r.seen.filter((c) => c.path === '/hang').length, 4, 'the hanging endpoint holds at most 4 attempts in flight')
  const pending = (await a.request('GET', `${WH}/deliveries?status=pending`, { token: owner.token })).body
  t.equal(pending.total, 16, 'its other deliveries wait their turn in the outbox')
})

t.test('retention: finished deliveries older than OZAN_WEBHOOK_RETENTION_DAYS are deleted, pending ones kept', async (t) => {
  const clock = new ManualClock(T0)
  const { a, owner } = await webhookApp(t, { clock, env: { OZAN_WEBHOOK_RETENTION_DAYS: '30' } })
  const r = await receiver(t)
  const ep = await createEndpoint(a, owner, { url: r.url('/ok') })
  emit(a, ep.id, 'workflow.published')
  await r.waitFor(1)
  await settled(a)
  // A pending row the dispatcher has not been told about: it must survive any prune.
  const endpoint = a.services.repos.webhooks.endpointById(ep.id)!
  const pendingId = a.services.repos.webhooks.insertDelivery(endpoint, 'workflow.published', '{"event":"workflow.published","data":{}}', T0)
  clock.advance(29 * 86_400_000)
  t.equal(a.services.webhookDispatcher.prune(), 0, 'nothing is due at 29 days')
  clock.advance(2 * 86_400_000)
  t.equal(a.services.webhookDispatcher.prune(), 1, 'the succeeded delivery goes at 31 days')
  t.ok(a.services.repos.webhooks.deliveryById(pendingId), 'the pending one stays')
  t.equal((a.db.prepare('SELECT count(*) AS n FROM webhook_attempts').get() as { n: number }).n, 0, 'its attempts went with it')
})
