import t from 'tap'
import { amplitudeAt, db, middle, sine, whole } from './signal-helpers.js'
import { Resampler } from '../../../engine/audio/resample.js'

// The telephone band: a TTS provider's 24 or 22.05 kHz voice down to a phone line's 8 kHz.

const telephone = (from: number, simd?: boolean) => new Resampler(from, 8000, { band: 'telephone', ...(simd !== undefined && { simd }) })
const FROM = [24_000, 22_050, 16_000]

t.test('flat within 0.01 dB up to 3.4 kHz, the telephone band', async (t) => {
  for (const from of FROM) {
    for (const hz of [300, 1000, 2000, 3000, 3400]) {
      const out = middle(whole(telephone(from), sine(hz, from, 1)))
      const gain = db(amplitudeAt(out, hz, 8000) / 16000)
      t.ok(Math.abs(gain) < 0.01, `${from} → 8000, ${hz} Hz: ${gain.toFixed(4)} dB`)
    }
  }
})

t.test('half power just under 4 kHz; what lies from 4.6 kHz up folds back 70 dB down or more', async (t) => {
  // A sine at exactly 4 kHz (the output's Nyquist) reads as its phase there, not the filter: 3.9 kHz
  // shows the transition, −6 dB at 4 kHz, within a few dB.
  const near = middle(whole(telephone(24_000), sine(3900, 24_000, 1)))
  const nearGain = db(amplitudeAt(near, 3900, 8000) / 16000)
  t.ok(nearGain < -2 && nearGain > -6, `3.9 kHz: ${nearGain.toFixed(2)} dB`)
  for (const from of FROM) {
    for (const hz of [4600, 5000, 6000, 7000, 7400].filter((f) => f < from / 2)) {
      const out = middle(whole(telephone(from), sine(hz, from, 1)))
      const aliasHz = 8000 - hz
      const alias = db(amplitudeAt(out, aliasHz, 8000) / 16000)
      t.ok(alias <= -70, `${from} → 8000, ${hz} Hz: alias at ${aliasHz} Hz ${alias.toFixed(1)} dB`)
    }
  }
  // Above 8 kHz a 24 kHz tone folds onto 8 kHz multiples: 9 kHz → 1 kHz, 11.5 kHz → 3.5 kHz.
  for (const [hz, aliasHz] of [
    [9000, 1000],
    [11_500, 3500],
  ] as const) {
    const out = middle(whole(telephone(24_000), sine(hz, 24_000, 1)))
    const alias = db(amplitudeAt(out, aliasHz, 8000) / 16000)
    t.ok(alias <= -70, `24000 → 8000, ${hz} Hz: alias at ${aliasHz} Hz ${alias.toFixed(1)} dB`)
  }
})

t.test('a third as many samples, streamed in any chunks as at once, SIMD as the scalar loop', async (t) => {
  const input = sine(1234, 24_000, 0.5)
  const once = whole(telephone(24_000), input)
  t.ok(Math.abs(once.length - input.length / 3) <= 1, `${once.length} out of ${input.length}`)
  const r = telephone(24_000)
  const parts: Int16Array[] = []
  for (let at = 0; at < input.length; at += 333) parts.push(r.push(input.subarray(at, at + 333)))
  parts.push(r.flush())
  const streamed = Int16Array.from(parts.flatMap((p) => Array.from(p)))
  t.same(streamed, once, 'chunked = whole')
  const scalar = whole(telephone(24_000, false), input)
  let worst = 0
  for (let i = 0; i < once.length; i++) worst = Math.max(worst, Math.abs(once[i]! - scalar[i]!))
  t.ok(worst <= 1, `SIMD against scalar: at most ${worst} LSB apart`)
})

t.test('zero-phase: a click at 24 kHz sample 3i peaks at 8 kHz sample i', async (t) => {
  const click = new Int16Array(1200)
  click[3 * 123] = 20000
  const out = whole(telephone(24_000), click)
  t.equal(out.indexOf(Math.max(...out)), 123)
})

t.test('the telephone band is refused for anything but downsampling to 8 kHz', async (t) => {
  t.throws(() => new Resampler(24_000, 16_000, { band: 'telephone' }), RangeError)
  t.throws(() => new Resampler(8000, 16_000, { band: 'telephone' }), RangeError)
  t.throws(() => new Resampler(8000, 8000, { band: 'telephone' }), RangeError)
  t.doesNotThrow(() => new Resampler(48_000, 8000, { band: 'telephone' }))
})

t.test('fewer taps than the full design for 24 → 8 kHz: 96 against 160 an output', async (t) => {
  // The cost is the kernel's reach: count the nonzero response of each design to a click.
  const reach = (r: Resampler) => {
    // Off the output grid: on it, a filter cut at exactly 4 kHz is zero at every other output.
    const click = new Int16Array(2400)
    click[1201] = 32000
    const out = whole(r, click)
    let n = 0
    for (const v of out) if (v !== 0) n++
    return n
  }
  const tel = reach(telephone(24_000))
  const full = reach(new Resampler(24_000, 8000))
  t.ok(tel < full, `outputs a click reaches: telephone ${tel}, full ${full}`)
})
