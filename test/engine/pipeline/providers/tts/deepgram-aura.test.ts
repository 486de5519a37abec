import t, { type Test } from 'tap'
import { SAMPLE_RATE } from '../../../../../engine/audio/format.js'
import { DeepgramAuraTts } from '../../../../../engine/pipeline/providers/tts/deepgram-aura.js'
import {
  startSpeechStandIn,
  toneMs,
  DEFAULT_SPEECH_KEYS,
  type SpeechStandIn,
  type SpeechStandInOptions,
} from '../../../../../engine/pipeline/providers/stand-ins/index.js'
import { collect, live } from './helpers.js'

const KEY = DEFAULT_SPEECH_KEYS.deepgram

async function standIn(t: Test, o: SpeechStandInOptions = {}): Promise<SpeechStandIn> {
  const s = await startSpeechStandIn(o)
  t.teardown(() => s.close())
  return s
}

const TEXT = 'Your appointment is confirmed for Tuesday.'

t.test('asks for linear16 at 16 kHz without a container and reassembles odd-byte reads exactly', async (t) => {
  const s = await standIn(t, { chunkBytes: 333, chunkIntervalMs: 2 })
  const tts = new DeepgramAuraTts({ apiKey: KEY, baseUrl: s.origin })
  const { all, chunks } = await collect(tts.synthesize(TEXT, { signal: live() }))
  t.equal(all.length, Math.round((toneMs(TEXT) * SAMPLE_RATE) / 1000), 'every sample arrived, none split or lost')
  t.ok(chunks.length > 5, `${chunks.length} chunks`)
  t.match(s.requests[0], {
    protocol: 'deepgram',
    authorization: `Token ${KEY}`,
    text: TEXT,
    model: 'aura-2-thalia-en',
    query: { encoding: 'linear16', sample_rate: '16000', container: 'none', model: 'aura-2-thalia-en' },
    outcome: 'completed',
  })
  // The stand-in's tone is deterministic: the bytes we got back are the ones it wrote.
  const s2 = await standIn(t, { chunkBytes: 1 << 20 })
  const whole = await collect(new DeepgramAuraTts({ apiKey: KEY, baseUrl: s2.origin }).synthesize(TEXT, { signal: live() }))
  t.same(Buffer.from(all.buffer), Buffer.from(whole.all.buffer), 'identical to the audio read in one piece')
})

t.test('for a phone line, asks for 8 kHz and passes it on unchanged', async (t) => {
  const s = await standIn(t, { chunkBytes: 333 })
  const tts = new DeepgramAuraTts({ apiKey: KEY, baseUrl: s.origin })
  const { all } = await collect(tts.synthesize(TEXT, { sampleRate: 8000, signal: live() }))
  t.equal(all.length, Math.round((toneMs(TEXT) * 8000) / 1000), 'every sample at 8 kHz, none resampled')
  t.match(s.requests[0], { query: { encoding: 'linear16', sample_rate: '8000', container: 'none' }, outcome: 'completed' })
})

t.test('the voice picks the model', async (t) => {
  const s = await standIn(t)
  await collect(new DeepgramAuraTts({ apiKey: KEY, baseUrl: s.origin }).synthesize('hi', { voice: 'aura-2-apollo-en', signal: live() }))
  t.equal(s.requests[0]!.query.model, 'aura-2-apollo-en')
})

t.test('errors map to tts ProviderError codes from Deepgram error bodies', async (t) => {
  const s = await standIn(t)
  const bad = new DeepgramAuraTts({ apiKey: 'wrong-key', baseUrl: s.origin })
  await t.rejects(collect(bad.synthesize('hi', { signal: live() })), {
    name: 'ProviderError',
    category: 'tts',
    code: 'tts_failed',
    retryable: false,
    upstreamStatus: 401,
  })
  const tts = new DeepgramAuraTts({ apiKey: KEY, baseUrl: s.origin })
  await t.rejects(collect(tts.synthesize('hi', { voice: 'nova', signal: live() })), {
    code: 'tts_failed',
    retryable: false,
    upstreamStatus: 400,
    message: /No such model/,
  })
  s.fail({ kind: 'status', status: 429 }, { kind: 'status', status: 500 })
  await t.rejects(collect(tts.synthesize('hi', { signal: live() })), { code: 'tts_failed', retryable: true, upstreamStatus: 429 })
  await t.rejects(collect(tts.synthesize('hi', { signal: live() })), { code: 'tts_failed', retryable: true, upstreamStatus: 500 })
  await t.rejects(collect(tts.synthesize('y'.repeat(2001), { signal: live() })), { code: 'tts_failed', retryable: false })
  // The SDK leaves its own timeout timer running when fetch rejects, so a short one keeps this test quick.
  const down = new DeepgramAuraTts({ apiKey: KEY, baseUrl: 'http://127.0.0.1:1', timeoutMs: 500 })
  await t.rejects(collect(down.synthesize('hi', { signal: live() })), { code: 'tts_unavailable', retryable: true })
})

t.test('timeouts: no answer, and a stream that stops', async (t) => {
  const s = await standIn(t, { chunkBytes: 800 })
  const tts = new DeepgramAuraTts({ apiKey: KEY, baseUrl: s.origin, timeoutMs: 150, idleTimeoutMs: 150 })
  s.fail({ kind: 'hang' }, { kind: 'stall', afterChunks: 1 })
  await t.rejects(collect(tts.synthesize(TEXT, { signal: live() })), { code: 'tts_timeout', retryable: true })
  await t.rejects(collect(tts.synthesize(TEXT, { signal: live() })), { code: 'tts_timeout', message: /stopped streaming/ })
})

t.test('a reset mid-stream is a retryable failure; an abort closes the connection', async (t) => {
  const s = await standIn(t, { chunkBytes: 800, chunkIntervalMs: 10 })
  const tts = new DeepgramAuraTts({ apiKey: KEY, baseUrl: s.origin })
  s.fail({ kind: 'reset', afterChunks: 2 })
  await t.rejects(collect(tts.synthesize(TEXT, { signal: live() })), { code: 'tts_failed', retryable: true })

  const ac = new AbortController()
  const it = tts.synthesize(TEXT, { signal: ac.signal })
  for await (const c of it) {
    t.ok(c.length)
    ac.abort(new Error('barge-in'))
    break
  }
  t.equal(await s.requests.at(-1)!.ended, 'client_closed')
})
