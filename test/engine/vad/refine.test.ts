import t from 'tap'
import { BoundaryRefiner, Windower } from '../../../engine/vad/index.js'

// A tone from 1000 ms to 1600 ms (stream time) over silence or a noise bed; the refiner must put
// a late VAD edge back on the tone's edges, to the 8 ms block.

function signal(noiseDb: number | null): Int16Array {
  let s = 9
  return Int16Array.from({ length: 16 * 2500 }, (_, i) => {
    s = (s * 1664525 + 1013904223) >>> 0
    const noise = noiseDb === null ? 0 : ((s / 2 ** 32) * 2 - 1) * 32768 * 10 ** (noiseDb / 20) * Math.sqrt(3)
    const tone = i >= 16_000 && i < 25_600 ? 6000 * Math.sin(i / 5) : 0
    return Math.round(noise + tone)
  })
}

function feedUntil(r: BoundaryRefiner, pcm: Int16Array, untilMs: number): void {
  for (const w of new Windower().push(pcm.subarray(0, untilMs * 16))) r.push(w)
}

for (const noise of [null, -55, -40]) {
  t.test(`edges found within a block (noise ${noise ?? 'none'})`, async (t) => {
    const start = new BoundaryRefiner()
    feedUntil(start, signal(noise), 1300) // the VAD confirms the start ~250 ms in
    t.equal(start.refineStart(1064), 1000, 'a start the VAD placed 64 ms late')
    const end = new BoundaryRefiner()
    feedUntil(end, signal(noise), 1950) // and the end after its 300 ms of silence
    t.equal(end.refineEnd(1664), 1600, 'an end the VAD placed 64 ms late')
    t.equal(end.refineEnd(1568), 1600, 'one it placed a window early')
  })
}

t.test('no loud block near the edge (or no history): the edge stays where the VAD put it', async (t) => {
  const r = new BoundaryRefiner()
  t.equal(r.refineEnd(500), 500, 'nothing heard yet')
  feedUntil(r, signal(-55), 900)
  t.equal(r.refineStart(800), 800, 'only noise around it')
  t.ok(r.threshold() > -55 && r.threshold() < -35, `the threshold follows the floor (${r.threshold().toFixed(1)} dBFS)`)
})
