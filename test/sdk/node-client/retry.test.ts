import t from 'tap'
import { OzanApiError, type OzanClient, OzanConnectionError, createOzanClient } from '../../../sdk/node/src/index.js'
import { backoffMs, decideRetry, parseRetryAfter, retryOptions } from '../../../sdk/node/src/client/retry.js'
import { errorBody, fakeFetch, recordSleeps, type Scripted } from './fake-fetch.js'

// The spec's retry rules: 5xx and 429 are retryable with exponential backoff and jitter, honouring
// Retry-After; other 4xx fail again the same way; POST /calls has no idempotency key, so it is
// retried only when the caller opts in.

const BASE = 'http://ozan.test'
const O = retryOptions()

function client(script: Scripted[], extra: Partial<ConstructorParameters<typeof OzanClient>[0]> = {}) {
  const f = fakeFetch(script)
  const s = recordSleeps()
  const c = createOzanClient({ baseUrl: BASE, apiKey: 'ozk_test', fetch: f.fetch, sleep: s.sleep, random: () => 0.5, ...extra })
  return { c, seen: f.seen, slept: s.slept }
}

const sessions = (c: OzanClient) => c.GET('/api/v1/sessions')

t.test('backoff doubles from baseDelayMs up to maxDelayMs, half fixed and half jitter', async (t) => {
  const o = retryOptions({ baseDelayMs: 100, maxDelayMs: 1000 })
  t.same(
    [0, 1, 2, 3, 4, 5].map((n) => backoffMs(n, o, () => 0)),
    [50, 100, 200, 400, 500, 500],
    'no jitter: half of each step',
  )
  t.same(
    [0, 1, 2, 3, 4, 5].map((n) => backoffMs(n, o, () => 1)),
    [100, 200, 400, 800, 1000, 1000],
    'full jitter: the whole step',
  )
})

t.test('Retry-After is read as seconds or as an HTTP date; anything else is ignored', async (t) => {
  const now = Date.parse('2026-01-01T00:00:00Z')
  t.equal(parseRetryAfter('3', now), 3000)
  t.equal(parseRetryAfter(' 0 ', now), 0)
  t.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now), 5000)
  t.equal(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now), 0, 'a date in the past: no wait')
  t.equal(parseRetryAfter('-1', now), null)
  t.equal(parseRetryAfter('1.5', now), null)
  t.equal(parseRetryAfter('soon', now), null)
  t.equal(parseRetryAfter(null, now), null)
})

t.test('decideRetry: which outcomes, which requests, how long', async (t) => {
  const get = { method: 'GET', path: '/api/v1/sessions', retry: 0 }
  const half = () => 0.5
  for (const status of [429, 500, 502, 503, 504]) t.match(decideRetry(get, { status, retryAfter: null }, O, 0, half), { retry: true }, `${status} is retried`)
  t.match(decideRetry(get, { status: null }, O, 0, half), { retry: true }, 'no answer at all is retried')
  for (const status of [400, 401, 402, 403, 404, 409, 413, 415, 422]) {
    t.same(decideRetry(get, { status, retryAfter: null }, O, 0, half), { retry: false, reason: 'not_retryable' }, `${status} is not`)
  }
  t.same(decideRetry({ ...get, retry: 3 }, { status: 503, retryAfter: null }, O, 0, half), { retry: false, reason: 'exhausted' }, 'after maxRetries')
  t.same(
    decideRetry(get, { status: 429, retryAfter: '2' }, O, 0, half),
    { retry: true, delayMs: 2000 + 63 },
    'Retry-After is the floor, a little jitter on top',
  )
  t.same(
    decideRetry({ ...get, retry: 5 }, { status: 429, retryAfter: '1' }, retryOptions({ maxRetries: 9 }), 0, half),
    { retry: true, delayMs: 12_000 },
    'a longer backoff wins',
  )
  t.same(decideRetry(get, { status: 429, retryAfter: '61' }, O, 0, half), { retry: false, reason: 'retry_after_too_long' }, 'past maxRetryAfterMs')
  const calls = { method: 'POST', path: '/api/v1/calls', retry: 0 }
  t.same(decideRetry(calls, { status: 503, retryAfter: null }, O, 0, half), { retry: false, reason: 'not_replayable' }, 'POST /calls: no')
  t.same(decideRetry(calls, { status: null }, O, 0, half), { retry: false, reason: 'not_replayable' }, 'POST /calls without an answer: no')
  t.match(decideRetry(calls, { status: 503, retryAfter: null }, retryOptions({ retryPostCalls: true }), 0, half), { retry: true }, 'POST /calls opted in: yes')
  t.match(decideRetry({ ...calls, method: 'GET' }, { status: 503, retryAfter: null }, O, 0, half), { retry: true }, 'GET /calls: yes')
  t.match(decideRetry({ ...calls, path: '/api/v1/calls/web-token' }, { status: 503, retryAfter: null }, O, 0, half), { retry: true }, 'other POSTs: yes')
})

t.test('retry options are bounded', async (t) => {
  t.throws(() => retryOptions({ maxRetries: -1 }), RangeError)
  t.throws(() => retryOptions({ maxRetries: 11 }), RangeError)
  t.throws(() => retryOptions({ baseDelayMs: 1.5 }), RangeError)
  t.throws(() => retryOptions({ retryPostCalls: 'yes' as unknown as boolean }), TypeError)
  t.throws(() => createOzanClient({ baseUrl: BASE, retry: { maxRetries: 100 } }), RangeError, 'at construction')
  t.throws(() => createOzanClient({ baseUrl: 'ftp://x' }), TypeError)
  t.throws(() => createOzanClient({ baseUrl: BASE, timeoutMs: 0 }), RangeError)
  t.same(retryOptions({ maxRetries: undefined }), O, 'undefined keeps the default')
})

t.test('a 503 then a 200: the client waits and answers the data', async (t) => {
  const { c, seen, slept } = client([
    { status: 503, body: errorBody('service_unavailable') },
    { status: 200, body: [{ id: 'a' }] },
  ])
  t.same(await sessions(c), [{ id: 'a' }])
  t.equal(seen.length, 2)
  t.same(slept, [375], 'backoff step 0: 500 ms with jitter 0.5')
})

t.test('429 with Retry-After waits that long before the next attempt', async (t) => {
  const { c, seen, slept } = client([
    { status: 429, body: errorBody('rate_limited'), headers: { 'retry-after': '2' } },
    { status: 429, body: errorBody('rate_limited'), headers: { 'retry-after': '1' } },
    { status: 200, body: [] },
  ])
  t.same(await sessions(c), [])
  t.equal(seen.length, 3)
  t.same(slept, [2063, 1063])
})

t.test('retries run out: the last answer is thrown as OzanApiError', async (t) => {
  const { c, seen, slept } = client(
    [
      { status: 502, body: errorBody('upstream_error', 'The model did not answer', 'r-1') },
      { status: 502, body: errorBody('upstream_error', 'The model did not answer', 'r-2') },
      { status: 502, body: errorBody('upstream_error', 'The model did not answer', 'r-3') },
    ],
    { retry: { maxRetries: 2, baseDelayMs: 100 } },
  )
  const err = await sessions(c).catch((e) => e)
  t.type(err, OzanApiError)
  t.match(err, { status: 502, code: 'upstream_error', message: 'The model did not answer', request_id: 'r-3', method: 'GET', path: '/api/v1/sessions' })
  t.equal(seen.length, 3)
  t.same(slept, [75, 150])
})

t.test('a 4xx is thrown at once, never retried', async (t) => {
  for (const [status, code] of [
    [400, 'bad_request'],
    [401, 'authentication_required'],
    [402, 'insufficient_credit'],
    [403, 'permission_denied'],
    [404, 'not_found'],
    [409, 'conflict'],
  ] as const) {
    const { c, seen, slept } = client([{ status, body: errorBody(code) }])
    const err = await sessions(c).catch((e) => e)
    t.match(err, { status, code }, `${status}`)
    t.equal(seen.length, 1, `${status}: one attempt`)
    t.same(slept, [])
  }
})

t.test('POST /calls is not retried unless the caller opts in; per call or per client', async (t) => {
  const body = { channel: 'chat' as const, workflow_uuid: '00000000-0000-4000-8000-000000000000' }
  const created = { status: 201, body: { call_uuid: 'c1' } }
  {
    const { c, seen } = client([{ status: 503, body: errorBody('service_unavailable') }, created])
    t.match(await c.POST('/api/v1/calls', { body }).catch((e) => e), { status: 503, code: 'service_unavailable' })
    t.equal(seen.length, 1, 'a 503: one attempt, since a second could place a second call')
  }
  {
    const { c, seen } = client([new TypeError('fetch failed'), created])
    const err = await c.POST('/api/v1/calls', { body }).catch((e) => e)
    t.type(err, OzanConnectionError)
    t.match(err, { method: 'POST', path: '/api/v1/calls', timedOut: false })
    t.equal(seen.length, 1, 'no answer: one attempt')
  }
  {
    const { c, seen } = client([{ status: 429, body: errorBody('rate_limited'), headers: { 'retry-after': '1' } }, created])
    t.match(await c.POST('/api/v1/calls', { body, retry: { retryPostCalls: true } }), { call_uuid: 'c1' })
    t.equal(seen.length, 2, 'opted in for this call')
    t.equal(seen[0]!.body, seen[1]!.body, 'the same body is sent again')
  }
  {
    const { c, seen } = client([{ status: 500, body: errorBody('internal_error') }, created], { retry: { retryPostCalls: true } })
    t.match(await c.POST('/api/v1/calls', { body }), { call_uuid: 'c1' })
    t.equal(seen.length, 2, 'opted in for the client')
  }
})

t.test('a network error or a timeout is retried, then thrown as OzanConnectionError', async (t) => {
  {
    const { c, seen } = client([new TypeError('fetch failed'), { status: 200, body: [] }])
    t.same(await sessions(c), [])
    t.equal(seen.length, 2)
  }
  {
    const cause = new TypeError('fetch failed')
    const { c, seen } = client([cause, cause], { retry: { maxRetries: 1 } })
    const err = await sessions(c).catch((e) => e)
    t.type(err, OzanConnectionError)
    t.equal(err.cause, cause)
    t.equal(seen.length, 2)
  }
  {
    // A server that never answers: each attempt ends at timeoutMs. (AbortSignal.timeout's timer does
    // not hold the process open; a real fetch's socket does, and the timer here stands in for it.)
    const hang: typeof fetch = (_url, init) =>
      new Promise((_, reject) => {
        const socket = setTimeout(() => {}, 10_000)
        init!.signal!.addEventListener(
          'abort',
          () => {
            clearTimeout(socket)
            reject(init!.signal!.reason)
          },
          { once: true },
        )
      })
    const s = recordSleeps()
    const c = createOzanClient({ baseUrl: BASE, fetch: hang, timeoutMs: 20, sleep: s.sleep, retry: { maxRetries: 1 } })
    const err = await sessions(c).catch((e) => e)
    t.type(err, OzanConnectionError)
    t.equal(err.timedOut, true)
    t.equal(s.slept.length, 1, 'retried once')
  }
})

t.test('Retry-After longer than maxRetryAfterMs is thrown at once with retryAfterS', async (t) => {
  const { c, seen } = client([{ status: 429, body: errorBody('rate_limited'), headers: { 'retry-after': '120' } }])
  const err = await sessions(c).catch((e) => e)
  t.match(err, { status: 429, code: 'rate_limited', retryAfterS: 120 })
  t.equal(seen.length, 1)
})

t.test("the caller's signal stops the retries and the wait between them", async (t) => {
  const ac = new AbortController()
  const f = fakeFetch([
    { status: 503, body: errorBody('service_unavailable') },
    { status: 200, body: [] },
  ])
  const c = createOzanClient({ baseUrl: BASE, fetch: f.fetch, retry: { baseDelayMs: 60_000, maxDelayMs: 60_000 } })
  const pending = c.GET('/api/v1/sessions', { signal: ac.signal })
  setTimeout(() => ac.abort(new Error('stop')), 20)
  const started = Date.now()
  const err = await pending.catch((e) => e)
  t.match(err, { message: 'stop' })
  t.ok(Date.now() - started < 5000, 'did not wait out the backoff')
  t.equal(f.seen.length, 1)
  ac.abort()
  await t.rejects(c.GET('/api/v1/sessions', { signal: ac.signal }), 'an aborted signal: no request')
  t.equal(f.seen.length, 1)
})
