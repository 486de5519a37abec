import t from 'tap'
import { Resampler } from '../../client/src/resampler.js'

// The browser library's resampler (client/src/resampler.ts): microphone rate → 16 kHz for the
// protocol, 16 kHz → the AudioContext's rate for playback. The oracle is arithmetic on sines.

const QUANTUM = 128

function tone(hz: number, rateHz: number, seconds: number, amplitude = 0.5): Float32Array {
  return Float32Array.from({ length: Math.round(rateHz * seconds) }, (_, i) => amplitude * Math.sin((2 * Math.PI * hz * i) / rateHz))
}

/** Streams `input` through `r` in blocks of the given sizes (cycled), as a worklet would. */
function stream(r: Resampler, input: Float32Array, sizes = [QUANTUM]): Float32Array {
  const parts: number[] = []
  for (let at = 0, k = 0; at < input.length; k++) {
    const block = input.subarray(at, at + sizes[k % sizes.length]!)
    parts.push(...r.processAll(block))
    at += block.length
  }
  return Float32Array.from(parts)
}

/** Amplitude of the `hz` component of `x` (Goertzel over whole cycles' worth of samples). */
function amplitudeAt(x: Float32Array, hz: number, rateHz: number): number {
  const w = (2 * Math.PI * hz) / rateHz
  let s1 = 0
  let s2 = 0
  for (const v of x) {
    const s = v + 2 * Math.cos(w) * s1 - s2
    s2 = s1
    s1 = s
  }
  const power = s1 * s1 + s2 * s2 - 2 * Math.cos(w) * s1 * s2
  return (2 * Math.sqrt(Math.max(0, power))) / x.length
}

const db = (ratio: number) => 20 * Math.log10(ratio)
/** The steady middle of a 1 s result: no filter start-up, no end. */
const steady = (x: Float32Array, rateHz: number) => x.subarray(Math.round(rateHz * 0.1), Math.round(rateHz * 0.9))

// 44056 Hz reduces to 2000 steps per 5507 inputs: more than the exact phase table holds, so it
// exercises the interpolated-phase path.
for (const inputHz of [44_100, 48_000, 96_000, 22_050, 44_056]) {
  t.test(`${inputHz} → 16000 Hz: tones below 7 kHz pass within 1 dB`, async (t) => {
    for (const hz of [100, 440, 1000, 3000, 5000, 6500, 6900]) {
      const out = steady(stream(new Resampler(inputHz, 16_000), tone(hz, inputHz, 1)), 16_000)
      const change = db(amplitudeAt(out, hz, 16_000) / 0.5)
      t.ok(Math.abs(change) < 1, `${hz} Hz: ${change.toFixed(3)} dB`)
    }
  })

  t.test(`${inputHz} → 16000 Hz: tones from 10 kHz to the input's Nyquist are attenuated at least 40 dB`, async (t) => {
    for (const hz of [10_000, 12_000, 15_000, 18_000, 20_000].filter((f) => f < inputHz / 2)) {
      const out = steady(stream(new Resampler(inputHz, 16_000), tone(hz, inputHz, 1)), 16_000)
      // Whatever the tone aliased to, its energy is the output's RMS (× √2 as an amplitude).
      const rms = Math.sqrt(out.reduce((s, v) => s + v * v, 0) / out.length)
      const attenuation = db((rms * Math.SQRT2) / 0.5)
      t.ok(attenuation <= -40, `${hz} Hz: ${attenuation.toFixed(1)} dB`)
    }
  })
}

t.test('44.1 kHz in 128-sample quanta: 16000 samples per second, an impulse lands on its instant', async (t) => {
  const input = new Float32Array(44_100)
  input[4410] = 1 // 100 ms
  const r = new Resampler(44_100, 16_000)
  const counts: number[] = []
  const parts: number[] = []
  for (let at = 0; at < input.length; at += QUANTUM) {
    const out = r.processAll(input.subarray(at, at + QUANTUM))
    counts.push(out.length)
    parts.push(...out)
  }
  parts.push(...r.flush())
  t.equal(parts.length, 16_000, 'one second in, one second out (with the flush)')
  // 128 samples at 44.1 kHz are 46.44 samples at 16 kHz: each quantum gives 46 or 47 once running.
  t.ok(
    counts.slice(2, -1).every((n) => n === 46 || n === 47),
    `per-quantum outputs ${[...new Set(counts.slice(2, -1))].join(', ')}`,
  )
  let peak = 0
  for (let i = 1; i < parts.length; i++) if (Math.abs(parts[i]!) > Math.abs(parts[peak]!)) peak = i
  t.equal(peak, 1600, 'the impulse at 100 ms comes out at sample 1600 (100 ms)')
  // Lookahead: the output lags the input by half the filter, under a millisecond.
  t.ok((r.taps / 2 / 44_100) * 1000 < 1, `lookahead ${((r.taps / 2 / 44_100) * 1000).toFixed(2)} ms`)
})

t.test('the streaming state carries across calls: odd block sizes give the one-shot result exactly', async (t) => {
  for (const [from, to] of [
    [44_100, 16_000],
    [48_000, 16_000],
    [16_000, 44_100],
    [16_000, 48_000],
    [44_056, 16_000],
  ] as const) {
    const input = Float32Array.from({ length: from / 2 }, (_, i) => Math.sin(i / 7) * 0.3 + Math.sin(i / 2.3) * 0.2)
    const whole = new Resampler(from, to)
    const oneShot = Float32Array.from([...whole.processAll(input), ...whole.flush()])
    const chunked = new Resampler(from, to)
    const pieces = Float32Array.from([...stream(chunked, input, [1, 7, 333, 128, 5, 2048, 127]), ...chunked.flush()])
    t.same(pieces, oneShot, `${from} → ${to}`)
    // Output n stands for instant n / to; the input spans [0, length / from).
    t.equal(oneShot.length, Math.ceil((input.length * to) / from), `${from} → ${to}: one output per output instant the input spans`)
  }
})

for (const outputHz of [44_100, 48_000]) {
  t.test(`16000 → ${outputHz} Hz (playback): the band passes within 1 dB, images are attenuated at least 40 dB`, async (t) => {
    for (const hz of [200, 1000, 3000, 6000, 7000]) {
      const out = steady(stream(new Resampler(16_000, outputHz), tone(hz, 16_000, 1)), outputHz)
      const change = db(amplitudeAt(out, hz, outputHz) / 0.5)
      t.ok(Math.abs(change) < 1, `${hz} Hz: ${change.toFixed(3)} dB`)
      // Zero-order upsampling would leave an image at 16 kHz − f.
      const image = db(amplitudeAt(out, 16_000 - hz, outputHz) / 0.5)
      t.ok(image <= -40, `image of ${hz} Hz at ${16_000 - hz} Hz: ${image.toFixed(1)} dB`)
    }
  })
}

t.test('equal rates pass samples through; reset forgets the history', async (t) => {
  const same = new Resampler(16_000, 16_000)
  const x = Float32Array.from([0.1, -0.2, 0.3])
  t.same(same.processAll(x), x)
  const r = new Resampler(16_000, 48_000)
  r.processAll(tone(1000, 16_000, 0.05))
  r.reset()
  const afterReset = r.processAll(new Float32Array(64))
  t.ok(
    afterReset.every((v) => v === 0),
    'silence after a reset holds nothing of the audio before it',
  )
})

t.test('invalid rates and filter options are refused', async (t) => {
  t.throws(() => new Resampler(0, 16_000), RangeError)
  t.throws(() => new Resampler(44_100.5, 16_000), RangeError)
  t.throws(() => new Resampler(16_000, -1), RangeError)
  t.throws(() => new Resampler(48_000, 16_000, { attenuationDb: 10 }), RangeError)
  t.throws(() => new Resampler(48_000, 16_000, { transitionFraction: 0.6 }), RangeError)
})

t.test('the alias measurement can fail: dropping samples instead of filtering keeps a 10 kHz tone at full level', async (t) => {
  const input = tone(10_000, 48_000, 1)
  const dropped = steady(
    input.filter((_, i) => i % 3 === 0),
    16_000,
  )
  const rms = Math.sqrt(dropped.reduce((s, v) => s + v * v, 0) / dropped.length)
  t.ok(db((rms * Math.SQRT2) / 0.5) > -1, 'the aliased tone (at 6 kHz) is as loud as the input')
})
