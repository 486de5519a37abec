import t, { type Test } from 'tap'
import { performance } from 'node:perf_hooks'
import { startOpenAiStandIn, type OpenAiStandIn } from '../../../engine/pipeline/providers/stand-ins/index.js'
import { startTestApp, type Reply, type TestApp } from '../../helpers/app.js'
import { expectStatus } from '../../helpers/tenancy-fixtures.js'
import { CHAT_AGENT, useTurnTimeout } from './session-fixtures.js'

// The real app, the real OpenAiLlm and the OpenAI stand-in over HTTP: how provider trouble reaches
// the caller of POST …/messages. docs/api.md: an upstream failure → 502 upstream_error / 503
// service_unavailable (with Retry-After when the provider said how long to wait), and nothing of
// the turn is stored, so the same message can be sent again.

const KEY = 'sk-upstream-test-4417'

interface Chat {
  a: TestApp
  llm: OpenAiStandIn
  send(text: string): Promise<Reply>
  /** What the API shows of the session: detail and events. */
  snapshot(): Promise<unknown>
}

/** An app whose platform LLM is the stand-in, and one started session of a conversation agent. */
async function chat(t: Test, env: Record<string, string> = {}): Promise<Chat> {
  const llm = await startOpenAiStandIn({ apiKey: KEY })
  t.teardown(() => llm.close())
  const a = await startTestApp({ env: { OZAN_OPENAI_API_KEY: KEY, OZAN_OPENAI_BASE_URL: llm.url, ...env } })
  t.teardown(() => a.close())
  const token = (await a.register()).access_token as string
  const wf = expectStatus(await a.request('POST', '/api/v1/workflows', { token, body: CHAT_AGENT }), 201, 'create agent')
  expectStatus(await a.request('POST', `/api/v1/workflows/${wf.id}/publish`, { token }), 200, 'publish')
  const started = expectStatus(await a.request('POST', `/api/v1/workflows/${wf.id}/sessions`, { token }), 201, 'start session')
  const path = `/api/v1/workflows/${wf.id}/sessions/${started.session_id}`
  return {
    a,
    llm,
    send: (text) => a.request('POST', `${path}/messages`, { token, body: { text } }),
    snapshot: async () => ({ detail: (await a.request('GET', path, { token })).body, events: (await a.request('GET', `${path}/events`, { token })).body }),
  }
}

async function timed<T>(p: Promise<T>): Promise<[T, number]> {
  const started = performance.now()
  const value = await p
  return [value, performance.now() - started]
}

t.test('a reply that stalls mid-stream ends at the turn deadline with 503; the session is untouched and goes on', async (t) => {
  const c = await chat(t)
  useTurnTimeout(c.a, 400)
  const before = await c.snapshot()
  c.llm.fail({ kind: 'stall', afterChunks: 2 })

  const [failed, took] = await timed(c.send('tell me a long story'))
  t.equal(failed.status, 503, failed.text)
  t.equal(failed.body.error.code, 'service_unavailable')
  t.equal(failed.headers.get('retry-after'), null, 'our own deadline gives no wait to promise')
  // The provider's idle timeout (15 s by default) did not end it: the turn deadline did.
  t.ok(took >= 350 && took < 400 + 1500, `ended after ${Math.round(took)} ms`)
  t.equal(c.llm.requests[0]!.injected.chunks, 2, 'the first tokens had been sent')
  t.equal(await c.llm.requests[0]!.ended, 'client_closed', 'the stalled connection was closed, not left open')
  t.same(await c.snapshot(), before, 'no user message, reply, event or turn of the failed turn was stored')

  const next = await c.send('hello again')
  t.equal(next.status, 200, next.text)
  t.equal(next.body.reply, 'You said: hello again')
  const sent = c.llm.requests[1]!.messages.map((m) => m.content)
  t.notOk(sent.includes('tell me a long story'), 'the model never hears the abandoned message')
  const after = (await c.snapshot()) as { detail: { turn_count: number; transcript: { role: string; text: string }[] } }
  t.same(
    after.detail.transcript.map((h) => h.text),
    ['Hi, ask me anything.', 'hello again', 'You said: hello again'],
  )
})

t.test('OZAN_LLM_TIMEOUT_MS: no first byte in time → 503 after one attempt; the next message works', async (t) => {
  const c = await chat(t, { OZAN_LLM_TIMEOUT_MS: '500' })
  const before = await c.snapshot()
  c.llm.fail({ kind: 'hang' })
  const [failed, took] = await timed(c.send('anyone there?'))
  t.equal(failed.status, 503, failed.text)
  t.equal(failed.body.error.code, 'service_unavailable')
  t.ok(took >= 450 && took < 500 + 1500, `gave up after ${Math.round(took)} ms`)
  t.equal(c.llm.requests.length, 1, 'a timed-out attempt is not retried')
  t.equal(await c.llm.requests[0]!.ended, 'client_closed')
  t.same(await c.snapshot(), before)
  t.equal((await c.send('anyone there?')).body.reply, 'You said: anyone there?', 'the same message, sent again, goes through')
})

t.test('Retry-After: a provider that says when to come back has that passed on, rounded up, at most 60 s', async (t) => {
  const c = await chat(t)

  // Beyond the provider client's maxRetryAfterMs (5 s): no retry, the wait is passed on, capped.
  c.llm.fail({ kind: 'status', status: 503, retryAfterS: 600 })
  const capped = await c.send('one')
  t.equal(capped.status, 503)
  t.equal(capped.body.error.code, 'service_unavailable')
  t.equal(capped.headers.get('retry-after'), '60')
  t.equal(c.llm.requests.length, 1)

  c.llm.fail({ kind: 'status', status: 429, retryAfterS: 30 })
  const limited = await c.send('two')
  t.equal(limited.status, 503)
  t.equal(limited.headers.get('retry-after'), '30')

  // Short waits are waited out; when the retries (2) are used up, the last wait counts, in whole seconds.
  const from = c.llm.requests.length
  c.llm.fail(
    { kind: 'status', status: 429, retryAfterMs: 40 },
    { kind: 'status', status: 503, retryAfterMs: 40 },
    { kind: 'status', status: 429, retryAfterMs: 1200 },
  )
  const exhausted = await c.send('three')
  t.equal(exhausted.status, 503)
  t.equal(exhausted.headers.get('retry-after'), '2', '1.2 s rounds up to 2')
  t.equal(c.llm.requests.length - from, 3, 'three attempts')

  t.equal((await c.send('four')).body.reply, 'You said: four', 'and the session still answers')
})

t.test('no Retry-After when the provider gave none, or on a 502', async (t) => {
  const c = await chat(t)
  c.llm.fail({ kind: 'status', status: 503 }, { kind: 'status', status: 503 }, { kind: 'status', status: 503 })
  const unavailable = await c.send('one')
  t.equal(unavailable.status, 503)
  t.equal(unavailable.headers.get('retry-after'), null)

  // A 500 is our 502: Retry-After belongs to 503 (and 429), so its wait only paces our retries.
  c.llm.fail(
    { kind: 'status', status: 500, retryAfterMs: 10 },
    { kind: 'status', status: 500, retryAfterMs: 10 },
    { kind: 'status', status: 500, retryAfterMs: 10 },
  )
  const failed = await c.send('two')
  t.equal(failed.status, 502)
  t.equal(failed.body.error.code, 'upstream_error')
  t.equal(failed.headers.get('retry-after'), null)
})
