// Adaptation: under 40 ms of random jitter the buffer MUST raise its delay and then play with no
// concealment; the delay MUST stay within 120 ms.
import t from 'tap'
import { JitterBuffer } from '../../../sip/rtp/index.js'
import { audioIndexes, makeStream, play, seededRandom } from './jitter-stream.js'

for (const seed of [1, 2, 3]) {
  t.test(`40 ms of uniform jitter (seed ${seed}): no concealment after adaptation, all frames in order`, async (t) => {
    const random = seededRandom(seed * 7919)
    const jitter = Array.from({ length: 1500 }, () => random() * 40)
    const packets = makeStream({ count: 1500, arrival: (i) => 20 * i + 5 + jitter[i]!, seed })
    const buffer = new JitterBuffer()
    const all = play(buffer, packets, 0, 1510)
    // Up to the last packet's frame: what follows is the stream's end, concealed then silent.
    const frames = all.slice(0, all.length - [...all].reverse().findIndex((f) => f.kind === 'audio'))
    const adaptedAt = 100 // 2 s
    const after = frames.slice(adaptedAt)
    t.equal(after.filter((f) => f.kind === 'concealed').length, 0, 'no concealment after the first 2 s')
    const played = audioIndexes(frames)
    t.same(
      played,
      [...played].sort((a, b) => a - b),
      'in timestamp order',
    )
    const lastMissing = [...packets].reverse().find((p) => !played.includes(p.index))
    t.ok(lastMissing === undefined || lastMissing.index < adaptedAt, `every frame after the first 2 s played (last missing: ${lastMissing?.index})`)
    const { targetDelayMs, lateDropped } = buffer.stats
    const concealed = frames.filter((f) => f.kind === 'concealed').length
    t.ok(targetDelayMs >= 40 && targetDelayMs <= 60, `target ${targetDelayMs} ms`)
    t.ok(concealed <= 5 && lateDropped <= 5, `while adapting: ${concealed} concealed, ${lateDropped} late`)
    for (const f of after.filter((f) => f.kind === 'audio')) {
      const delayMs = f.atMs - (packets[f.index!]!.arrivalMs - jitter[f.index!]!)
      if (delayMs > 120) t.fail(`frame ${f.index} played ${delayMs.toFixed(1)} ms after its jitter-free arrival`)
    }
  })
}

t.test('a late packet MUST be dropped and MUST raise the target at once (it counts for many)', async (t) => {
  const packets = makeStream({ count: 60, arrival: (i) => (i === 30 ? 20 * i + 5 + 70 : 20 * i + 5) })
  const buffer = new JitterBuffer()
  play(buffer, packets.slice(0, 30), 0, 32)
  t.equal(buffer.stats.targetDelayMs, 20, 'before: the minimum')
  const frames = play(buffer, packets.slice(30), 640, 30)
  t.same(
    frames.filter((f) => f.kind !== 'audio').map((f) => f.atMs),
    [640],
    'frame 30 concealed at its pull',
  )
  t.match(buffer.stats, { lateDropped: 1, concealed: 1 })
  t.equal(buffer.stats.targetDelayMs, 80, '70 ms late: the 60-80 ms bucket')
})

t.test('a jitter spike MUST NOT push the delay past 120 ms', async (t) => {
  const packets = makeStream({ count: 300, arrival: (i) => 20 * i + 5 + (i % 50 === 10 ? 300 : 0) })
  const buffer = new JitterBuffer()
  play(buffer, packets, 0, 320)
  t.ok(buffer.stats.targetDelayMs <= 120)
})
