import fs from 'node:fs'
import t from 'tap'
import { compileWat, moduleSource, OUT_PATH } from '../../../scripts/build-wasm.js'
import { FirEngine, firEngine } from '../../../engine/audio/fir.js'
import { Resampler, resample } from '../../../engine/audio/resample.js'

t.test('the committed module is fir.wat compiled (npm run build:wasm)', async (t) => {
  t.equal(fs.readFileSync(OUT_PATH, 'utf8'), moduleSource(await compileWat()))
})

t.test('this Node runs the SIMD module', async (t) => {
  t.ok(firEngine() instanceof FirEngine)
})

// Seeded speech-like signal: a few partials plus noise, near full scale in places.
function signal(n: number, seed: number): Int16Array {
  let s = seed
  return Int16Array.from({ length: n }, (_, i) => {
    s = (s * 1103515245 + 12345) >>> 0
    const v = 12000 * Math.sin(i / 9) + 9000 * Math.sin(i / 3.1 + seed) + 6000 * Math.sin(i * 1.3) + ((s >>> 16) - 32768) / 6
    return Math.max(-32768, Math.min(32767, Math.round(v)))
  })
}

for (const [from, to] of <Array<[number, number]>>[
  [24000, 16000],
  [48000, 16000],
  [22050, 16000],
  [44100, 16000],
  [8000, 16000],
  [16000, 24000],
]) {
  t.test(`${from}→${to}: SIMD and scalar agree within one LSB, in chunks too`, async (t) => {
    const input = signal(from, from % 97)
    const simd = resample(input, from, to)
    const scalar = (() => {
      const r = new Resampler(from, to, { simd: false })
      const head = r.push(input)
      const tail = r.flush()
      return Int16Array.from([...head, ...tail])
    })()
    t.equal(simd.length, scalar.length, 'same length')
    let worst = 0
    for (let i = 0; i < simd.length; i++) worst = Math.max(worst, Math.abs(simd[i]! - scalar[i]!))
    t.ok(worst <= 1, `largest difference ${worst} LSB`)
    // Odd chunk sizes through the SIMD path give the one-shot result exactly.
    const r = new Resampler(from, to)
    const parts: number[] = []
    for (let at = 0, k = 0; at < input.length; k++) {
      const size = [1, 7, 333, 2048, 5][k % 5]!
      parts.push(...r.push(input.subarray(at, at + size)))
      at += size
    }
    parts.push(...r.flush())
    t.same(Int16Array.from(parts), simd, 'chunked = one-shot')
  })
}

t.test('full-scale square waves clip in SIMD as in the scalar loop', async (t) => {
  const square = Int16Array.from({ length: 24000 }, (_, i) => (Math.floor(i / 40) % 2 ? 32767 : -32768))
  const a = resample(square, 24000, 16000)
  const r = new Resampler(24000, 16000, { simd: false })
  const b = Int16Array.from([...r.push(square), ...r.flush()])
  t.equal(Math.max(...a), 32767)
  t.equal(Math.min(...a), -32768)
  t.ok(a.every((v, i) => Math.abs(v - b[i]!) <= 1))
})
