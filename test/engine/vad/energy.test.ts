import t from 'tap'
import { concat, skipWithoutEspeak, speak, timeline, whiteNoise } from '../../helpers/speech.js'
import { SpeechDetector, Windower, type SpeechEvent } from '../../../engine/vad/detector.js'
import { EnergyVad } from '../../../engine/vad/energy.js'

const skip = await skipWithoutEspeak()

function detect(vad: EnergyVad, pcm: Int16Array): SpeechEvent[] {
  const detector = new SpeechDetector()
  const events: SpeechEvent[] = []
  for (const w of new Windower().push(pcm)) events.push(...detector.process(vad.score(w.samples), w.endMs))
  return [...events, ...detector.finish((pcm.length * 1000) / 16000)]
}

/**
 * Looser than Silero's in principle, ±64 ms (two windows): a level detector has no model of
 * speech, so a breath or a trailing fade moves its boundaries. On espeak-ng's clean speech it
 * measured −20…+26 ms in silence.
 */
const TOLERANCE_MS = 64

t.test('the energy VAD finds where English and Turkish speech starts and ends', { skip }, async (t) => {
  const en = await speak('Hello, how can I help you today?', 'en')
  const tr = await speak('Merhaba, size nasıl yardımcı olabilirim?', 'tr')
  const { pcm, speech } = timeline(500, en, 800, tr, 500)
  const cases: Array<[string, Int16Array]> = [
    ['silence', pcm],
    // Noise under the whole timeline, speech included.
    ['white noise at -50 dBFS', mix(pcm, whiteNoise((pcm.length * 1000) / 16000, -50))],
  ]
  for (const [name, mixed] of cases) {
    const events = detect(new EnergyVad(), mixed)
    t.same(
      events.map((e) => e.type),
      ['speech_start', 'speech_end', 'speech_start', 'speech_end'],
      `${name}: events`,
    )
    const truth = speech.flatMap((s) => [s.startMs, s.endMs])
    events.forEach((e, i) => {
      const error = e.at - truth[i]!
      t.ok(Math.abs(error) <= TOLERANCE_MS, `${name}: ${e.type} at ${e.at} ms, truth ${truth[i]} ms (${error} ms)`)
    })
  }
})

function mix(a: Int16Array, b: Int16Array): Int16Array {
  return Int16Array.from(a, (v, i) => Math.max(-32768, Math.min(32767, v + (b[i] ?? 0))))
}

t.test('steady noise is learned as the floor within floorHistoryMs', async (t) => {
  const vad = new EnergyVad()
  const p = new Windower().push(whiteNoise(5000, -30)).map((w) => vad.score(w.samples))
  // 20 dB above the assumed -50 dBFS floor: speech-like at first, learned after 3 s.
  t.ok(p[0]! > 0.5, 'loud at first')
  t.ok(Math.max(...p.slice(Math.ceil(3000 / 32) + 1)) < 0.2, 'noise, once learned, is not speech')
})

t.test('digital silence does not make faint noise speech', async (t) => {
  const vad = new EnergyVad()
  const windows = new Windower().push(concat(new Int16Array(16000), whiteNoise(1000, -60)))
  const p = windows.map((w) => vad.score(w.samples))
  t.ok(Math.max(...p) < 0.2, `max ${Math.max(...p).toFixed(3)}`)
})

t.test('process() is score() behind the VadStream interface; reset restores the floor', async (t) => {
  const vad = new EnergyVad()
  const window = whiteNoise(32, -20)
  const p = await vad.process(window)
  vad.reset()
  t.equal(vad.score(window), p)
})
