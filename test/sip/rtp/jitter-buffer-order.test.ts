// Order: reordered packets MUST play in timestamp order, duplicates MUST be dropped, and sequence
// and timestamp wrap MUST change nothing.
import t from 'tap'
import { JitterBuffer } from '../../../sip/rtp/index.js'
import { audioIndexes, makeStream, play } from './jitter-stream.js'

t.test('pairs swapped in transit MUST play in order', async (t) => {
  // Every 7th packet comes 21 ms late, after the next one.
  const packets = makeStream({ count: 300, arrival: (i) => 20 * i + 5 + (i % 7 === 3 ? 21 : 0) })
  const buffer = new JitterBuffer()
  const frames = play(buffer, packets, 0, 300)
  t.same(
    audioIndexes(frames),
    packets.filter((p) => p.index < audioIndexes(frames).length).map((p) => p.index),
  )
  t.match(buffer.stats, { concealed: 0, lateDropped: 0 })
})

t.test('a duplicate MUST be dropped and counted, whether still buffered or already played', async (t) => {
  const packets = makeStream({ count: 100 })
  const twice = packets.flatMap((p) => [p, { ...p, arrivalMs: p.arrivalMs + 1 }, { ...p, arrivalMs: p.arrivalMs + 45 }])
  const buffer = new JitterBuffer()
  // 103 pulls: the last copy of the last packet comes at 2030 ms, after its frame played at 2020.
  const frames = play(buffer, twice, 0, 103)
  t.same(
    audioIndexes(frames),
    packets.map((p) => p.index),
  )
  t.match(buffer.stats, { played: 100, duplicates: 200, lateDropped: 0 })
})

t.test('the sequence number wrapping at 65535 and the timestamp at 2^32 MUST play straight through', async (t) => {
  const packets = makeStream({ count: 200, firstSeq: 65500, firstTs: 2 ** 32 - 160 * 100 })
  t.equal(packets[36]!.sequenceNumber, 0)
  t.equal(packets[100]!.timestamp, 0)
  const buffer = new JitterBuffer()
  const frames = play(buffer, packets, 0, 202)
  t.same(
    audioIndexes(frames),
    packets.map((p) => p.index),
  )
  t.match(buffer.stats, { played: 200, concealed: 0, lateDropped: 0, resyncs: 0 })
})

t.test('reordering across the timestamp wrap MUST still play in order', async (t) => {
  const packets = makeStream({ count: 60, firstTs: 2 ** 32 - 160 * 30, arrival: (i) => 20 * i + 5 + (i === 29 ? 21 : 0) })
  const frames = play(new JitterBuffer(), packets, 0, 62)
  t.same(
    audioIndexes(frames),
    packets.map((p) => p.index),
  )
})

t.test('packets reordered before playback starts MUST move the start back', async (t) => {
  // Packet 0 arrives at 26 ms, after packet 1 (25 ms): 21 ms later than its own schedule, so the
  // target is already 40 ms, and packet 0 is due at 5 + 40 = 45 ms: the pull at 60 ms.
  const packets = makeStream({ count: 20, arrival: (i) => (i === 0 ? 26 : 20 * i + 5) })
  const buffer = new JitterBuffer()
  const frames = play(buffer, packets, 0, 23)
  t.same(
    audioIndexes(frames),
    packets.map((p) => p.index),
  )
  t.equal(frames.find((f) => f.kind === 'audio')!.atMs, 60)
  t.equal(buffer.stats.targetDelayMs, 40)
})
