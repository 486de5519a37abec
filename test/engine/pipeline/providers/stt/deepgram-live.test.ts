import t from 'tap'
import { DeepgramLiveStt } from '../../../../../engine/pipeline/providers/stt/index.js'
import { startDeepgramStandIn } from '../../../../../engine/pipeline/providers/stand-ins/index.js'
import { sttConformance } from './conformance.js'

const KEY = 'dg-standin-key-5150'

// The stand-in finds utterances in audio time, as Deepgram does, so audio may be fed 4× faster
// than real time; its final latency is 20 ms so "promptly" measures the provider, not the script.
t.test('Deepgram live passes the STT conformance suite', async (t) => {
  await sttConformance(t, async () => {
    const s = await startDeepgramStandIn({ apiKey: KEY, finalLatencyMs: 20 })
    return {
      provider: (o) => new DeepgramLiveStt({ apiKey: o?.apiKey ?? KEY, baseUrl: s.url, finalTimeoutMs: 1000, connectTimeoutMs: 2000 }),
      script: (...texts) => s.script(...texts),
      failMidStream: () => s.fail({ kind: 'close', code: 1011, reason: 'NET-0000: internal error', afterAudioMs: 400 }),
      hangNext: () => s.fail({ kind: 'hang' }),
      midStreamCodes: ['stt_failed'],
      speed: 4,
      apiKey: KEY,
      close: () => s.close(),
    }
  })
})

t.test('connects with the configured options and keeps an idle socket alive', async (t) => {
  const s = await startDeepgramStandIn({ apiKey: KEY, finalLatencyMs: 0, idleTimeoutMs: 400 })
  t.teardown(() => s.close())
  const stt = new DeepgramLiveStt({ apiKey: KEY, baseUrl: s.url, model: 'nova-2', endpointingMs: 500, smartFormat: false, keepAliveMs: 100 })
  const stream = stt.open({ language: 'tr', signal: new AbortController().signal, sampleRate: 16000 })
  const events: unknown[] = []
  const done = (async () => {
    for await (const e of stream.events) events.push(e)
  })()
  stream.push(new Int16Array(320))
  // Longer than the stand-in's 400 ms idle limit: only KeepAlive holds the socket open.
  await new Promise((r) => setTimeout(r, 900))
  await stream.close()
  await done
  const session = s.sessions[0]!
  t.equal(session.auth, 'header')
  t.same(Object.fromEntries(session.query), {
    model: 'nova-2',
    language: 'tr',
    encoding: 'linear16',
    sample_rate: '16000',
    channels: '1',
    interim_results: 'true',
    endpointing: '500',
    smart_format: 'false',
    punctuate: 'true',
  })
  t.ok(session.keepAlives >= 3, `${session.keepAlives} KeepAlive messages`)
  t.equal(session.closeStreams, 1)
  t.equal(session.outcome, 'completed')
  t.same(events, [])
})

t.test("a phone line's stream goes as 8 kHz: sample_rate 8000, and the audio times follow it", async (t) => {
  const s = await startDeepgramStandIn({ apiKey: KEY, finalLatencyMs: 0 })
  t.teardown(() => s.close())
  const stream = new DeepgramLiveStt({ apiKey: KEY, baseUrl: s.url }).open({ language: 'en', signal: new AbortController().signal, sampleRate: 8000 })
  const done = (async () => {
    for await (const _ of stream.events);
  })()
  for (let i = 0; i < 60; i++) stream.push(new Int16Array(160)) // 1.2 s at 8 kHz, queued while connecting
  for (let i = 0; i < 200 && (s.sessions[0]?.audioBytes ?? 0) < 60 * 320; i++) await new Promise((r) => setTimeout(r, 10))
  await stream.close()
  await done
  const session = s.sessions[0]!
  t.equal(session.query.get('sample_rate'), '8000')
  t.equal(session.audioBytes, 60 * 320, 'every frame sent, 2 bytes a sample')
  const metadata = session.sent.find((m) => m['type'] === 'Metadata')
  t.equal(metadata?.['duration'], 1.2, 'the server counts 1.2 s of audio')
  t.throws(
    () => new DeepgramLiveStt({ apiKey: KEY, baseUrl: s.url }).open({ language: 'en', signal: new AbortController().signal, sampleRate: 44100 as 8000 }),
    RangeError,
  )
})

t.test('an unreachable server is stt_unavailable; a refused upgrade maps by status', async (t) => {
  const stt = new DeepgramLiveStt({ apiKey: KEY, baseUrl: 'ws://127.0.0.1:1', connectTimeoutMs: 1000 })
  const stream = stt.open({ language: 'en', signal: new AbortController().signal, sampleRate: 16000 })
  const events = []
  for await (const e of stream.events) events.push(e)
  t.equal(events.length, 1)
  t.equal(events[0]?.type === 'error' && events[0].error.code, 'stt_unavailable')

  const s = await startDeepgramStandIn({ apiKey: KEY })
  t.teardown(() => s.close())
  s.fail({ kind: 'reject', status: 503 }, { kind: 'reject', status: 400 })
  for (const [code, retryable] of [
    ['stt_unavailable', true],
    ['stt_failed', false],
  ] as const) {
    const st = new DeepgramLiveStt({ apiKey: KEY, baseUrl: s.url }).open({ language: 'en', signal: new AbortController().signal, sampleRate: 16000 })
    const got = []
    for await (const e of st.events) got.push(e)
    t.match(got, [{ type: 'error', error: { code, retryable } }])
  }
})

t.test('options are validated up front', async (t) => {
  t.throws(() => new DeepgramLiveStt({ apiKey: '' }), TypeError)
  t.throws(() => new DeepgramLiveStt({ apiKey: KEY, baseUrl: 'http://x' }), TypeError)
  t.throws(() => new DeepgramLiveStt({ apiKey: KEY, keepAliveMs: 0 }), RangeError)
})
