/**
 * The behaviour every SttProvider owes the pipeline, run against each provider over its real SDK
 * and a stand-in speaking the provider's wire protocol, with real (espeak-ng) speech streamed in
 * 20 ms frames. One test file per provider calls sttConformance with a harness.
 */
import type { Test } from 'tap'
import type { ProviderErrorCode, SttEvent, SttProvider, SttStream } from '../../../../../engine/pipeline/providers/stt/index.js'
import { concat, silence, skipWithoutEspeak, speak, stream } from './audio-fixture.js'

export interface SttHarness {
  /** A provider pointed at the stand-in; `apiKey` overrides the right key. */
  provider(o?: { apiKey?: string }): SttProvider
  /** Transcripts the stand-in answers for the coming utterances, in order. */
  script(...texts: string[]): void
  /** The next stream (or request) breaks off after some audio. */
  failMidStream(): void
  /** The next stream (or request) is accepted and never answered. */
  hangNext(): void
  /** What a mid-stream failure may be reported as. */
  midStreamCodes: ProviderErrorCode<'stt'>[]
  /** How much faster than real time audio is fed (each harness says why it may). */
  speed: number
  /** The key, to check that no message leaks it. */
  apiKey: string
  close(): Promise<void>
}

interface Seen {
  events: SttEvent[]
  /** performance.now() of each event. */
  times: number[]
  ended: Promise<void>
}

function collect(s: SttStream): Seen {
  const seen: Seen = { events: [], times: [], ended: Promise.resolve() }
  seen.ended = (async () => {
    for await (const e of s.events) {
      seen.events.push(e)
      seen.times.push(performance.now())
    }
  })()
  return seen
}

const finals = (seen: Seen) => seen.events.filter((e) => e.type === 'final' && e.text).map((e) => (e.type === 'final' ? e.text : ''))
const errors = (seen: Seen) => seen.events.filter((e) => e.type === 'error')

function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout
  return Promise.race([p, new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)))]).finally(() =>
    clearTimeout(timer),
  )
}

/** Skips without espeak-ng, except on CI (CI=true), where it fails: see test/helpers/speech.ts. */
export async function sttConformance(t: Test, start: () => Promise<SttHarness>): Promise<void> {
  const missing = await skipWithoutEspeak()
  if (missing) {
    t.test('STT conformance', { skip: missing }, () => {})
    return
  }
  let h: SttHarness
  const audio: Record<string, Int16Array> = {}
  t.before(async () => {
    h = await start()
    for (const text of ['Hello there', 'How are you today', 'Book a table for two']) audio[text] = await speak(text, 'en')
  })
  t.teardown(() => h.close())
  const open = (p = h.provider(), signal = new AbortController().signal) => p.open({ language: 'en', signal, sampleRate: 16000 })
  const say = (text: string) => audio[text]!

  t.test('yields the scripted finals in the order spoken, each utterance ended by endUtterance', async (t) => {
    h.script('Hello there.', 'How are you today?')
    const s = open()
    const seen = collect(s)
    await stream(concat(say('Hello there'), silence(700)), (f) => s.push(f), h.speed)
    s.endUtterance()
    await stream(concat(say('How are you today'), silence(700)), (f) => s.push(f), h.speed)
    s.endUtterance()
    await within(s.close(), 5000, 'close')
    await within(seen.ended, 1000, 'events end after close')
    t.same(finals(seen), ['Hello there.', 'How are you today?'])
    t.same(errors(seen), [])
    const last = seen.events.filter((e) => e.type === 'final').at(-1)
    t.equal(last?.type === 'final' && last.speech_final, true, 'the final answering endUtterance is speech_final')
    if (h.provider().streaming)
      t.ok(
        seen.events.some((e) => e.type === 'partial'),
        'a streaming provider sends partials while speech flows',
      )
  })

  t.test('endUtterance produces the final promptly', async (t) => {
    h.script('Book a table for two.')
    const s = open()
    const seen = collect(s)
    await stream(say('Book a table for two'), (f) => s.push(f), h.speed)
    const asked = performance.now()
    s.endUtterance()
    while (!finals(seen).length && !errors(seen).length) await new Promise((r) => setTimeout(r, 5))
    t.same(finals(seen), ['Book a table for two.'])
    const i = seen.events.findIndex((e) => e.type === 'final' && e.text)
    t.ok(seen.times[i]! - asked < 1000, `final ${Math.round(seen.times[i]! - asked)} ms after endUtterance`)
    await s.close()
  })

  t.test('close() finalizes the audio still pending and then ends the events', async (t) => {
    h.script('Hello there.')
    const s = open()
    const seen = collect(s)
    await stream(say('Hello there'), (f) => s.push(f), h.speed)
    await within(s.close(), 5000, 'close')
    await within(seen.ended, 1000, 'events end')
    t.same(finals(seen), ['Hello there.'])
    t.same(errors(seen), [])
  })

  t.test('an abort ends the events at once, without an error event or an unhandled rejection', async (t) => {
    const unhandled: unknown[] = []
    const onUnhandled = (e: unknown) => unhandled.push(e)
    process.on('unhandledRejection', onUnhandled)
    t.teardown(() => void process.off('unhandledRejection', onUnhandled))
    h.script('How are you today?')
    const ac = new AbortController()
    const s = open(h.provider(), ac.signal)
    const seen = collect(s)
    await stream(say('How are you today').subarray(0, 8000), (f) => s.push(f), h.speed)
    s.endUtterance()
    ac.abort()
    await within(seen.ended, 500, 'events end after abort')
    t.same(errors(seen), [])
    t.doesNotThrow(() => s.push(new Int16Array(320)), 'push after abort is a no-op')
    await within(s.close(), 500, 'close after abort')
    await new Promise((r) => setTimeout(r, 300))
    t.same(unhandled, [])
    // An already-aborted signal: the stream is born ended.
    const dead = open(h.provider(), AbortSignal.abort())
    const deadSeen = collect(dead)
    await within(deadSeen.ended, 500, 'events of a stream opened aborted end')
    t.same(deadSeen.events, [])
  })

  t.test('a refused key is an stt_auth error, the last event', async (t) => {
    const s = open(h.provider({ apiKey: 'wrong-key-0000-1111' }))
    const seen = collect(s)
    await stream(concat(say('Hello there'), silence(200)), (f) => s.push(f), h.speed)
    s.endUtterance()
    await within(seen.ended, 5000, 'events end')
    const last = seen.events.at(-1)
    t.equal(last?.type, 'error')
    if (last?.type !== 'error') return
    t.equal(last.error.code, 'stt_auth')
    t.equal(last.error.retryable, false)
    t.notMatch(last.error.message, 'wrong-key-0000-1111')
    await s.close()
  })

  t.test('a failure mid-stream is an error event, then the events end', async (t) => {
    h.failMidStream()
    h.script('How are you today?')
    const s = open()
    const seen = collect(s)
    await stream(concat(say('How are you today'), silence(300)), (f) => s.push(f), h.speed)
    s.endUtterance()
    await within(seen.ended, 5000, 'events end')
    const last = seen.events.at(-1)
    t.equal(last?.type, 'error')
    if (last?.type === 'error') {
      t.ok(h.midStreamCodes.includes(last.error.code), `code ${last.error.code}`)
      t.notMatch(last.error.message, h.apiKey)
    }
    t.equal(errors(seen).length, 1)
    await s.close()
  })

  t.test('a provider that stops answering is an stt_timeout error', async (t) => {
    h.hangNext()
    h.script('Hello there.')
    const s = open()
    const seen = collect(s)
    await stream(say('Hello there'), (f) => s.push(f), h.speed)
    s.endUtterance()
    await within(seen.ended, 5000, 'events end')
    const last = seen.events.at(-1)
    t.equal(last?.type === 'error' && last.error.code, 'stt_timeout')
    t.equal(last?.type === 'error' && last.error.retryable, true)
    await s.close()
  })

  t.test('push, endUtterance and close after close are no-ops', async (t) => {
    const s = open()
    const seen = collect(s)
    await s.close()
    await within(seen.ended, 1000, 'events end')
    t.doesNotThrow(() => {
      s.push(say('Hello there'))
      s.endUtterance()
    })
    await within(s.close(), 500, 'second close')
    t.same(
      seen.events.filter((e) => e.type !== 'final' || e.text),
      [],
    )
  })
}
