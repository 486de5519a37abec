import t from 'tap'
import { amplitudeAt, db, middle, sine, whole } from './signal-helpers.js'
import { firEngine } from '../../../engine/audio/fir.js'
import { HalfbandUpsampler } from '../../../engine/audio/halfband.js'
import { Resampler } from '../../../engine/audio/resample.js'

// 8 → 16 kHz. (The way down, the same design, is the Resampler's telephone band:
// resample-telephone.test.ts.)
const up = (simd?: boolean) => new HalfbandUpsampler(simd === undefined ? {} : { simd })

t.test('upsampling keeps every input sample as an even output, exactly', async (t) => {
  const input = sine(1234, 8000, 0.5)
  const out = whole(new HalfbandUpsampler(), input)
  t.equal(out.length, 2 * input.length)
  let mismatches = 0
  for (let i = 0; i < input.length; i++) if (out[2 * i] !== input[i]) mismatches++
  t.equal(mismatches, 0)
})

t.test('lengths: 2n out of n, whatever the chunks', async (t) => {
  for (const n of [0, 1, 7, 31, 32, 33, 160, 1001]) t.equal(whole(new HalfbandUpsampler(), new Int16Array(n)).length, 2 * n, `${n} in`)
})

t.test('the telephone band passes flat: 300–3400 Hz within 0.01 dB', async (t) => {
  for (const hz of [300, 1000, 2000, 3000, 3400]) {
    const out = middle(whole(up(), sine(hz, 8000, 1)))
    const gain = db(amplitudeAt(out, hz, 16_000) / 16000)
    t.ok(Math.abs(gain) < 0.01, `${hz} Hz: ${gain.toFixed(4)} dB`)
  }
})

t.test('images from 4.6 kHz on are 70 dB down or more', async (t) => {
  // Upsampling a tone at f gives its image at 8000 − f; the image of 3.4 kHz is 4.6 kHz.
  for (const hz of [3400, 3000, 2000, 1000, 300]) {
    const out = middle(whole(new HalfbandUpsampler(), sine(hz, 8000, 1)))
    const image = db(amplitudeAt(out, 8000 - hz, 16_000) / 16000)
    t.ok(image <= -70, `up ${hz} Hz: image at ${8000 - hz} Hz ${image.toFixed(1)} dB`)
  }
})

t.test('zero-phase: a click at 8 kHz sample i peaks at 16 kHz sample 2i, and back', async (t) => {
  const click = new Int16Array(400)
  click[123] = 20000
  const up = whole(new HalfbandUpsampler(), click)
  t.equal(up.indexOf(Math.max(...up)), 246)
  const down = whole(new Resampler(16_000, 8000, { band: 'telephone' }), up)
  t.equal(down.indexOf(Math.max(...down)), 123, 'and back through the same design down')
})

t.test('DC stays DC; full-scale input clamps, never wraps', async (t) => {
  {
    const out = middle(whole(up(), new Int16Array(4000).fill(-12345)))
    t.ok(
      out.every((v) => Math.abs(v + 12345) <= 1),
      'constant within one LSB',
    )
    const square = Int16Array.from({ length: 4000 }, (_, i) => (Math.floor(i / 40) % 2 ? 32767 : -32768))
    const peaks = whole(up(), square)
    t.ok(
      peaks.every((v) => v >= -32768 && v <= 32767),
      'in range',
    )
    // A square wave overshoots (Gibbs): the overshoot must clamp to the rail, not wrap to the other sign.
    const at = (i: number) => Math.floor(i / 2)
    let wraps = 0
    for (let i = 0; i < peaks.length; i++) {
      const j = at(i)
      const near = square.subarray(Math.max(0, j - 4), j + 5)
      if (near.every((v) => v > 0) && peaks[i]! < 0) wraps++
      if (near.every((v) => v < 0) && peaks[i]! > 0) wraps++
    }
    t.equal(wraps, 0, 'no wrap-around')
  }
})

t.test('streaming in any chunks gives the one-shot output; flush restarts the stream', async (t) => {
  let seed = 7
  const rand = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32
  {
    const input = Int16Array.from({ length: 3001 }, () => Math.round((rand() - 0.5) * 30000))
    const expected = whole(up(), input)
    const c = up()
    for (let round = 0; round < 2; round++) {
      const parts: Int16Array[] = []
      for (let at = 0; at < input.length; ) {
        const n = Math.min(input.length - at, Math.floor(rand() * 200))
        parts.push(c.push(input.subarray(at, at + n)))
        at += n
      }
      parts.push(c.flush())
      const got = Int16Array.from(parts.flatMap((p) => [...p]))
      t.same(got, expected, `round ${round + 1}`)
    }
  }
})

t.test('WebAssembly SIMD and the scalar loops agree within one LSB', async (t) => {
  {
    const input = Int16Array.from({ length: 5000 }, (_, i) => Math.round(20000 * Math.sin(i / 3.7) * Math.cos(i / 51)))
    const simd = whole(up(true), input)
    const scalar = whole(up(false), input)
    t.equal(simd.length, scalar.length)
    let worst = 0
    for (let i = 0; i < simd.length; i++) worst = Math.max(worst, Math.abs(simd[i]! - scalar[i]!))
    t.ok(worst <= 1, `largest difference ${worst}`)
  }
})

t.test('steady upsampling: every push of n gives 2n, the stream 16 samples (2 ms) late', async (t) => {
  const steady = new HalfbandUpsampler({ steady: true })
  const input = sine(440, 8000, 0.2)
  const out: number[] = []
  for (let at = 0; at < input.length; at += 160) {
    const frame = steady.push(input.subarray(at, at + 160))
    t.equal(frame.length, 320)
    out.push(...frame)
  }
  t.same(
    out.slice(0, 32).filter((_, i) => i % 2 === 0),
    new Array(16).fill(0),
    'the look-ahead spent on silence (the odd samples between already lean on the tone)',
  )
  t.equal(out[32 + 2 * 100], input[100], 'input sample i at output 2i + 32')
  t.equal(steady.flush().length, 32, 'flush gives the held 16 samples')
  t.equal(steady.push(new Int16Array(160)).length, 320, 'steady again after flush')
})

t.test('the SIMD loop reads only samples the filter holds: a one-shot push that fills the history to its end', async (t) => {
  // Pushes of these sizes grow the filter's history to its length or just past. The WebAssembly memory past
  // the tables is first filled with NaN: a loop reading one sample beyond what it holds would
  // multiply a NaN (by a zero tap) and turn the last output into garbage.
  const fir = firEngine()
  if (!fir) return t.fail('no WebAssembly SIMD in this Node (Node 20 has it)')
  const table = fir.addTable(new Float32Array(4))
  fir.run(table, 4, new Float32Array(200_000).fill(Number.NaN), 1, 0, 1, 1, new Int16Array(1))
  for (const n of [5000, 5001, 4097, 2050]) {
    const input = Int16Array.from({ length: n }, (_, i) => (i < 200 ? -50 : Math.round(20000 * Math.sin(i / 2.3))))
    const simd = whole(up(), input)
    const scalar = whole(up(false), input)
    let worst = 0
    for (let i = 0; i < simd.length; i++) worst = Math.max(worst, Math.abs(simd[i]! - scalar[i]!))
    t.ok(worst <= 1, `${n} in: largest difference ${worst}`)
  }
})

t.test('digital silence skips the filter and gives what filtering it would, to the sample', async (t) => {
  // Runs of exact zeros with, between them, noise bursts and lone full-scale clicks 1–70 samples
  // before a frame's end, pushed in 20 ms frames. A frame may be skipped only when every tap of
  // every output it makes lands on a zero: a click just inside the reach of the next frame's
  // outermost tap (a weight of ~2.4e-4, 8 LSB at full scale) must still be filtered. The one-shot
  // push of the same stream holds sound, so it filters everything: the two must agree exactly.
  let seed = 11
  const rand = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32
  {
    for (const simd of [true, false]) {
      const frame = 160
      const frames = 160
      const input = new Int16Array(frame * frames)
      for (const [at, n] of [
        [frame * 5 + 3, frame],
        [frame * 9 - 1, 2],
        [frame * 12, frame * 3],
      ] as const)
        for (let i = at; i < at + n; i++) input[i] = Math.round((rand() - 0.5) * 30000)
      for (let j = 1; j <= 70; j++) input[frame * (18 + 2 * j) - j] = j % 2 ? 32767 : -32768
      const expected = whole(up(simd), input)
      const c = up(simd)
      const parts: Int16Array[] = []
      for (let at = 0; at < input.length; at += frame) parts.push(c.push(input.subarray(at, at + frame)))
      parts.push(c.flush())
      t.same(Int16Array.from(parts.flatMap((p) => [...p])), expected, `simd ${simd}`)
      t.ok(c.silentDrains >= 10, `simd ${simd}: ${c.silentDrains} of ${frames} frames skipped`)
    }
  }
})
