import t, { type Test } from 'tap'
import { concat, skipWithoutEspeak, speak, timeline, whiteNoise, silence, type Segment } from '../../helpers/speech.js'
import { SpeechDetector, Windower, type SpeechEvent } from '../../../engine/vad/detector.js'
import { BoundaryRefiner, EnergyVadModel, loadVad, SileroModel, type VadStream } from '../../../engine/vad/index.js'
import { VAD_WINDOW_SAMPLES } from '../../../engine/vad/types.js'
import { Resampler, type SpeechRate } from '../../../engine/audio/index.js'
import { decodeMulaw, encodeMulaw } from '../../../sip/index.js'

const skip = await skipWithoutEspeak()
const model = await SileroModel.load()
t.teardown(() => model.release())

async function probabilities(stream: VadStream, pcm: Int16Array): Promise<number[]> {
  const out: number[] = []
  for (const w of new Windower(0, stream.sampleRate).push(pcm)) out.push(await stream.process(w.samples))
  return out
}

async function detect(stream: VadStream, pcm: Int16Array, refine = true): Promise<SpeechEvent[]> {
  const rate: SpeechRate = stream.sampleRate
  const detector = new SpeechDetector()
  const refiner = new BoundaryRefiner({}, rate)
  const events: SpeechEvent[] = []
  // Refined as they happen, from the levels the refiner holds at that moment (as the pipeline does).
  const place = (e: SpeechEvent): SpeechEvent => (!refine ? e : { ...e, at: e.type === 'speech_start' ? refiner.refineStart(e.at) : refiner.refineEnd(e.at) })
  for (const w of new Windower(0, rate).push(pcm)) {
    refiner.push(w)
    events.push(...detector.process(await stream.process(w.samples), w.endMs).map(place))
  }
  return [...events, ...detector.finish((pcm.length * 1000) / rate).map(place)]
}

/** What a phone line carries of 16 kHz audio: 8 kHz (the telephone filter), µ-law coded and decoded. */
function overPhoneLine(pcm16k: Int16Array): Int16Array {
  const line = new Resampler(16_000, 8000, { band: 'telephone' })
  const narrow = Int16Array.from([...line.push(pcm16k), ...line.flush()])
  const codes = new Uint8Array(narrow.length)
  encodeMulaw(narrow, codes)
  const out = new Int16Array(narrow.length)
  decodeMulaw(codes, out)
  return out
}

/**
 * Tolerance of `at` against the true boundary (where espeak-ng's audio starts or ends, trimmed at
 * −50 dBFS): one window either way, the bar. Silero alone places edges late (starts
 * +0…+76 ms after a weak h/f onset, ends −6…+82 ms: its probability falls a window or two after
 * the sound), so the boundary refiner moves each edge onto the signal's level (measured on fifteen
 * en/tr phrases: starts −4…+4 ms, ends −4…+6 ms).
 */
const EARLY_MS = 32
const LATE_MS = 32

function assertBoundaries(t: Test, events: SpeechEvent[], speech: Segment[]): void {
  t.same(
    events.map((e) => e.type),
    speech.flatMap(() => ['speech_start', 'speech_end']),
    'one start and one end per utterance',
  )
  speech.forEach((segment, i) => {
    for (const [event, truth] of [
      [events[2 * i], segment.startMs],
      [events[2 * i + 1], segment.endMs],
    ] as const) {
      const error = (event?.at ?? NaN) - truth
      t.ok(error >= -EARLY_MS && error <= LATE_MS, `${event?.type} ${i + 1}: at ${event?.at} ms, truth ${truth} ms (${error >= 0 ? '+' : ''}${error} ms)`)
    }
  })
}

t.test('Silero finds where English and Turkish speech starts and ends', { skip }, async (t) => {
  const en = await speak('Hello, how can I help you today?', 'en')
  const tr = await speak('Merhaba, size nasıl yardımcı olabilirim?', 'tr')
  const { pcm, speech } = timeline(500, en, 800, tr, 500)
  assertBoundaries(t, await detect(model.stream(), pcm), speech)
})

t.test('the edges stay within a window over a noise bed (the floor adapts)', { skip }, async (t) => {
  const en = await speak('I would like to book a table for two.', 'en')
  const tr = await speak('Bu akşam saat sekizde müsait misiniz?', 'tr')
  const { pcm, speech } = timeline(1500, en, 900, tr, 700)
  const noise = whiteNoise(pcm.length / 16, -60, 3)
  const mixed = Int16Array.from(pcm, (x, i) => Math.max(-32768, Math.min(32767, x + noise[i]!)))
  assertBoundaries(t, await detect(model.stream(), mixed), speech)
})

t.test('at 8 kHz (a phone line, µ-law), the edges stay within a window too', { skip }, async (t) => {
  const en = await speak('Hello, how can I help you today?', 'en')
  const tr = await speak('Merhaba, size nasıl yardımcı olabilirim?', 'tr')
  const en2 = await speak('I would like to book a table for two.', 'en')
  const { pcm, speech } = timeline(500, en, 800, tr, 900, en2, 500)
  const line = overPhoneLine(pcm)
  t.equal(line.length, pcm.length / 2)
  const stream = model.stream(8000)
  t.equal(stream.sampleRate, 8000)
  assertBoundaries(t, await detect(stream, line), speech)
  // Over a line's idle noise (-60 dBFS), the floor adapts as at 16 kHz.
  const noise = whiteNoise(pcm.length / 16, -60, 3)
  const noisy = overPhoneLine(Int16Array.from(pcm, (x, i) => Math.max(-32768, Math.min(32767, x + noise[i]!))))
  assertBoundaries(t, await detect(model.stream(8000), noisy), speech)
})

t.test('8 and 16 kHz streams interleaved on one model give what each gives alone', { skip }, async (t) => {
  const wide = timeline(300, await speak('Yes, please.', 'en'), 300).pcm
  const narrow = overPhoneLine(timeline(100, await speak('Evet, teşekkürler.', 'tr'), 500).pcm)
  const aloneWide = await probabilities(model.stream(), wide)
  const aloneNarrow = await probabilities(model.stream(8000), narrow)
  t.ok(Math.max(...aloneNarrow) > 0.5, 'the 8 kHz stream hears the words')
  const [sw, sn] = [model.stream(16000), model.stream(8000)]
  const [ww, wn] = [new Windower(0, 16000).push(wide), new Windower(0, 8000).push(narrow)]
  const pw: Array<Promise<number>> = []
  const pn: Array<Promise<number>> = []
  for (let i = 0; i < Math.max(ww.length, wn.length); i++) {
    if (ww[i]) pw.push(sw.process(ww[i]!.samples))
    if (wn[i]) pn.push(sn.process(wn[i]!.samples))
  }
  t.same(await Promise.all(pw), aloneWide)
  t.same(await Promise.all(pn), aloneNarrow)
})

t.test('unrefined, Silero alone places the edges late (why the refiner exists)', { skip }, async (t) => {
  const { pcm, speech } = timeline(500, await speak('Thank you, that is all.', 'en'), 800)
  const [start] = await detect(model.stream(), pcm, false)
  t.ok(start!.at - speech[0]!.startMs > LATE_MS, `start ${start!.at - speech[0]!.startMs} ms late without it`)
})

t.test('Silero says < 0.2 on silence and low white noise, > 0.5 inside speech', { skip }, async (t) => {
  const stream = model.stream()
  t.ok(Math.max(...(await probabilities(stream, silence(2000)))) < 0.2, 'digital silence')
  for (const levelDb of [-60, -50, -40]) {
    stream.reset()
    const max = Math.max(...(await probabilities(stream, whiteNoise(2000, levelDb))))
    t.ok(max < 0.2, `white noise at ${levelDb} dBFS: max ${max.toFixed(3)}`)
  }
  stream.reset()
  const words = await speak('I would like to book a table for two.', 'en')
  const p = await probabilities(stream, concat(silence(500), words))
  // The middle of the utterance: from 0.5 s after it starts to 0.5 s before it ends.
  const inside = p.slice(Math.ceil(1000 / 32), Math.floor((500 + words.length / 16 - 500) / 32))
  const median = [...inside].sort((a, b) => a - b)[Math.floor(inside.length / 2)]!
  t.ok(median > 0.5, `median inside speech ${median.toFixed(3)}`)
  t.ok(inside.filter((x) => x > 0.5).length / inside.length > 0.8, 'most windows inside speech are above 0.5')
})

t.test('streams interleaved on one model give what each gives alone', { skip }, async (t) => {
  const a = timeline(300, await speak('Yes, please.', 'en'), 300).pcm
  const b = timeline(100, await speak('Evet, teşekkürler.', 'tr'), 500).pcm
  const aloneA = await probabilities(model.stream(), a)
  const aloneB = await probabilities(model.stream(), b)
  const sa = model.stream()
  const sb = model.stream()
  const wa = new Windower().push(a)
  const wb = new Windower().push(b)
  const together: Array<Promise<number>> = []
  const pa: Array<Promise<number>> = []
  const pb: Array<Promise<number>> = []
  // All calls issued at once, alternating streams: runs overlap in the shared session.
  for (let i = 0; i < Math.max(wa.length, wb.length); i++) {
    if (wa[i]) pa.push(sa.process(wa[i]!.samples))
    if (wb[i]) pb.push(sb.process(wb[i]!.samples))
  }
  together.push(...pa, ...pb)
  await Promise.all(together)
  t.same(await Promise.all(pa), aloneA)
  t.same(await Promise.all(pb), aloneB)
})

t.test('reset gives a stream a fresh state', { skip }, async (t) => {
  const pcm = timeline(200, await speak('Seven', 'en'), 200).pcm
  const stream = model.stream()
  const first = await probabilities(stream, pcm)
  stream.reset()
  t.same(await probabilities(stream, pcm), first)
})

t.test('the silence gate: quiet windows skip the model, the edges are the same as without it', { skip }, async (t) => {
  const ungated = await SileroModel.load(undefined, { silenceGateDbfs: null })
  t.teardown(() => ungated.release())
  const en = await speak('Hello, how can I help you today?', 'en')
  const tr = await speak('Merhaba, size nasıl yardımcı olabilirim?', 'tr')
  const { pcm, speech } = timeline(700, en, 900, tr, 600)
  const before = model.stats
  const gatedEvents = await detect(model.stream(), pcm)
  const gated = model.stats.gated - before.gated
  const ran = model.stats.windows - before.windows
  t.ok(gated > 0 && ran > 0, `digital silence was gated (${gated} windows), speech ran (${ran})`)
  t.equal(gated + ran, Math.floor(pcm.length / VAD_WINDOW_SAMPLES), 'every window either ran or was gated')
  const plain = await detect(ungated.stream(), pcm)
  assertBoundaries(t, gatedEvents, speech)
  assertBoundaries(t, plain, speech)
  for (const [i, e] of gatedEvents.entries()) {
    const diff = Math.abs(e.at - plain[i]!.at)
    t.ok(diff <= 32, `${e.type} ${i}: ${e.at} ms gated, ${plain[i]!.at} ms ungated`)
  }
  t.equal(ungated.stats.gated, 0, 'null turns the gate off')
})

t.test('the gate spares only what is below its level', async (t) => {
  const before = model.stats
  const stream = model.stream()
  for (const levelDb of [-90, -75]) await probabilities(stream, whiteNoise(640, levelDb, 5))
  const quiet = model.stats.gated - before.gated
  t.equal(quiet, 2 * Math.floor((640 * 16) / VAD_WINDOW_SAMPLES), 'noise under -70 dBFS is gated')
  const mid = model.stats
  await probabilities(stream, whiteNoise(640, -60, 5))
  t.equal(model.stats.gated, mid.gated, 'noise at -60 dBFS runs the model')
  t.ok(model.stats.windows > mid.windows)
  await t.rejects(SileroModel.load(undefined, { silenceGateDbfs: 3 }), RangeError)
})

t.test('a window of the wrong size is refused', async (t) => {
  await t.rejects(async () => model.stream().process(new Int16Array(320)), RangeError)
  await t.rejects(async () => model.stream(8000).process(new Int16Array(512)), /at 8000 Hz is 256 samples/)
  await t.rejects(async () => model.stream(16000).process(new Int16Array(256)), /at 16000 Hz is 512 samples/)
  t.throws(() => model.stream(44100 as 8000), RangeError, 'a rate the model has no branch for is refused')
  t.throws(() => new EnergyVadModel().stream(11025 as 8000), RangeError, 'and the energy VAD refuses it too')
  t.equal(new EnergyVadModel().stream(8000).score(new Int16Array(256)) < 0.5, true, 'the energy VAD takes 8 kHz windows')
})

t.test('the gate works per window at 8 kHz: a quiet line costs no inference', async (t) => {
  const stream = model.stream(8000)
  const before = model.stats
  await probabilities(stream, whiteNoise(1280, -80, 5).subarray(0, 1280 * 8))
  t.equal(model.stats.gated - before.gated, 40, 'forty 8 kHz windows under -70 dBFS gated')
  t.equal(model.stats.windows, before.windows, 'none ran')
  const mid = model.stats
  await probabilities(stream, whiteNoise(640, -60, 5).subarray(0, 640 * 8))
  t.equal(model.stats.gated, mid.gated, 'noise at -60 dBFS runs the model')
  t.equal(model.stats.windows - mid.windows, 20)
})

t.test('loadVad falls back to the energy VAD with a warning', async (t) => {
  const warnings: string[] = []
  const vad = await loadVad({ modelPath: '/nonexistent/silero.onnx', logger: { warn: (_obj, msg) => warnings.push(msg) } })
  t.equal(vad.kind, 'energy')
  t.equal(warnings.length, 1)
  t.equal(typeof (await vad.stream().process(new Int16Array(512))), 'number')
  const silero = await loadVad()
  t.equal(silero.kind, 'silero')
  await silero.release()
})

t.test('windows of many streams run batched give exactly what each stream gives alone', async (t) => {
  const model = await SileroModel.load()
  t.teardown(() => model.release())
  // Six different signals: chirps and seeded noise at several levels, 40 windows each.
  const signal = (k: number) => {
    let s = 7 + k
    return Int16Array.from({ length: 40 * VAD_WINDOW_SAMPLES }, (_, i) => {
      s = (s * 1103515245 + 12345) >>> 0
      const noise = ((s >>> 16) / 65536 - 0.5) * 2000 * (k % 3)
      return Math.round(9000 * Math.sin((i * (k + 1) * i) / 4e6) * (Math.floor(i / 4096) % 2) + noise)
    })
  }
  const windows = (pcm: Int16Array) =>
    Array.from({ length: pcm.length / VAD_WINDOW_SAMPLES }, (_, w) => pcm.subarray(w * VAD_WINDOW_SAMPLES, (w + 1) * VAD_WINDOW_SAMPLES))
  const inputs = Array.from({ length: 6 }, (_, k) => windows(signal(k)))
  const alone: number[][] = []
  for (const ws of inputs) {
    const s = model.stream()
    const out: number[] = []
    for (const w of ws) out.push(await s.process(w))
    alone.push(out)
  }
  // Together: every stream's next window submitted in the same turn, as a busy engine does.
  const streams = inputs.map(() => model.stream())
  const together = await Promise.all(streams.map((s, k) => Promise.all(inputs[k]!.map((w) => s.process(w)))))
  t.same(together, alone)
  const all = alone.flat()
  t.ok(
    Math.max(...all) - Math.min(...all) > 0.01,
    `the signals move the model (${Math.min(...all).toFixed(3)}…${Math.max(...all).toFixed(3)}), so equal sequences mean something`,
  )
})

t.test('under load the windows of many streams share runs; a lone stream runs each window alone, at once', async (t) => {
  const model = await SileroModel.load()
  t.teardown(() => model.release())
  const window = Int16Array.from({ length: VAD_WINDOW_SAMPLES }, (_, i) => Math.round(3000 * Math.sin(i / 7)))
  // Each stream sends one window every 32 ms (real time), from `count` streams at staggered offsets.
  const drive = async (count: number, ms: number) => {
    const streams = Array.from({ length: count }, () => model.stream())
    const waits: number[] = []
    const timers = streams.map((s, k) =>
      setTimeout(
        () => {
          const iv = setInterval(() => {
            const at = performance.now()
            void s.process(window).then(() => waits.push(performance.now() - at))
          }, 32)
          t.teardown(() => clearInterval(iv))
          setTimeout(() => clearInterval(iv), ms)
        },
        (k * 32) / count,
      ),
    )
    t.teardown(() => timers.forEach(clearTimeout))
    await new Promise((r) => setTimeout(r, ms + 200))
    return waits
  }
  const lone0 = model.stats
  await drive(1, 600)
  const lone = { windows: model.stats.windows - lone0.windows, runs: model.stats.runs - lone0.runs }
  t.equal(lone.runs, lone.windows, `one stream: every window ran at once, alone (${lone.windows} windows)`)

  const busy0 = model.stats
  const waits = await drive(48, 1500)
  const busy = { windows: model.stats.windows - busy0.windows, runs: model.stats.runs - busy0.runs }
  const mean = busy.windows / busy.runs
  t.ok(mean >= 2, `48 streams (1500 windows/s): ${busy.windows} windows in ${busy.runs} runs, ${mean.toFixed(1)} per run`)
  t.ok(waits.length > 1000, `every window answered (${waits.length})`)
})

t.test('a window array refilled as soon as process() returns gives what fresh arrays give', { skip }, async (t) => {
  // The call's windower hands the VAD one array and refills it at once (VadStream.process): a run
  // still queued, a gated window's context and a reused input array must all be copies by then.
  // A noise bed under the gate's level (gated windows whose tails are not zeros), and speech last
  // (the array ends up holding speech, not what a gated window held).
  const words = await speak('Yes, I would like that.', 'en')
  const wide = concat(whiteNoise(300, -80, 3), words, whiteNoise(400, -80, 4), words)
  for (const rate of [16000, 8000] as const) {
    const pcm = rate === 8000 ? overPhoneLine(wide) : wide
    const fresh = await probabilities(model.stream(rate), pcm)
    const stream = model.stream(rate)
    const pending: Array<Promise<number>> = []
    new Windower(0, rate).cut(pcm, (w) => pending.push(stream.process(w.samples)))
    const reused = await Promise.all(pending)
    t.ok(Math.max(...fresh) > 0.5 && Math.min(...fresh) < 0.2, `${rate} Hz: speech and silence both heard`)
    t.same(reused, fresh, `${rate} Hz: ${reused.length} windows, all queued before the first ran`)
  }
})
