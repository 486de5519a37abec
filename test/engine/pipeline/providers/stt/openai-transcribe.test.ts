import t from 'tap'
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

t.test('a segment reaching maxUtteranceMs is sent without waiting, as a final that is not speech_final', async (t) => {
  const s = await startTranscriptionStandIn({ apiKey: KEY })
  t.teardown(() => s.close())
  s.script('one', 'two', 'three')
  const stream = new OpenAiTranscribeStt({ apiKey: KEY, baseURL: s.url, maxUtteranceMs: 500, model: 'whisper-1' }).open({
    language: 'en-US',
    signal: new AbortController().signal,
    sampleRate: 16000,
  })
  for (let i = 0; i < 60; i++) stream.push(new Int16Array(320)) // 1.2 s
  stream.endUtterance()
  await stream.close()
  const events = []
  for await (const e of stream.events) events.push(e)
  t.match(events, [
    { type: 'final', text: 'one', start_ms: 0, end_ms: 500, speech_final: false },
    { type: 'final', text: 'two', start_ms: 500, end_ms: 1000, speech_final: false },
    { type: 'final', text: 'three', start_ms: 1000, end_ms: 1200, speech_final: true },
  ])
  t.match(s.requests, [{ model: 'whisper-1', language: 'en', audioMs: 500 }, { audioMs: 500 }, { audioMs: 200 }])
})

t.test('at 8 kHz (a phone line) the segments are 8 kHz WAV files, their times and the 0.1 s minimum in the same audio time', async (t) => {
  const s = await startTranscriptionStandIn({ apiKey: KEY })
  t.teardown(() => s.close())
  s.script('one', 'two')
  const stream = new OpenAiTranscribeStt({ apiKey: KEY, baseURL: s.url, maxUtteranceMs: 500 }).open({
    language: 'en',
    signal: new AbortController().signal,
    sampleRate: 8000,
  })
  for (let i = 0; i < 30; i++) stream.push(new Int16Array(160)) // 600 ms at 8 kHz
  stream.endUtterance()
  for (let i = 0; i < 4; i++) stream.push(new Int16Array(160)) // 80 ms: under the minimum, answered locally
  stream.endUtterance()
  await stream.close()
  const events = []
  for await (const e of stream.events) events.push(e)
  t.match(events, [
    { type: 'final', text: 'one', start_ms: 0, end_ms: 500, speech_final: false },
    { type: 'final', text: 'two', start_ms: 500, end_ms: 600, speech_final: true },
    { type: 'final', text: '', start_ms: 600, end_ms: 680, speech_final: true },
  ])
  t.match(s.requests, [{ audioMs: 500 }, { audioMs: 100 }])
  t.equal(s.requests.length, 2)
})
