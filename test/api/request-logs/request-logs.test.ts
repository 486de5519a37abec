import { randomUUID } from 'node:crypto'
import t, { type Test } from 'tap'
import type { ManualClock } from '../../../core/index.js'
import { startTestApp, type Reply, type TestAppOptions } from '../../helpers/app.js'
import { addMember, createKey, newOwner } from '../../helpers/tenancy-fixtures.js'

const LOGS = '/api/v1/request-logs'
const DAY = 86_400_000
const iso = (ms: number) => new Date(ms).toISOString()
const rid = (r: Reply) => r.headers.get('x-request-id')!

interface Row {
  id: number
  method: string
  route: string
  status: number
  duration_ms: number
  request_id: string
  user_id: string | null
  api_key_id: string | null
  environment_id: string | null
}

async function setup(t: Test, o?: TestAppOptions) {
  const a = await startTestApp(o)
  t.teardown(() => a.close())
  const owner = await newOwner(a)
  const clock = a.clock as ManualClock
  const logs = async (query = '', auth: { token: string } | { apiKey: string } = { token: owner.token }) => {
    const res = await a.request('GET', `${LOGS}${query}`, auth)
    if (res.status !== 200) throw new Error(`GET ${LOGS}${query}: ${res.status} ${res.text}`)
    return res.body as { items: Row[]; total: number; limit: number; offset: number }
  }
  return { a, owner, clock, logs }
}

t.test('requests by a user and by an API key are logged with route template, status, duration and request id', async (t) => {
  const { a, owner, logs } = await setup(t)
  const key = await createKey(a, owner)
  const victim = await createKey(a, owner)
  const list = await a.request('GET', '/api/v1/api-keys', { token: owner.token })
  const del = await a.request('DELETE', `/api/v1/api-keys/${victim.id}`, { apiKey: key.key, headers: { 'x-environment-id': 'prod' } })
  t.equal(del.status, 204)

  const page = await logs()
  t.match(page, { total: Number, limit: 50, offset: 0 })
  t.same(Object.keys(page).sort(), ['items', 'limit', 'offset', 'total'])
  t.equal(page.total, page.items.length)
  const byId = (r: Reply) => page.items.find((x) => x.request_id === rid(r))
  t.match(byId(list), { method: 'GET', route: '/api/v1/api-keys', status: 200, user_id: owner.userId, api_key_id: null })
  const projects = (await a.request('GET', '/api/v1/projects', { token: owner.token })).body
  const prod = projects[0].environments.find((e: { slug: string }) => e.slug === 'prod').id
  t.match(byId(del), { method: 'DELETE', route: '/api/v1/api-keys/:key_id', status: 204, user_id: owner.userId, api_key_id: key.id, environment_id: prod })
  for (const row of page.items) t.ok(row.duration_ms >= 0 && row.duration_ms < 10_000, `duration_ms ${row.duration_ms}`)
  t.notOk(
    page.items.some((x) => x.route.includes(victim.id)),
    'the route is the template, never the concrete path',
  )
  t.same(
    page.items.map((x) => x.id),
    page.items.map((x) => x.id).sort((x, y) => y - x),
    'newest first',
  )
})

t.test('filters: method, status, api_key_id, since, until; limit and offset', async (t) => {
  const { a, owner, clock, logs } = await setup(t)
  const key = await createKey(a, owner) // POST 201 by the owner
  clock.advance(60_000)
  const t1 = clock.now()
  const missing = await a.request('DELETE', `/api/v1/api-keys/${randomUUID()}`, { apiKey: key.key }) // 404 by the key
  clock.advance(60_000)
  const t2 = clock.now()
  const mine = await a.request('GET', '/api/v1/api-keys', { apiKey: key.key }) // 200 by the key
  clock.advance(60_000)
  const t3 = clock.now() // the listings below happen now, so `until=t3` leaves them out

  const ids = async (q: string) => (await logs(q)).items.map((x) => x.request_id)
  t.same(await ids('?method=DELETE'), [rid(missing)])
  t.same(await ids('?status=404'), [rid(missing)])
  t.same(await ids(`?api_key_id=${key.id}`), [rid(mine), rid(missing)])
  t.same(await ids(`?since=${iso(t1)}&until=${iso(t2)}`), [rid(missing)])
  t.same(await ids(`?method=GET&since=${iso(t2)}&until=${iso(t3)}`), [rid(mine)], 'since is inclusive')
  t.notOk((await ids(`?until=${iso(t1)}`)).includes(rid(missing)), 'until is exclusive')

  const all = await logs(`?limit=200&until=${iso(t3)}`)
  t.equal(all.total, 3)
  const paged = await logs(`?limit=2&offset=1&until=${iso(t3)}`)
  t.equal(paged.total, 3)
  t.same(
    paged.items.map((x) => x.id),
    all.items.slice(1, 3).map((x) => x.id),
  )
  t.match(paged, { limit: 2, offset: 1 })
  for (const bad of ['limit=0', 'limit=201', 'method=TRACE', 'status=99', 'api_key_id=nope']) {
    t.equal((await a.request('GET', `${LOGS}?${bad}`, { token: owner.token })).status, 422, bad)
  }
})

t.test("another organization's requests are invisible; unauthenticated requests are not logged", async (t) => {
  const { a, owner, logs } = await setup(t)
  const other = await newOwner(a)
  const theirs = await a.request('GET', '/api/v1/organization', { token: other.token })
  const ours = await a.request('GET', '/api/v1/organization', { token: owner.token })
  const anonymous = await a.request('GET', '/api/v1/organization', { headers: { 'x-request-id': 'anon-request-1' } })
  t.equal(anonymous.status, 401)
  const bad = await a.request('GET', '/api/v1/organization', { apiKey: 'ozk_nope_nope', headers: { 'x-request-id': 'bad-key-request-1' } })
  t.equal(bad.status, 401)

  const mineSeen = (await logs()).items.map((x) => x.request_id)
  t.ok(mineSeen.includes(rid(ours)))
  t.notOk(mineSeen.includes(rid(theirs)), "org A does not see org B's request")
  const theirsSeen = (await logs('', { token: other.token })).items.map((x) => x.request_id)
  t.ok(theirsSeen.includes(rid(theirs)))
  t.notOk(theirsSeen.includes(rid(ours)), "org B does not see org A's request")
  a.services.requestLogs.flush()
  t.same(
    a.db.prepare("SELECT count(*) AS n FROM request_logs WHERE request_id IN ('anon-request-1', 'bad-key-request-1')").get(),
    { n: 0 },
    '401s are not logged',
  )

  // An authenticated request that is refused still is logged.
  const narrow = await createKey(a, owner, ['workflow:read'])
  const denied = await a.request('GET', LOGS, { apiKey: narrow.key })
  t.equal(denied.status, 403)
  t.match((await logs('?status=403')).items, [{ request_id: rid(denied), api_key_id: narrow.id }])
})

t.test('reading needs request_logs:read (member:read)', async (t) => {
  const { a, owner } = await setup(t)
  const viewer = await addMember(a, owner, 4)
  t.equal((await a.request('GET', LOGS, { token: viewer.token })).status, 200, 'a viewer may')
  t.equal((await a.request('GET', LOGS, { apiKey: (await createKey(a, owner, ['member:read'])).key })).status, 200)
  const denied = await a.request('GET', LOGS, { apiKey: (await createKey(a, owner, ['org:manage'])).key })
  t.equal(denied.status, 403)
  t.equal(denied.body.error.code, 'permission_denied')
})

t.test('rows older than OZAN_REQUEST_LOG_RETENTION_DAYS are pruned', async (t) => {
  const { a, owner, clock, logs: list } = await setup(t, { env: { OZAN_REQUEST_LOG_RETENTION_DAYS: '2' } })
  const reader = await createKey(a, owner) // access tokens expire as the clock moves on; keys do not
  const logs = () => list('', { apiKey: reader.key })
  const old = {
    organization_id: owner.organizationId,
    environment_id: null,
    user_id: owner.userId,
    api_key_id: null,
    method: 'GET',
    route: '/old',
    status: 200,
    duration_ms: 1,
    ip: null,
  }
  a.services.repos.requestLogs.insertMany([
    { ...old, request_id: 'ten-days-old', created_at: clock.now() - 10 * DAY },
    { ...old, request_id: 'one-day-old', created_at: clock.now() - DAY },
  ])
  const fresh = await a.request('GET', '/api/v1/organization', { token: owner.token })
  a.services.requestLogs.flush()

  t.equal(a.services.requestLogs.prune(), 1, 'only the row past retention goes')
  let seen = (await logs()).items.map((x) => x.request_id)
  t.notOk(seen.includes('ten-days-old'))
  t.ok(seen.includes('one-day-old') && seen.includes(rid(fresh)))

  clock.advance(DAY + 1)
  t.ok(a.services.requestLogs.prune() >= 1)
  seen = (await logs()).items.map((x) => x.request_id)
  t.notOk(seen.includes('one-day-old'), 'gone once past two days')
  t.ok(seen.includes(rid(fresh)), 'a day-old request stays')

  clock.advance(DAY)
  a.services.requestLogs.prune()
  t.notOk(
    (await logs()).items.some((x) => x.request_id === rid(fresh)),
    'and goes after two days',
  )
})
