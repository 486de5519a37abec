import t, { type Test } from 'tap'
import {
  startSpeechStandIn,
  toneMs,
  DEFAULT_SPEECH_KEYS,
  type SpeechStandIn,
  type SpeechStandInOptions,
} from '../../../../../engine/pipeline/providers/stand-ins/index.js'

async function standIn(t: Test, o: SpeechStandInOptions = {}): Promise<SpeechStandIn> {
  const s = await startSpeechStandIn(o)
  t.teardown(() => s.close())
  return s
}

const openai = (s: SpeechStandIn, body: unknown, key: string = DEFAULT_SPEECH_KEYS.openai) =>
  fetch(`${s.openaiUrl}/audio/speech`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  })
const deepgram = (s: SpeechStandIn, query: string, body: unknown, key: string = DEFAULT_SPEECH_KEYS.deepgram) =>
  fetch(`${s.origin}/v1/speak?${query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Token ${key}` },
    body: JSON.stringify(body),
  })

t.test('OpenAI pcm is 24 kHz PCM16 whose length follows the text; wav adds a streaming header', async (t) => {
  const s = await standIn(t)
  const pcm = Buffer.from(await (await openai(s, { model: 'tts-1', voice: 'alloy', input: 'hello world', response_format: 'pcm' })).arrayBuffer())
  t.equal(pcm.length, toneMs('hello world') * 24 * 2)
  const res = await openai(s, { model: 'tts-1', voice: 'alloy', input: 'hello world', response_format: 'wav' })
  const wav = Buffer.from(await res.arrayBuffer())
  t.equal(res.headers.get('content-type'), 'audio/wav')
  t.equal(wav.toString('latin1', 0, 4), 'RIFF')
  t.equal(wav.readUInt32LE(40), 0xffffffff, 'data size unknown, as when streaming')
  t.same(wav.subarray(44), pcm)
})

t.test('OpenAI refusals use its error envelope', async (t) => {
  const s = await standIn(t)
  const unauth = await openai(s, { model: 'tts-1', voice: 'alloy', input: 'x' }, 'sk-wrong-0000000000')
  t.equal(unauth.status, 401)
  t.match(await unauth.json(), { error: { code: 'invalid_api_key', message: /sk-\*+0000/ } })
  const mp3 = await openai(s, { model: 'tts-1', voice: 'alloy', input: 'x' })
  t.equal(mp3.status, 400, 'the default mp3 is not produced')
  t.match(await mp3.json(), { error: { param: 'response_format', type: 'invalid_request_error' } })
  t.equal((await openai(s, { model: 'tts-1', input: 'x', response_format: 'pcm' })).status, 400, 'voice is required')
  t.same(
    s.requests.map((r) => r.status),
    [401, 400, 400],
  )
})

t.test('Deepgram linear16: container none is raw, errors carry err_code/err_msg', async (t) => {
  const s = await standIn(t)
  const raw = await deepgram(s, 'model=aura-2-thalia-en&encoding=linear16&sample_rate=16000&container=none', { text: 'hi there' })
  t.equal(Buffer.from(await raw.arrayBuffer()).length, toneMs('hi there') * 16 * 2)
  const bad = await deepgram(s, 'model=aura-2-thalia-en&encoding=linear16&sample_rate=16000', { text: 'x' }, 'nope')
  t.equal(bad.status, 401)
  t.match(await bad.json(), { err_code: 'INVALID_AUTH', err_msg: String, request_id: String })
  t.equal((await deepgram(s, 'model=aura-2-thalia-en&encoding=linear16&sample_rate=11025', { text: 'x' })).status, 400)
  t.match(s.requests[0], { protocol: 'deepgram', text: 'hi there', sampleRateHz: 16000, format: 'pcm', outcome: 'completed' })
})

t.test('paces output and logs the delays it injected; injected failures apply in order', async (t) => {
  const s = await standIn(t, { firstByteLatencyMs: 60, chunkIntervalMs: 5, chunkBytes: 1001 })
  const t0 = performance.now()
  await (await openai(s, { model: 'tts-1', voice: 'alloy', input: 'paced', response_format: 'pcm' })).arrayBuffer()
  t.ok(performance.now() - t0 >= 55)
  t.match(s.requests[0]!.injected, { firstByteMs: 60, chunkIntervalMs: 5, failure: null, bytes: toneMs('paced') * 48 })
  t.equal(s.requests[0]!.injected.chunks, Math.ceil((toneMs('paced') * 48) / 1001))
  s.pace({ firstByteLatencyMs: 0 })
  s.fail({ kind: 'status', status: 503 }, { kind: 'status', status: 429 })
  const e1 = await openai(s, { model: 'tts-1', voice: 'alloy', input: 'x', response_format: 'pcm' })
  t.equal(e1.status, 503)
  t.match(await e1.json(), { error: { type: 'server_error' } })
  const e2 = await deepgram(s, 'model=aura-2-thalia-en&encoding=linear16&sample_rate=16000&container=none', { text: 'x' })
  t.equal(e2.status, 429)
  t.match(await e2.json(), { err_code: 'TOO_MANY_REQUESTS' })
  t.equal(s.requests[2]!.injected.failure, 'status 429')
})
