import t, { type Test } from 'tap'
import { SAMPLE_RATE } from '../../../../../engine/audio/format.js'
import { OpenAiSpeechTts } from '../../../../../engine/pipeline/providers/tts/openai-speech.js'
import {
  startSpeechStandIn,
  toneMs,
  DEFAULT_SPEECH_KEYS,
  type SpeechStandIn,
  type SpeechStandInOptions,
} from '../../../../../engine/pipeline/providers/stand-ins/index.js'
import { collect, live } from './helpers.js'

const KEY = DEFAULT_SPEECH_KEYS.openai

async function standIn(t: Test, o: SpeechStandInOptions = {}): Promise<SpeechStandIn> {
  const s = await startSpeechStandIn(o)
  t.teardown(() => s.close())
  return s
}

const TEXT = 'Good morning, how can I help?'
const expected = Math.round((toneMs(TEXT) * SAMPLE_RATE) / 1000)

t.test('pcm at 24 kHz arrives resampled to 16 kHz, in chunks, with the key and settings sent', async (t) => {
  const s = await standIn(t, { chunkIntervalMs: 5 })
  const tts = new OpenAiSpeechTts({ apiKey: KEY, baseURL: s.openaiUrl, model: 'tts-1', voice: 'nova' })
  const { all, chunks, firstMs } = await collect(tts.synthesize(TEXT, { signal: live() }))
  t.ok(Math.abs(all.length - expected) <= 2, `${all.length} samples at 16 kHz, ${expected} expected`)
  t.ok(chunks.length > 3, `streamed in ${chunks.length} chunks (first after ${firstMs.toFixed(1)} ms)`)
  t.match(s.requests[0], { protocol: 'openai', authorization: `Bearer ${KEY}`, text: TEXT, voice: 'nova', model: 'tts-1', format: 'pcm', outcome: 'completed' })
  t.equal(s.requests[0]!.body.response_format, 'pcm')
  t.equal(s.requests[0]!.injected.bytes % 2, 0)
  t.ok(s.requests[0]!.injected.chunks > 1, 'odd-sized writes, so samples straddled reads')

  await collect(tts.synthesize('again', { voice: 'onyx', signal: live() }))
  t.equal(s.requests[1]!.voice, 'onyx', 'a request voice overrides the default')
})

t.test('wav with a streaming header (sizes 0xFFFFFFFF) is parsed and resampled', async (t) => {
  const s = await standIn(t, { chunkBytes: 7 })
  const tts = new OpenAiSpeechTts({ apiKey: KEY, baseURL: s.openaiUrl, responseFormat: 'wav' })
  const { all } = await collect(tts.synthesize(TEXT, { signal: live() }))
  t.ok(Math.abs(all.length - expected) <= 2, `${all.length} samples`)
  t.equal(s.requests[0]!.format, 'wav')
})

t.test('for a phone line, 8 kHz: pcm and wav come down once, a third of 24 kHz, with the tone kept', async (t) => {
  const at8k = Math.round((toneMs(TEXT) * 8000) / 1000)
  for (const responseFormat of ['pcm', 'wav'] as const) {
    const s = await standIn(t, { chunkBytes: 777 })
    const tts = new OpenAiSpeechTts({ apiKey: KEY, baseURL: s.openaiUrl, responseFormat })
    const { all } = await collect(tts.synthesize(TEXT, { sampleRate: 8000, signal: live() }))
    t.ok(Math.abs(all.length - at8k) <= 2, `${responseFormat}: ${all.length} samples at 8 kHz, ${at8k} expected`)
    const wide = await collect(tts.synthesize(TEXT, { signal: live() }))
    // The same audio at half the rate: every other 16 kHz sample, within a few LSB (the two
    // filters differ above 3.4 kHz, where the stand-in's tone has nothing).
    let worst = 0
    for (let i = 200; i < all.length - 200; i++) worst = Math.max(worst, Math.abs(all[i]! - wide.all[2 * i]!))
    t.ok(worst < 200, `${responseFormat}: 8 kHz against every other 16 kHz sample, at most ${worst} apart`)
  }
})

t.test('errors map to tts ProviderError codes, without the key in messages', async (t) => {
  const s = await standIn(t)
  const bad = new OpenAiSpeechTts({ apiKey: 'sk-wrong-key-123456', baseURL: s.openaiUrl })
  const e401 = await collect(bad.synthesize('hi', { signal: live() })).catch((e: unknown) => e)
  t.match(e401, { name: 'ProviderError', category: 'tts', code: 'tts_failed', retryable: false, upstreamStatus: 401 })
  t.notMatch((e401 as Error).message, /sk-wrong/)

  const tts = new OpenAiSpeechTts({ apiKey: KEY, baseURL: s.openaiUrl })
  s.fail({ kind: 'status', status: 429 }, { kind: 'status', status: 503 }, { kind: 'status', status: 400, message: 'bad voice' })
  await t.rejects(collect(tts.synthesize('hi', { signal: live() })), { code: 'tts_failed', retryable: true, upstreamStatus: 429 })
  await t.rejects(collect(tts.synthesize('hi', { signal: live() })), { code: 'tts_failed', retryable: true, upstreamStatus: 503 })
  await t.rejects(collect(tts.synthesize('hi', { signal: live() })), { code: 'tts_failed', retryable: false, message: /bad voice/ })
  await t.rejects(collect(tts.synthesize('x'.repeat(5000), { signal: live() })), { code: 'tts_failed', retryable: false })
  t.equal(s.requests.length, 4, 'over-long text is refused before any request')

  const down = new OpenAiSpeechTts({ apiKey: KEY, baseURL: 'http://127.0.0.1:1/v1' })
  await t.rejects(collect(down.synthesize('hi', { signal: live() })), { code: 'tts_unavailable', retryable: true })
})

t.test('a hang is a first-byte timeout; a stall mid-stream an idle timeout', async (t) => {
  const s = await standIn(t, { chunkBytes: 1000 })
  const tts = new OpenAiSpeechTts({ apiKey: KEY, baseURL: s.openaiUrl, timeoutMs: 150, idleTimeoutMs: 150 })
  s.fail({ kind: 'hang' }, { kind: 'stall', afterChunks: 2 })
  await t.rejects(collect(tts.synthesize(TEXT, { signal: live() })), { code: 'tts_timeout', retryable: true, message: /no (audio|response) within 150 ms/ })
  await t.rejects(collect(tts.synthesize(TEXT, { signal: live() })), { code: 'tts_timeout', message: /stopped streaming audio for 150 ms/ })
})

t.test('an abort mid-stream rejects with its reason and closes the connection', async (t) => {
  const s = await standIn(t, { chunkIntervalMs: 20, chunkBytes: 960 })
  const tts = new OpenAiSpeechTts({ apiKey: KEY, baseURL: s.openaiUrl })
  const ac = new AbortController()
  const got: Int16Array[] = []
  const run = (async () => {
    for await (const c of tts.synthesize(TEXT.repeat(5), { signal: ac.signal })) {
      got.push(c)
      if (got.length === 2) ac.abort(new Error('barge-in'))
    }
  })()
  await t.rejects(run, { message: 'barge-in' })
  t.equal(await s.requests[0]!.ended, 'client_closed', 'the stand-in saw the client hang up')
})

t.test('a consumer that stops early closes the connection; a body read to its end is left to finish', async (t) => {
  const s = await standIn(t, { chunkIntervalMs: 20, chunkBytes: 960 })
  const tts = new OpenAiSpeechTts({ apiKey: KEY, baseURL: s.openaiUrl })
  let taken = 0
  for await (const _ of tts.synthesize(TEXT.repeat(5), { signal: live() })) if (++taken === 2) break
  t.equal(await s.requests[0]!.ended, 'client_closed', 'a break hangs up')
  await collect(tts.synthesize(TEXT, { signal: live() }))
  t.equal(await s.requests[1]!.ended, 'completed', 'a whole body ends as the server ended it')
})
