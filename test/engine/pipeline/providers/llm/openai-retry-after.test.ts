import t from 'tap'
import { never, request, settle, setup, texts } from './fixture.js'

// A Retry-After on a 503 or other 5xx is honoured like a 429's: waited out instead of the jittered
// backoff when it fits maxRetryAfterMs, else the request fails at once and the error carries it.
// retryBaseMs is 1 here, so a wait of hundreds of ms can only be the provider's Retry-After.

t.test('a 503 with Retry-After is retried after that wait, not the jittered default', async (t) => {
  const { server, llm, retries } = await setup(t, { retryBaseMs: 1 })
  server.fail({ kind: 'status', status: 503, retryAfterMs: 300 }, { kind: 'status', status: 503, retryAfterS: 0.5 })
  const { chunks, error } = await settle(llm.stream(request(), never()))
  t.equal(error, null)
  t.equal(texts(chunks).join(''), 'You said: Hello there')
  t.same(
    retries.map((r) => [r.attempt, r.delayMs, r.error.upstreamStatus]),
    [
      [1, 300, 503],
      [2, 500, 503],
    ],
    'retry-after-ms, then Retry-After seconds',
  )
  const [a, b, c] = server.requests.map((r) => r.at)
  t.ok(b! - a! >= 290 && c! - b! >= 490, `the waits really happened (${Math.round(b! - a!)} ms, ${Math.round(c! - b!)} ms)`)
})

t.test('a 500 with Retry-After is waited out too; without one the backoff stays jittered', async (t) => {
  const { server, llm, retries } = await setup(t, { retryBaseMs: 1 })
  server.fail({ kind: 'status', status: 500, retryAfterMs: 200 }, { kind: 'status', status: 500 })
  const { error } = await settle(llm.stream(request(), never()))
  t.equal(error, null)
  t.equal(retries[0]!.delayMs, 200)
  t.ok(retries[1]!.delayMs < 2, 'the second retry waits the jittered [0, 1 · 2) ms')
})

t.test('a 503 asking for more than maxRetryAfterMs fails at once, carrying the wait', async (t) => {
  const { server, llm, retries } = await setup(t, { maxRetryAfterMs: 5000 })
  server.fail({ kind: 'status', status: 503, retryAfterS: 120 })
  const started = performance.now()
  const { error } = await settle(llm.stream(request(), never()))
  t.match(error, {
    name: 'ProviderError',
    category: 'llm',
    code: 'upstream_error',
    status: 503,
    retryable: true,
    upstreamStatus: 503,
    retryAfterMs: 120_000,
    attempts: 1,
  })
  t.ok(performance.now() - started < 1000, 'no waiting')
  t.equal(server.requests.length, 1)
  t.same(retries, [])
})

t.test('when retries run out, the error carries the last Retry-After the provider sent', async (t) => {
  const { server, llm, retries } = await setup(t, { maxRetries: 2 })
  server.fail(
    { kind: 'status', status: 429, retryAfterMs: 20 },
    { kind: 'status', status: 503, retryAfterMs: 30 },
    { kind: 'status', status: 429, retryAfterMs: 1200 },
  )
  const { error } = await settle(llm.stream(request(), never()))
  t.match(error, { code: 'upstream_rate_limited', status: 503, retryAfterMs: 1200, attempts: 3 })
  t.same(
    retries.map((r) => r.delayMs),
    [20, 30],
  )
  t.equal(server.requests.length, 3)
})
