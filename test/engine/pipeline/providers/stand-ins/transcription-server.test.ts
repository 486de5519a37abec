import t, { type Test } from 'tap'
import { encodeWav } from '../../../../../engine/audio/index.js'
import { startTranscriptionStandIn, type TranscriptionStandIn } from '../../../../../engine/pipeline/providers/stand-ins/index.js'

const KEY = 'sk-standin-transcribe-0042'

async function standIn(t: Test): Promise<TranscriptionStandIn> {
  const s = await startTranscriptionStandIn({ apiKey: KEY })
  t.teardown(() => s.close())
  return s
}

function post(s: TranscriptionStandIn, fields: Record<string, string>, wav?: Buffer, key = KEY): Promise<Response> {
  const form = new FormData()
  for (const [k, v] of Object.entries(fields)) form.set(k, v)
  if (wav) form.set('file', new Blob([new Uint8Array(wav)], { type: 'audio/wav' }), 'a.wav')
  return fetch(`${s.url}/audio/transcriptions`, { method: 'POST', body: form, headers: { authorization: `Bearer ${key}` } })
}

const second = encodeWav(new Int16Array(16000), 16000)

t.test('answers the scripted transcripts in order, in json or text', async (t) => {
  const s = await standIn(t)
  s.script('first', { text: 'second', latencyMs: 30 })
  const a = await post(s, { model: 'whisper-1', language: 'en' }, second)
  t.equal(a.status, 200)
  t.match(await a.json(), { text: 'first' })
  const b = await post(s, { model: 'gpt-4o-mini-transcribe', response_format: 'text' }, second)
  t.equal(await b.text(), 'second')
  t.match(s.requests, [
    { model: 'whisper-1', language: 'en', fileName: 'a.wav', audioMs: 1000, status: 200, text: 'first', outcome: 'completed' },
    { responseFormat: 'text', injectedLatencyMs: 30 },
  ])
})

t.test('refuses what OpenAI refuses, in its error shape', async (t) => {
  const s = await standIn(t)
  const cases: Array<[Promise<Response>, number, RegExp]> = [
    [post(s, { model: 'whisper-1' }, second, 'sk-wrong-key-123456'), 401, /Incorrect API key provided: sk-\**3456/],
    [post(s, { model: 'whisper-1' }), 400, /'file' is a required property/],
    [post(s, {}, second), 400, /'model' is a required property/],
    [post(s, { model: 'whisper-1' }, encodeWav(new Int16Array(800), 16000)), 400, /too short/],
    [post(s, { model: 'whisper-1' }, Buffer.from('not a wav')), 400, /Invalid file format/],
  ]
  for (const [res, status, message] of cases) {
    const r = await res
    t.equal(r.status, status)
    t.match(((await r.json()) as { error: { message: string } }).error.message, message)
  }
})

t.test('injected failures: a status, then a hang that never answers', async (t) => {
  const s = await standIn(t)
  s.fail({ kind: 'status', status: 503 }, { kind: 'hang' })
  t.equal((await post(s, { model: 'whisper-1' }, second)).status, 503)
  const hung = post(s, { model: 'whisper-1' }, second).catch(() => 'cut off')
  await new Promise((r) => setTimeout(r, 150))
  t.equal(s.requests[1]!.status, 0, 'no answer')
  await s.close()
  t.equal(await hung, 'cut off')
  await new Promise((r) => setTimeout(r, 20))
  t.equal(s.requests[1]!.outcome, 'client_closed')
})
