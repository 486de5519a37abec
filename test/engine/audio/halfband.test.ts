import t from 'tap'
import { amplitudeAt, db, middle, sine, whole } from './signal-helpers.js'
import { firEngine } from '../../../engine/audio/fir.js'
import { HalfbandDecimator, HalfbandUpsampler } from '../../../engine/audio/halfband.js'

const makers = {
  up: (simd?: boolean) => new HalfbandUpsampler(simd === undefined ? {} : { simd }),
  down: (simd?: boolean) => new HalfbandDecimator(simd === undefined ? {} : { simd }),
}
const RATES = { up: { from: 8000, to: 16_000 }, down: { from: 16_000, to: 8000 } }

t.test('upsampling keeps every input sample as an even output, exactly', async (t) => {
  const input = sine(1234, 8000, 0.5)
  const out = whole(new HalfbandUpsampler(), input)
  t.equal(out.length, 2 * input.length)
  let mismatches = 0
  for (let i = 0; i < input.length; i++) if (out[2 * i] !== input[i]) mismatches++
  t.equal(mismatches, 0)
})

t.test('lengths: 2n out of n up, ⌈n/2⌉ out of n down, whatever the chunks', async (t) => {
  for (const n of [0, 1, 7, 31, 32, 33, 160, 1001]) {
    t.equal(whole(new HalfbandUpsampler(), new Int16Array(n)).length, 2 * n, `up ${n}`)
    t.equal(whole(new HalfbandDecimator(), new Int16Array(n)).length, Math.ceil(n / 2), `down ${n}`)
  }
})

t.test('the telephone band passes flat: 300–3400 Hz within 0.01 dB, both ways', async (t) => {
  for (const dir of ['up', 'down'] as const) {
    const { from, to } = RATES[dir]
    for (const hz of [300, 1000, 2000, 3000, 3400]) {
      const out = middle(whole(makers[dir](), sine(hz, from, 1)))
      const gain = db(amplitudeAt(out, hz, to) / 16000)
      t.ok(Math.abs(gain) < 0.01, `${dir} ${hz} Hz: ${gain.toFixed(4)} dB`)
    }
  }
})

t.test('images (up) and aliases (down) from 4.6 kHz on are 70 dB down or more', async (t) => {
  // Upsampling a tone at f gives its image at 8000 − f; the image of 3.4 kHz is 4.6 kHz.
  for (const hz of [3400, 3000, 2000, 1000, 300]) {
    const out = middle(whole(new HalfbandUpsampler(), sine(hz, 8000, 1)))
    const image = db(amplitudeAt(out, 8000 - hz, 16_000) / 16000)
    t.ok(image <= -70, `up ${hz} Hz: image at ${8000 - hz} Hz ${image.toFixed(1)} dB`)
  }
  // Decimating a tone at f above 4 kHz folds it to 8000 − f.
  for (const hz of [4600, 5000, 6000, 7000, 7700]) {
    const out = middle(whole(new HalfbandDecimator(), sine(hz, 16_000, 1)))
    const alias = db(amplitudeAt(out, 8000 - hz, 8000) / 16000)
    t.ok(alias <= -70, `down ${hz} Hz: alias at ${8000 - hz} Hz ${alias.toFixed(1)} dB`)
  }
})

t.test('zero-phase: a click at 8 kHz sample i peaks at 16 kHz sample 2i, and back', async (t) => {
  const click = new Int16Array(400)
  click[123] = 20000
  const up = whole(new HalfbandUpsampler(), click)
  t.equal(up.indexOf(Math.max(...up)), 246)
  const down = whole(new HalfbandDecimator(), up)
  t.equal(down.indexOf(Math.max(...down)), 123)
})

t.test('DC stays DC; full-scale input clamps, never wraps', async (t) => {
  for (const dir of ['up', 'down'] as const) {
    const out = middle(whole(makers[dir](), new Int16Array(4000).fill(-12345)))
    t.ok(
      out.every((v) => Math.abs(v + 12345) <= 1),
      `${dir}: constant within one LSB`,
    )
    const square = Int16Array.from({ length: 4000 }, (_, i) => (Math.floor(i / 40) % 2 ? 32767 : -32768))
    const peaks = whole(makers[dir](), square)
    t.ok(
      peaks.every((v) => v >= -32768 && v <= 32767),
      `${dir}: in range`,
    )
    // A square wave overshoots (Gibbs): the overshoot must clamp to the rail, not wrap to the other sign.
    const at = (i: number) => (dir === 'up' ? Math.floor(i / 2) : 2 * i)
    let wraps = 0
    for (let i = 0; i < peaks.length; i++) {
      const j = at(i)
      const near = square.subarray(Math.max(0, j - 4), j + 5)
      if (near.every((v) => v > 0) && peaks[i]! < 0) wraps++
      if (near.every((v) => v < 0) && peaks[i]! > 0) wraps++
    }
    t.equal(wraps, 0, `${dir}: no wrap-around`)
  }
})

t.test('streaming in any chunks gives the one-shot output; flush restarts the stream', async (t) => {
  let seed = 7
  const rand = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32
  for (const dir of ['up', 'down'] as const) {
    const input = Int16Array.from({ length: 3001 }, () => Math.round((rand() - 0.5) * 30000))
    const expected = whole(makers[dir](), input)
    const c = makers[dir]()
    for (let round = 0; round < 2; round++) {
      const parts: Int16Array[] = []
      for (let at = 0; at < input.length; ) {
        const n = Math.min(input.length - at, Math.floor(rand() * 200))
        parts.push(c.push(input.subarray(at, at + n)))
        at += n
      }
      parts.push(c.flush())
      const got = Int16Array.from(parts.flatMap((p) => [...p]))
      t.same(got, expected, `${dir}, round ${round + 1}`)
    }
  }
})

t.test('WebAssembly SIMD and the scalar loops agree within one LSB', async (t) => {
  for (const dir of ['up', 'down'] as const) {
    const input = Int16Array.from({ length: 5000 }, (_, i) => Math.round(20000 * Math.sin(i / 3.7) * Math.cos(i / 51)))
    const simd = whole(makers[dir](true), input)
    const scalar = whole(makers[dir](false), input)
    t.equal(simd.length, scalar.length)
    let worst = 0
    for (let i = 0; i < simd.length; i++) worst = Math.max(worst, Math.abs(simd[i]! - scalar[i]!))
    t.ok(worst <= 1, `${dir}: largest difference ${worst}`)
  }
})

t.test('steady upsampling: every push of n gives 2n, the stream 16 samples (2 ms) late', async (t) => {
  const up = new HalfbandUpsampler({ steady: true })
  const input = sine(440, 8000, 0.2)
  const out: number[] = []
  for (let at = 0; at < input.length; at += 160) {
    const frame = up.push(input.subarray(at, at + 160))
    t.equal(frame.length, 320)
    out.push(...frame)
  }
  t.same(
    out.slice(0, 32).filter((_, i) => i % 2 === 0),
    new Array(16).fill(0),
    'the look-ahead spent on silence (the odd samples between already lean on the tone)',
  )
  t.equal(out[32 + 2 * 100], input[100], 'input sample i at output 2i + 32')
  t.equal(up.flush().length, 32, 'flush gives the held 16 samples')
  t.equal(up.push(new Int16Array(160)).length, 320, 'steady again after flush')
})

t.test('the SIMD loop reads only samples the filter holds: a one-shot push that fills the history to its end', async (t) => {
  // 5000 samples grow the decimator's history to exactly its length. The WebAssembly memory past
  // the tables is first filled with NaN: a loop reading one sample beyond what it holds would
  // multiply a NaN (by a zero tap) and turn the last output into garbage.
  const fir = firEngine()
  if (!fir) return t.fail('no WebAssembly SIMD in this Node (Node 20 has it)')
  const table = fir.addTable(new Float32Array(4))
  fir.run(table, 4, new Float32Array(200_000).fill(Number.NaN), 1, 0, 1, 1, new Int16Array(1))
  for (const n of [5000, 5001, 4097, 2050]) {
    const input = Int16Array.from({ length: n }, (_, i) => (i < 200 ? -50 : Math.round(20000 * Math.sin(i / 2.3))))
    const simd = whole(new HalfbandDecimator(), input)
    const scalar = whole(new HalfbandDecimator({ simd: false }), input)
    let worst = 0
    for (let i = 0; i < simd.length; i++) worst = Math.max(worst, Math.abs(simd[i]! - scalar[i]!))
    t.ok(worst <= 1, `${n} in: largest difference ${worst}`)
    const up = whole(new HalfbandUpsampler(), input)
    const upScalar = whole(new HalfbandUpsampler({ simd: false }), input)
    let worstUp = 0
    for (let i = 0; i < up.length; i++) worstUp = Math.max(worstUp, Math.abs(up[i]! - upScalar[i]!))
    t.ok(worstUp <= 1, `up, ${n} in: largest difference ${worstUp}`)
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
  for (const dir of ['up', 'down'] as const) {
    for (const simd of [true, false]) {
      const frame = dir === 'up' ? 160 : 320
      const frames = 160
      const input = new Int16Array(frame * frames)
      for (const [at, n] of [
        [frame * 5 + 3, frame],
        [frame * 9 - 1, 2],
        [frame * 12, frame * 3],
      ] as const)
        for (let i = at; i < at + n; i++) input[i] = Math.round((rand() - 0.5) * 30000)
      for (let j = 1; j <= 70; j++) input[frame * (18 + 2 * j) - j] = j % 2 ? 32767 : -32768
      const expected = whole(makers[dir](simd), input)
      const c = makers[dir](simd)
      const parts: Int16Array[] = []
      for (let at = 0; at < input.length; at += frame) parts.push(c.push(input.subarray(at, at + frame)))
      parts.push(c.flush())
      t.same(Int16Array.from(parts.flatMap((p) => [...p])), expected, `${dir}, simd ${simd}`)
      t.ok(c.silentDrains >= 10, `${dir}, simd ${simd}: ${c.silentDrains} of ${frames} frames skipped`)
    }
  }
})
