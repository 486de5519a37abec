import net, { type AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { startDeepgramStandIn, startOpenAiStandIn } from '../../../../engine/pipeline/providers/stand-ins/index.js'
import { allowList, type GuardOptions, type ResolveHost } from '../../../../core/index.js'
import { ProviderConnections } from '../../../../engine/pipeline/providers/connections.js'
import { OpenAiLlm, ProviderError } from '../../../../engine/pipeline/providers/llm/index.js'
import { DeepgramLiveStt, OpenAiTranscribeStt, type SttEvent } from '../../../../engine/pipeline/providers/stt/index.js'
import { OpenAiSpeechTts } from '../../../../engine/pipeline/providers/tts/index.js'
import { KEY, never, request, settle } from './llm/fixture.js'

// The connect-time half of the outbound guard: a pool built with a guard (an organization's
// destinations) resolves, checks and pins every connection; nothing reaches a refused address.

/** A TCP listener on loopback that only counts the connections made to it. */
async function counter(t: Test): Promise<{ port: number; connections: () => number }> {
  let n = 0
  const server = net.createServer((s) => {
    n++
    s.destroy()
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.teardown(() => new Promise<void>((r) => server.close(() => r())))
  return { port: (server.address() as AddressInfo).port, connections: () => n }
}

/** Answers like DNS from a table that a test may change between lookups (rebinding). */
function dns(table: Record<string, string[]>): ResolveHost {
  return async (host) => {
    const answers = table[host]
    if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' })
    return answers.map((address) => ({ address, family: net.isIPv6(address) ? 6 : 4 }))
  }
}

function pool(t: Test, guard: GuardOptions): ProviderConnections {
  const p = new ProviderConnections({ guard })
  t.teardown(() => p.close())
  return p
}

const NO_RANGE = allowList([])
const LOOPBACK_RANGE = allowList(['127.0.0.0/8'])

t.test('the LLM refuses loopback in every spelling, IPv6 and a name resolving to it, before a connection opens, and never retries', async (t) => {
  const target = await counter(t)
  const connections = pool(t, { allow: NO_RANGE, resolve: dns({ 'llm.internal.test': ['127.0.0.1'], 'mixed.internal.test': ['93.184.216.34', '127.0.0.1'] }) })
  const hosts = ['127.0.0.1', '127.1', '0x7f000001', '2130706433', '0177.0.0.1', '[::ffff:127.0.0.1]', '[::1]', 'llm.internal.test', 'mixed.internal.test']
  for (const host of hosts) {
    const retries: unknown[] = []
    const llm = new OpenAiLlm({ apiKey: KEY, baseURL: `http://${host}:${target.port}/v1`, connections, maxRetries: 2, onRetry: (r) => retries.push(r) })
    const { chunks, error } = await settle(llm.stream(request(), never()))
    t.same(chunks, [], host)
    t.ok(error instanceof ProviderError, `${host}: a ProviderError`)
    t.match(error, { code: 'upstream_refused', status: 502, retryable: false, attempts: 1, message: /refused by the outbound guard.*loopback/ }, host)
    t.notMatch((error as Error).message, KEY, `${host}: the key is not in the message`)
    t.same(retries, [], `${host}: not retried`)
  }
  t.equal(target.connections(), 0, 'no connection reached the loopback listener')
})

t.test('private, link-local and metadata addresses are refused too; the operator range admits only itself', async (t) => {
  const connections = pool(t, { allow: allowList(['10.0.0.0/8']), resolve: dns({}) })
  const cases: [string, RegExp][] = [
    ['169.254.169.254', /metadata/],
    ['[fe80::1]', /link-local/],
    ['[fd00::1]', /unique-local/],
    ['192.168.1.10', /private/],
    ['0.0.0.0', /unspecified/],
  ]
  for (const [host, reason] of cases) {
    const { error } = await settle(new OpenAiLlm({ apiKey: KEY, baseURL: `https://${host}/v1`, connections, maxRetries: 2 }).stream(request(), never()))
    t.match(error, { code: 'upstream_refused', retryable: false, message: reason }, host)
  }
})

t.test('a name that resolves to loopback after an earlier public answer (rebinding) is refused when the connection opens', async (t) => {
  const target = await counter(t)
  const table: Record<string, string[]> = { 'llm.rebind.test': ['93.184.216.34'] }
  const connections = pool(t, { allow: NO_RANGE, resolve: dns(table) })
  // What a store-time check saw; the connection is made later, after the answer changed.
  table['llm.rebind.test'] = ['127.0.0.1']
  const { error } = await settle(new OpenAiLlm({ apiKey: KEY, baseURL: `http://llm.rebind.test:${target.port}/v1`, connections }).stream(request(), never()))
  t.match(error, { code: 'upstream_refused', retryable: false, message: /loopback address \(127\.0\.0\.1\)/ })
  connections.prewarm(`http://llm.rebind.test:${target.port}/v1`, {})
  await new Promise((r) => setTimeout(r, 50))
  t.equal(target.connections(), 0, 'neither the request nor a warm-up connected')
})

t.test('within the operator range a name reaches the checked address (pinned: the name is in no real DNS)', async (t) => {
  const server = await startOpenAiStandIn({ apiKey: KEY, firstTokenLatencyMs: 0, tokensPerSecond: 0 })
  t.teardown(() => server.close())
  const port = new URL(server.url).port
  const connections = pool(t, { allow: LOOPBACK_RANGE, resolve: dns({ 'llm.allowed.test': ['127.0.0.1'] }) })
  const llm = new OpenAiLlm({ apiKey: KEY, baseURL: `http://llm.allowed.test:${port}/v1`, connections })
  const { chunks, error } = await settle(llm.stream(request(), never()))
  t.equal(error, null)
  t.ok(
    chunks.some((c) => c.type === 'text'),
    'the stand-in answered',
  )
  t.equal(server.requests.length, 1)
})

t.test('the process pool (the operator’s destinations) is not guarded: loopback is reached', async (t) => {
  const server = await startOpenAiStandIn({ apiKey: KEY, firstTokenLatencyMs: 0, tokensPerSecond: 0 })
  t.teardown(() => server.close())
  const trusted = new ProviderConnections()
  t.teardown(() => trusted.close())
  t.equal(trusted.guarded, false)
  const { error } = await settle(new OpenAiLlm({ apiKey: KEY, baseURL: server.url, connections: trusted }).stream(request(), never()))
  t.equal(error, null)
  t.equal(server.requests.length, 1)
})

t.test('speech and transcription requests are refused the same way, without a connection', async (t) => {
  const target = await counter(t)
  const connections = pool(t, { allow: NO_RANGE, resolve: dns({ 'speech.rebind.test': ['10.1.2.3'] }) })
  const tts = new OpenAiSpeechTts({ apiKey: KEY, baseURL: `http://127.0.0.1:${target.port}/v1`, connections })
  let ttsError: unknown = null
  try {
    for await (const _ of tts.synthesize('Merhaba', { signal: never() })) t.fail('no audio expected')
  } catch (err) {
    ttsError = err
  }
  t.ok(ttsError instanceof ProviderError)
  t.match(ttsError, { code: 'tts_failed', retryable: false, message: /refused by the outbound guard.*loopback/ })

  const stt = new OpenAiTranscribeStt({ apiKey: KEY, baseURL: 'http://speech.rebind.test/v1', connections })
  const stream = stt.open({ language: 'tr', signal: never(), sampleRate: 16000 })
  stream.push(new Int16Array(16000))
  stream.endUtterance()
  const events: SttEvent[] = []
  for await (const e of stream.events) events.push(e)
  t.match(events, [
    { type: 'error', error: { code: 'stt_failed', retryable: false, message: /refused by the outbound guard.*private address \(10\.1\.2\.3\)/ } },
  ])
  t.equal(target.connections(), 0)
})

async function sttEvents(stt: DeepgramLiveStt): Promise<SttEvent[]> {
  const stream = stt.open({ language: 'en', signal: never(), sampleRate: 16000 })
  stream.push(new Int16Array(320))
  const events: SttEvent[] = []
  const done = (async () => {
    for await (const e of stream.events) events.push(e)
  })()
  await new Promise((r) => setTimeout(r, 100))
  await stream.close()
  await done
  return events
}

t.test('the Deepgram live WebSocket connects through the guard: a rebound name is refused, an allowed one pinned', async (t) => {
  const target = await counter(t)
  const refusing = pool(t, { allow: NO_RANGE, resolve: dns({ 'dg.rebind.test': ['127.0.0.1'] }) })
  for (const baseUrl of [`ws://dg.rebind.test:${target.port}`, `wss://dg.rebind.test:${target.port}`, `ws://[::ffff:127.0.0.1]:${target.port}`]) {
    const events = await sttEvents(new DeepgramLiveStt({ apiKey: 'dg-key-guarded', baseUrl, connections: refusing, connectTimeoutMs: 2000 }))
    t.match(events, [{ type: 'error', error: { code: 'stt_failed', retryable: false, message: /refused by the outbound guard.*loopback/ } }], baseUrl)
  }
  t.equal(target.connections(), 0, 'no socket reached the listener')

  const dg = await startDeepgramStandIn({ apiKey: 'dg-key-guarded', finalLatencyMs: 0 })
  t.teardown(() => dg.close())
  const allowing = pool(t, { allow: LOOPBACK_RANGE, resolve: dns({ 'dg.allowed.test': ['127.0.0.1'] }) })
  const events = await sttEvents(
    new DeepgramLiveStt({ apiKey: 'dg-key-guarded', baseUrl: `ws://dg.allowed.test:${new URL(dg.url).port}`, connections: allowing, connectTimeoutMs: 2000 }),
  )
  t.same(
    events.filter((e) => e.type === 'error'),
    [],
    'no error',
  )
  t.equal(dg.sessions.length, 1, 'the stand-in took the connection')
})
