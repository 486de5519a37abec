import t from 'tap'
import { startOpenAiStandIn } from '../../../../../engine/pipeline/providers/stand-ins/index.js'
import { OpenAiLlm, ProviderError } from '../../../../../engine/pipeline/providers/llm/index.js'
import { KEY, never, request, settle, setup, texts } from './fixture.js'

t.test('a 429 is retried after the Retry-After the provider asked for, then succeeds', async (t) => {
  const { server, llm, retries } = await setup(t)
  server.fail({ kind: 'status', status: 429, retryAfterS: 1, retryAfterMs: 300 }, { kind: 'status', status: 429, retryAfterS: 1 })
  const { chunks, error } = await settle(llm.stream(request(), never()))
  t.equal(error, null)
  t.equal(texts(chunks).join(''), 'You said: Hello there')
  t.equal(server.requests.length, 3, 'three attempts')
  t.same(
    retries.map((r) => [r.attempt, r.delayMs, r.error.code]),
    [
      [1, 300, 'upstream_rate_limited'],
      [2, 1000, 'upstream_rate_limited'],
    ],
    'retry-after-ms first, else Retry-After seconds',
  )
  const [a, b, c] = server.requests.map((r) => r.at)
  t.ok(b! - a! >= 290 && c! - b! >= 990, 'the waits really happened')
})

t.test('a Retry-After beyond the cap fails at once as upstream_rate_limited', async (t) => {
  const { server, llm } = await setup(t, { maxRetryAfterMs: 5000 })
  server.fail({ kind: 'status', status: 429, retryAfterS: 30 })
  const { error } = await settle(llm.stream(request(), never()))
  t.match(error, {
    name: 'ProviderError',
    category: 'llm',
    code: 'upstream_rate_limited',
    status: 503,
    retryable: true,
    retryAfterMs: 30_000,
    upstreamStatus: 429,
    attempts: 1,
  })
  t.equal(server.requests.length, 1)
})

t.test('500 and 503 are retried with jittered exponential backoff', async (t) => {
  const { server, llm, retries } = await setup(t, { retryBaseMs: 40, maxRetries: 3 })
  server.fail({ kind: 'status', status: 500 }, { kind: 'status', status: 503 }, { kind: 'reset', afterChunks: 0 })
  const { chunks, error } = await settle(llm.stream(request(), never()))
  t.equal(error, null)
  t.equal(texts(chunks).join(''), 'You said: Hello there')
  t.equal(server.requests.length, 4)
  t.same(
    retries.map((r) => [r.error.code, r.error.upstreamStatus]),
    [
      ['upstream_error', 500],
      ['upstream_error', 503],
      ['upstream_error', undefined],
    ],
    'a connection reset before any answer is retried too',
  )
  retries.forEach((r, i) => t.ok(r.delayMs >= 0 && r.delayMs < 40 * 2 ** i, `delay ${i + 1} within [0, ${40 * 2 ** i})`))
})

t.test('when retries run out the last failure is thrown: 502 for a 500, 503 for a 503', async (t) => {
  const { server, llm } = await setup(t, { retryBaseMs: 1, maxRetries: 2 })
  server.fail({ kind: 'status', status: 503 }, { kind: 'status', status: 503 }, { kind: 'status', status: 500 })
  const { error } = await settle(llm.stream(request(), never()))
  t.match(error, { code: 'upstream_error', status: 502, upstreamStatus: 500, retryable: true, attempts: 3 })
  t.match((error as Error).message, /127\.0\.0\.1:\d+ failed \(HTTP 500\): The server had an error/)
  server.fail({ kind: 'status', status: 503 })
  const once = new OpenAiLlm({ apiKey: KEY, baseURL: server.url, maxRetries: 0 })
  t.match((await settle(once.stream(request(), never()))).error, { code: 'upstream_error', status: 503, attempts: 1 })
})

t.test('no retry once text was yielded: a mid-stream reset fails after exactly one attempt', async (t) => {
  const { server, llm, retries } = await setup(t)
  let heard!: () => void
  server.fail({ kind: 'reset', afterChunks: 3, until: new Promise<void>((r) => (heard = r)) })
  const { chunks, error } = await settle(
    (async function* () {
      for await (const c of llm.stream(request({ messages: [{ role: 'user', content: 'one two three four five' }] }), never())) {
        yield c
        if (c.type === 'text' && c.text === 'one ') heard()
      }
    })(),
  )
  t.same(texts(chunks), ['You ', 'said: ', 'one '], 'what arrived before the reset was yielded')
  t.ok(error instanceof ProviderError)
  t.match(error, { code: 'upstream_error', status: 502, attempts: 1 })
  t.equal(server.requests.length, 1)
  t.same(retries, [])
})

t.test('no answer within timeoutMs → upstream_timeout, close to the configured time, not retried', async (t) => {
  const { server, llm } = await setup(t, { timeoutMs: 300 })
  server.fail({ kind: 'hang' })
  const started = performance.now()
  const { error } = await settle(llm.stream(request(), never()))
  const took = performance.now() - started
  t.match(error, { code: 'upstream_timeout', status: 503, retryable: true, attempts: 1, message: /sent no response within 300 ms/ })
  t.ok(took < 300 + 1500, `gave up in ${Math.round(took)} ms`)
  t.equal(server.requests.length, 1, 'a timeout is not retried by default')
  t.equal(await server.requests[0]!.ended, 'client_closed', 'the request was abandoned')
  // Headers but no first chunk counts as no response too.
  server.pace({ firstTokenLatencyMs: 5000 })
  t.match((await settle(llm.stream(request(), never()))).error, { code: 'upstream_timeout' })
})

t.test('silence mid-stream beyond idleTimeoutMs → upstream_timeout after the text so far', async (t) => {
  const { server, llm } = await setup(t, { idleTimeoutMs: 200, retryOnTimeout: true })
  server.fail({ kind: 'stall', afterChunks: 2 })
  const { chunks, error } = await settle(llm.stream(request(), never()))
  t.same(texts(chunks), ['You ', 'said: '])
  t.match(error, { code: 'upstream_timeout', message: /stopped streaming for 200 ms/ })
  t.equal(server.requests.length, 1, 'not retried after output, even with retryOnTimeout')
  t.equal(await server.requests[0]!.ended, 'client_closed')
})

t.test('a wrong key → upstream_auth, not retried, and the key is nowhere in the error', async (t) => {
  const { server } = await setup(t)
  const wrongKey = 'sk-proj-wrongWrong-5521'
  const llm = new OpenAiLlm({ apiKey: wrongKey, baseURL: server.url })
  const { error } = await settle(llm.stream(request(), never()))
  t.match(error, { code: 'upstream_auth', status: 502, retryable: false, upstreamStatus: 401, attempts: 1 })
  const shown = JSON.stringify({ message: (error as Error).message, stack: (error as Error).stack, ...(error as object) })
  t.notOk(shown.includes(wrongKey), 'not the key')
  t.notOk(shown.includes('5521'), 'nor the masked form the provider quoted')
  t.match((error as Error).message, /refused the API key \(HTTP 401\)/)
  t.equal(server.requests.length, 1)
})

t.test('a request the provider refuses → upstream_bad_request with its reason, not retried', async (t) => {
  const { server, llm } = await setup(t)
  const { error } = await settle(llm.stream(request({ tools: [{ name: 'has spaces', description: '', parameters: {} }] }), never()))
  t.match(error, { code: 'upstream_bad_request', status: 502, retryable: false, upstreamStatus: 400, message: /tools\[0\]\.function\.name/ })
  t.equal(server.requests.length, 1)
})

t.test('an unreachable server → upstream_error after the bounded retries', async (t) => {
  const gone = await startOpenAiStandIn({ apiKey: KEY })
  await gone.close()
  const llm = new OpenAiLlm({ apiKey: KEY, baseURL: gone.url, maxRetries: 1, retryBaseMs: 1 })
  t.match((await settle(llm.stream(request(), never()))).error, {
    code: 'upstream_error',
    status: 502,
    retryable: true,
    attempts: 2,
    message: /could not be reached/,
  })
})

t.test('aborting mid-stream rejects with the abort and closes the connection at once', async (t) => {
  const { server, llm } = await setup(t, {}, { tokensPerSecond: 40 })
  server.script({ text: 'a b c d e f g h i j k l m n o p q r s t' })
  const ac = new AbortController()
  const seen: string[] = []
  const { error } = await settle(
    (async function* () {
      for await (const c of llm.stream(request(), ac.signal)) {
        if (c.type === 'text') seen.push(c.text)
        if (seen.length === 2) ac.abort()
        yield c
      }
    })(),
  )
  t.equal(error, ac.signal.reason, 'the abort reason itself, not a ProviderError')
  t.equal((error as Error).name, 'AbortError')
  t.same(seen, ['a ', 'b '])
  t.equal(await server.requests[0]!.ended, 'client_closed', 'the stand-in saw the connection close')
  t.ok(server.requests[0]!.injected.chunks < 21, 'before the reply was complete')
})

t.test('aborting while waiting for the first byte or a retry stops at once too', async (t) => {
  const { server, llm } = await setup(t)
  server.fail({ kind: 'hang' })
  const ac = new AbortController()
  const pending = settle(llm.stream(request(), ac.signal))
  while (!server.requests.length) await new Promise((r) => setTimeout(r, 5))
  ac.abort()
  t.equal((await pending).error, ac.signal.reason)
  t.equal(await server.requests[0]!.ended, 'client_closed')
  server.fail({ kind: 'status', status: 429, retryAfterMs: 4000 })
  const ac2 = new AbortController()
  const waiting = settle(llm.stream(request(), ac2.signal))
  while (server.requests.length < 2) await new Promise((r) => setTimeout(r, 5))
  ac2.abort()
  t.equal((await waiting).error, ac2.signal.reason, 'the backoff wait is abortable')
  t.equal(server.requests.length, 2, 'and no retry followed')
})
