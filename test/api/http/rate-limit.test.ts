import t, { type Test } from 'tap'
import type { ManualClock } from '../../../core/index.js'
import { startTestApp, type Reply, type RequestOptions } from '../../helpers/app.js'
import { createKey, newOwner } from '../../helpers/tenancy-fixtures.js'

// The spec's Limits: requests are limited per organization, per API key and per client address;
// a limited request gets 429 rate_limited with Retry-After in seconds. Every rule here refills one
// token a minute, so an emptied bucket says Retry-After: 60.

const MIN = 60_000
const ME = '/api/v1/auth/me'

async function setup(t: Test, limits: Record<string, string>) {
  const env = {
    OZAN_RATE_LIMIT_ORG_BURST: '1000',
    OZAN_RATE_LIMIT_ORG_PER_MIN: '1',
    OZAN_RATE_LIMIT_KEY_BURST: '1000',
    OZAN_RATE_LIMIT_KEY_PER_MIN: '1',
    OZAN_RATE_LIMIT_ADDRESS_BURST: '1000',
    OZAN_RATE_LIMIT_ADDRESS_PER_MIN: '1',
    ...limits,
  }
  const a = await startTestApp({ env })
  t.teardown(() => a.close())
  const clock = a.clock as ManualClock
  const owner = await newOwner(a)
  const me = (o: RequestOptions) => a.request('GET', ME, o)
  /** Status codes of `n` requests made one after another. */
  const statuses = async (n: number, o: RequestOptions) => {
    const out: number[] = []
    for (let i = 0; i < n; i++) out.push((await me(o)).status)
    return out
  }
  return { a, clock, owner, me, statuses }
}

/** The 429 the spec asks for: error shape, request id, whole seconds to wait. */
function isRateLimited(t: Test, res: Reply, retryAfterS: number, what: string) {
  t.equal(res.status, 429, `${what}: 429`)
  t.equal(res.headers.get('retry-after'), String(retryAfterS), `${what}: Retry-After`)
  t.match(res.headers.get('content-type'), /^application\/json/)
  t.match(res.body, { error: { code: 'rate_limited', message: /\S/, request_id: res.headers.get('x-request-id') } }, `${what}: error body`)
}

t.test('per organization: all callers of one organization share its bucket; others do not', async (t) => {
  const { a, clock, owner, me, statuses } = await setup(t, { OZAN_RATE_LIMIT_ORG_BURST: '4' })
  const k1 = await createKey(a, owner)
  const k2 = await createKey(a, owner)
  clock.advance(4 * MIN) // refill what creating the keys spent

  t.same(await statuses(2, { apiKey: k1.key }), [200, 200])
  t.same(await statuses(2, { apiKey: k2.key }), [200, 200])
  isRateLimited(t, await me({ apiKey: k2.key }), 60, 'second key')
  isRateLimited(t, await me({ apiKey: k1.key }), 60, 'first key')
  isRateLimited(t, await me({ token: owner.token }), 60, 'the owner with a bearer token')

  const other = await newOwner(a)
  t.equal((await me({ token: other.token })).status, 200, 'another organization is not limited')

  clock.advance(30_000)
  isRateLimited(t, await me({ apiKey: k1.key }), 30, 'half a minute later')
  clock.advance(30_000)
  t.same(await statuses(2, { apiKey: k1.key }), [200, 429], 'one token back after a minute')
})

t.test('per API key: a key past its limit is refused while a second key of the organization works', async (t) => {
  const { a, clock, owner, me, statuses } = await setup(t, { OZAN_RATE_LIMIT_KEY_BURST: '2' })
  const k1 = await createKey(a, owner)
  const k2 = await createKey(a, owner)
  t.same(await statuses(2, { apiKey: k1.key }), [200, 200])
  isRateLimited(t, await me({ apiKey: k1.key }), 60, 'first key')
  t.same(await statuses(2, { apiKey: k2.key }), [200, 200], 'the second key has its own bucket')
  t.equal((await me({ token: owner.token })).status, 200, 'bearer tokens are not limited per key')
  clock.advance(MIN)
  t.same(await statuses(2, { apiKey: k1.key }), [200, 429], 'recovers one token a minute')
})

t.test("a key refused by its own limit does not spend its organization's tokens", async (t) => {
  const { a, clock, owner, statuses } = await setup(t, { OZAN_RATE_LIMIT_ORG_BURST: '6', OZAN_RATE_LIMIT_KEY_BURST: '2' })
  const noisy = await createKey(a, owner)
  const quiet = await createKey(a, owner)
  clock.advance(6 * MIN)
  t.same(await statuses(12, { apiKey: noisy.key }), [200, 200, ...Array(10).fill(429)])
  t.same(await statuses(2, { apiKey: quiet.key }), [200, 200], 'the refused requests did not drain the shared bucket')
})

t.test('per client address: unauthenticated requests count too; other addresses are not limited', async (t) => {
  const { a, clock, owner, me, statuses } = await setup(t, { OZAN_RATE_LIMIT_ADDRESS_BURST: '3', OZAN_TRUST_PROXY: 'true' })
  clock.advance(3 * MIN) // refill what registering spent
  t.same(await statuses(3, {}), [401, 401, 401])
  isRateLimited(t, await me({ token: owner.token }), 60, 'a valid token from the same address')
  isRateLimited(t, await a.request('POST', '/api/v1/auth/login', { body: { email: owner.email, password: 'x' } }), 60, 'a public route')

  // Behind a trusted proxy the client address comes from X-Forwarded-For.
  const elsewhere = { token: owner.token, headers: { 'x-forwarded-for': '203.0.113.9' } }
  t.same(await statuses(3, elsewhere), [200, 200, 200], 'another address has its own bucket')
  isRateLimited(t, await me(elsewhere), 60, 'the other address, once spent')

  clock.advance(MIN)
  t.same(await statuses(2, { token: owner.token }), [200, 429], 'recovers one token a minute')
})

t.test('a limited request is still logged for its organization', async (t) => {
  const { a, owner, me } = await setup(t, { OZAN_RATE_LIMIT_KEY_BURST: '1' })
  const key = await createKey(a, owner)
  t.equal((await me({ apiKey: key.key })).status, 200)
  const limited = await me({ apiKey: key.key })
  isRateLimited(t, limited, 60, 'second request')
  const logs = await a.request('GET', '/api/v1/request-logs?status=429', { token: owner.token })
  t.match(logs.body.items, [{ request_id: limited.headers.get('x-request-id'), route: ME, api_key_id: key.id }])
})
