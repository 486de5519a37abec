import t, { type Test } from 'tap'
import { OpenAiTranscribeStt } from '../../../../../engine/pipeline/providers/stt/index.js'
import { startTranscriptionStandIn } from '../../../../../engine/pipeline/providers/stand-ins/index.js'
import { sttConformance } from './conformance.js'

const KEY = 'sk-standin-transcribe-7788'

// A batch provider sees audio only when the VAD cuts it, so feeding it faster than real time
// changes nothing it could observe.
t.test('OpenAI-compatible transcription passes the STT conformance suite', async (t) => {
  await sttConformance(t, async () => {
    const s = await startTranscriptionStandIn({ apiKey: KEY, latencyMs: 20 })
    return {
      provider: (o) => new OpenAiTranscribeStt({ apiKey: o?.apiKey ?? KEY, baseURL: s.url, timeoutMs: 1000 }),
      script: (...texts) => s.script(...texts),
      failMidStream: () => s.fail({ kind: 'status', status: 500 }),
      hangNext: () => s.fail({ kind: 'hang' }),
      midStreamCodes: ['stt_unavailable', 'stt_failed'],
      speed: Infinity,
      apiKey: KEY,
      close: () => s.close(),
    }
  })
})

/** A stand-in scripted with `texts` and a stream on it cutting segments at 500 ms; the events are read once it closes. */
async function segmenting(t: Test, o: { texts: string[]; language: string; sampleRate: 8000 | 16000; model?: string }) {
  const s = await startTranscriptionStandIn({ apiKey: KEY })
  t.teardown(() => s.close())
  s.script(...o.texts)
  const stt = new OpenAiTranscribeStt({ apiKey: KEY, baseURL: s.url, maxUtteranceMs: 500, ...(o.model && { model: o.model }) })
  const stream = stt.open({ language: o.language, signal: new AbortController().signal, sampleRate: o.sampleRate })
  const events = async () => {
    await stream.close()
    const out = []
    for await (const e of stream.events) out.push(e)
    return out
  }
  return { s, stream, events }
}

t.test('a segment reaching maxUtteranceMs is sent without waiting, as a final that is not speech_final', async (t) => {
  const { s, stream, events } = await segmenting(t, { texts: ['one', 'two', 'three'], language: 'en-US', sampleRate: 16000, model: 'whisper-1' })
  for (let i = 0; i < 60; i++) stream.push(new Int16Array(320)) // 1.2 s
  stream.endUtterance()
  t.match(await events(), [
    { type: 'final', text: 'one', start_ms: 0, end_ms: 500, speech_final: false },
    { type: 'final', text: 'two', start_ms: 500, end_ms: 1000, speech_final: false },
    { type: 'final', text: 'three', start_ms: 1000, end_ms: 1200, speech_final: true },
  ])
  t.match(s.requests, [{ model: 'whisper-1', language: 'en', audioMs: 500 }, { audioMs: 500 }, { audioMs: 200 }])
})

t.test('at 8 kHz (a phone line) the segments are 8 kHz WAV files, their times and the 0.1 s minimum in the same audio time', async (t) => {
  const { s, stream, events } = await segmenting(t, { texts: ['one', 'two'], language: 'en', sampleRate: 8000 })
  for (let i = 0; i < 30; i++) stream.push(new Int16Array(160)) // 600 ms at 8 kHz
  stream.endUtterance()
  for (let i = 0; i < 4; i++) stream.push(new Int16Array(160)) // 80 ms: under the minimum, answered locally
  stream.endUtterance()
  t.match(await events(), [
    { type: 'final', text: 'one', start_ms: 0, end_ms: 500, speech_final: false },
    { type: 'final', text: 'two', start_ms: 500, end_ms: 600, speech_final: true },
    { type: 'final', text: '', start_ms: 600, end_ms: 680, speech_final: true },
  ])
  t.match(s.requests, [{ audioMs: 500 }, { audioMs: 100 }])
  t.equal(s.requests.length, 2)
})
