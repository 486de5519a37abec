import t from 'tap'
import { amplitudeAt, db, middle, sine } from './signal-helpers.js'
import { resample, Resampler } from '../../../engine/audio/resample.js'

const zeroCrossings = (s: Int16Array): number => {
  let n = 0
  for (let i = 1; i < s.length; i++) if (s[i - 1]! < 0 !== s[i]! < 0) n++
  return n
}

const concat = (parts: Int16Array[]): Int16Array => {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

const PAIRS: Array<[number, number]> = [
  [22050, 16000],
  [24000, 16000],
  [44100, 16000],
  [48000, 16000],
  [8000, 16000],
  [16000, 8000],
  [11025, 16000],
]

t.test('the total output after flush is input × ratio, within one sample', async (t) => {
  for (const [from, to] of PAIRS) {
    for (const n of [0, 1, 7, 1000, 22050]) {
      const out = resample(new Int16Array(n), from, to)
      t.ok(Math.abs(out.length - (n * to) / from) <= 1, `${from}→${to}, ${n} in, ${out.length} out`)
    }
  }
})

t.test('a 440 Hz sine keeps its frequency and level', async (t) => {
  for (const [from, to] of [
    [22050, 16000],
    [48000, 16000],
    [8000, 16000],
  ] as const) {
    const out = middle(resample(sine(440, from, 1), from, to))
    const seconds = out.length / to
    t.ok(Math.abs(zeroCrossings(out) / (2 * seconds) - 440) < 2, `${from}→${to}: ${zeroCrossings(out) / (2 * seconds)} Hz by zero crossings`)
    t.ok(Math.abs(db(amplitudeAt(out, 440, to) / 16000)) < 0.1, `${from}→${to}: 440 Hz level`)
  }
})

t.test('pushing in chunks gives the one-shot result', async (t) => {
  for (const [from, to] of PAIRS) {
    const input = sine(440, from, 0.5)
    const whole = resample(input, from, to)
    for (const size of [1, 3, 160, 441, 1000]) {
      const r = new Resampler(from, to)
      const parts: Int16Array[] = []
      for (let i = 0; i < input.length; i += size) parts.push(r.push(input.subarray(i, i + size)))
      parts.push(r.flush())
      const chunked = concat(parts)
      t.equal(chunked.length, whole.length, `${from}→${to} in chunks of ${size}: length`)
      let worst = 0
      for (let i = 0; i < whole.length; i++) worst = Math.max(worst, Math.abs(whole[i]! - chunked[i]!))
      t.ok(worst <= 1, `${from}→${to} in chunks of ${size}: worst difference ${worst} LSB`)
    }
  }
})

t.test('the resampler is ready for a new stream after flush', async (t) => {
  const r = new Resampler(22050, 16000)
  const input = sine(440, 22050, 0.1)
  const first = concat([r.push(input), r.flush()])
  const second = concat([r.push(input), r.flush()])
  t.same(second, first)
})

t.test('a restarted resampler reads nothing of the stream before (it keeps its array)', async (t) => {
  // A loud stream in one large push (the array grows), then a quiet one in reads of odd sizes:
  // the same as a fresh resampler gives, on both filter paths and bands.
  for (const [from, to, options] of [
    [24000, 8000, { band: 'telephone' as const }],
    [24000, 16000, {}],
    [22050, 16000, { simd: false }],
  ] as const) {
    const reused = new Resampler(from, to, options)
    reused.push(sine(1000, from, 0.5, 30000))
    reused.flush()
    const fresh = new Resampler(from, to, options)
    const quiet = sine(300, from, 0.2, 300)
    const run = (r: Resampler) => {
      const parts: Int16Array[] = []
      for (let at = 0; at < quiet.length; at += 333) parts.push(r.push(quiet.subarray(at, at + 333)))
      return concat([...parts, r.flush()])
    }
    t.same(run(reused), run(fresh), `${from} → ${to} ${JSON.stringify(options)}`)
  }
})

t.test('pass band: within 0.1 dB up to 6 kHz when producing 16 kHz', async (t) => {
  for (const [from, to] of [
    [22050, 16000],
    [48000, 16000],
    [44100, 16000],
  ] as const) {
    for (const hz of [100, 1000, 3000, 6000]) {
      const level = db(amplitudeAt(middle(resample(sine(hz, from, 0.5), from, to)), hz, to) / 16000)
      t.ok(Math.abs(level) < 0.1, `${from}→${to}: ${hz} Hz at ${level.toFixed(3)} dB`)
    }
  }
})

t.test('content above the output Nyquist is removed, not folded back', async (t) => {
  // [from, tone, where it would alias at 16 kHz]
  const cases: Array<[number, number, number]> = [
    [48000, 15000, 1000],
    [48000, 9000, 7000],
    [22050, 10000, 6000],
    [22050, 8500, 7500],
    [44100, 12000, 4000],
  ]
  for (const [from, hz, alias] of cases) {
    const out = resample(sine(hz, from, 0.5), from, 16000)
    const aliasDb = db(amplitudeAt(middle(out), alias, 16000) / 16000)
    t.ok(aliasDb < -60, `${from}: ${hz} Hz leaves ${aliasDb.toFixed(1)} dB at ${alias} Hz`)
  }
})

t.test('upsampling leaves no images above the input band', async (t) => {
  const out = resample(sine(1000, 8000, 0.5), 8000, 16000)
  const imageDb = db(amplitudeAt(middle(out), 7000, 16000) / 16000)
  t.ok(imageDb < -60, `8000→16000: image at 7 kHz is ${imageDb.toFixed(1)} dB`)
})

t.test('the transition band lies between 7 and 8 kHz when producing 16 kHz', async (t) => {
  // 7 kHz is a legitimate 16 kHz signal, so it is kept (−1.2 dB), not attenuated; what must not
  // survive is what lies above 8 kHz (see the aliasing test).
  const level = (hz: number): number => db(amplitudeAt(middle(resample(sine(hz, 22050, 0.5), 22050, 16000)), hz, 16000) / 16000)
  t.ok(level(7000) > -2, `7 kHz at ${level(7000).toFixed(2)} dB`)
  t.ok(level(7800) < -30, `7.8 kHz at ${level(7800).toFixed(2)} dB`)
  t.ok(level(8000) < -60, `8 kHz at ${level(8000).toFixed(2)} dB`)
})

t.test('full-scale input clips instead of wrapping; no NaN', async (t) => {
  // A full-scale square wave overshoots past ±32767 after a low-pass (Gibbs).
  const square = Int16Array.from({ length: 22050 }, (_, i) => (Math.floor(i / 50) % 2 ? 32767 : -32768))
  const out = resample(square, 22050, 16000)
  let max = -Infinity
  let min = Infinity
  for (const v of out) {
    max = Math.max(max, v)
    min = Math.min(min, v)
  }
  t.equal(max, 32767)
  t.equal(min, -32768)
  t.notOk(out.some((v) => Number.isNaN(v)))
  // Wrapping would flip the sign of an overshoot; the half-scale conversion shows the true sign.
  const half = resample(
    Int16Array.from(square, (v) => v >> 1),
    22050,
    16000,
  )
  t.ok(
    out.every((v, i) => Math.abs(half[i]!) < 1000 || Math.sign(v) === Math.sign(half[i]!)),
    'no sign flips',
  )
})

t.test('equal rates are the identity', async (t) => {
  const input = sine(440, 16000, 0.1)
  const r = new Resampler(16000, 16000)
  t.equal(r.push(input), input)
  t.equal(r.flush().length, 0)
  t.equal(resample(input, 16000, 16000), input)
})

t.test('rates are validated up front', async (t) => {
  t.throws(() => new Resampler(0, 16000), RangeError)
  t.throws(() => new Resampler(22050.5, 16000), RangeError)
})

t.test('odd rate pairs with many phases still convert', async (t) => {
  const out = middle(resample(sine(440, 44056, 0.5), 44056, 16000))
  t.ok(Math.abs(db(amplitudeAt(out, 440, 16000) / 16000)) < 0.1)
})
