// Loss: exactly the missing frames MUST be concealed, every other frame played bit for bit; the
// concealment fades the last frame out over 3 frames, then is silent.
import t from 'tap'
import { decodeMulaw, JitterBuffer } from '../../../sip/rtp/index.js'
import { makeStream, play, seededRandom } from './jitter-stream.js'

t.test('5 % loss (seeded): each lost frame concealed in its place, the rest bit-exact', async (t) => {
  const random = seededRandom(4242)
  const all = makeStream({ count: 1000 })
  const lost = new Set(all.filter((p) => p.index > 0 && p.index < 999 && random() < 0.05).map((p) => p.index))
  t.ok(lost.size > 30 && lost.size < 70, `${lost.size} lost`)
  const buffer = new JitterBuffer()
  const frames = play(
    buffer,
    all.filter((p) => !lost.has(p.index)),
    0,
    1002,
  )
  const fromFirst = frames.slice(frames.findIndex((f) => f.kind === 'audio'))
  t.same(
    fromFirst.map((f) => (f.kind === 'audio' ? f.index : f.kind)),
    all.map((p) => (lost.has(p.index) ? 'concealed' : p.index)),
  )
  t.match(buffer.stats, { played: 1000 - lost.size, concealed: lost.size, lateDropped: 0, targetDelayMs: 20 })
})

t.test('concealment MUST repeat the last frame fading out over 3 frames, then silence', async (t) => {
  const all = makeStream({ count: 20 })
  const buffer = new JitterBuffer()
  const kept = all.filter((p) => p.index < 5 || p.index > 9)
  const pcm: Int16Array[] = []
  const queue = [...kept]
  for (let ms = 0; ms < 400; ms += 20) {
    while (queue.length > 0 && queue[0]!.arrivalMs <= ms) {
      const p = queue.shift()!
      buffer.push(p, p.arrivalMs)
    }
    pcm.push(buffer.pull(ms).pcm.slice())
  }
  const last = new Int16Array(160)
  decodeMulaw(all[4]!.payload, last)
  // Packet 4 plays at 120 ms (pull 6); 5-9 are missing: pulls 7-11.
  t.same(pcm[6], last)
  const expected = (run: number) => Int16Array.from(last, (x, i) => Math.round(x * (1 - (run - 1) / 3 - i / 480)))
  t.same(pcm[7], expected(1), 'gain 1 → 2/3')
  t.same(pcm[8], expected(2), 'gain 2/3 → 1/3')
  t.same(pcm[9], expected(3), 'gain 1/3 → 0')
  t.ok(pcm[10]!.every((x) => x === 0) && pcm[11]!.every((x) => x === 0), 'then silence')
  const tenth = new Int16Array(160)
  decodeMulaw(all[10]!.payload, tenth)
  t.same(pcm[12], tenth, 'and packet 10 in its own place')
  t.equal(buffer.stats.concealed, 5)
})

t.test('a stream that stops MUST go quiet: concealed for 10 frames, then plain silence', async (t) => {
  const buffer = new JitterBuffer()
  const frames = play(buffer, makeStream({ count: 10 }), 0, 40)
  const kinds = frames.map((f) => f.kind)
  t.equal(kinds.filter((k) => k === 'concealed').length, 10)
  t.same(kinds.slice(-5), ['silence', 'silence', 'silence', 'silence', 'silence'])
  t.equal(buffer.stats.underruns, 1, 'one dry spell')
})
