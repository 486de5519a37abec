// Re-anchoring: a new SSRC, a talkspurt start (RFC 3551 §4.1 marker bit) and a timestamp jump MUST
// restart the play point at the target delay; excess delay MUST shrink only on silent frames.
import t from 'tap'
import { JitterBuffer } from '../../../sip/rtp/index.js'
import { audioIndexes, makeStream, play, type StreamPacket } from './jitter-stream.js'

const shifted = (packets: StreamPacket[], by: number): StreamPacket[] => packets.map((p) => ({ ...p, index: p.index + by }))

t.test('a new SSRC MUST reset the play point: its first frame plays at the minimum delay', async (t) => {
  const a = makeStream({ count: 50, ssrc: 1, seed: 1 })
  // Stream B: another source, unrelated sequence and timestamps, from 1100 ms on.
  const b = shifted(makeStream({ count: 50, ssrc: 2, seed: 2, firstSeq: 7, firstTs: 123_456_789, arrival: (i) => 1100 + 20 * i + 5 }), 50)
  const buffer = new JitterBuffer()
  const frames = play(buffer, [...a, ...b], 0, 109)
  t.same(
    audioIndexes(frames),
    [...a, ...b].map((p) => p.index),
  )
  const firstB = frames.find((f) => f.index === 50)!
  t.equal(firstB.atMs, 1140, 'B arrives at 1105 ms, due at 1125 ms')
  t.match(buffer.stats, { resyncs: 1, lateDropped: 0 })
})

t.test('a new SSRC MUST drop what the old source left buffered (documented policy)', async (t) => {
  const a = makeStream({ count: 50, ssrc: 1, seed: 1 })
  const b = shifted(makeStream({ count: 10, ssrc: 2, seed: 2, firstTs: 9, arrival: (i) => 990 + 20 * i }), 50)
  const frames = play(new JitterBuffer(), [...a, ...b], 0, 62)
  t.same(
    audioIndexes(frames),
    [...a.slice(0, 48), ...b].map((p) => p.index),
    "A's last two frames, still buffered at 990 ms, never play",
  )
})

t.test('a talkspurt start (marker) after silence MUST re-anchor at the target delay', async (t) => {
  const first = makeStream({ count: 50, seed: 1 })
  // Silence suppressed for 2 s (timestamps go on), then a talkspurt with the marker bit set.
  const second = shifted(makeStream({ count: 50, seed: 2, firstTs: 160_000 + 160 * 150, arrival: (i) => 3000 + 20 * i + 11 }), 50)
  const buffer = new JitterBuffer()
  const frames = play(buffer, [...first, ...second], 0, 205)
  t.same(
    audioIndexes(frames),
    [...first, ...second].map((p) => p.index),
  )
  t.equal(frames.find((f) => f.index === 50)!.atMs, 3040, 'arrives 3011 ms, 6 ms later than its schedule: due 3037')
})

t.test('a talkspurt that arrives while the last one still plays MUST start at its own due time', async (t) => {
  const first = makeStream({ count: 20, seed: 1 })
  // The next talkspurt's timestamps are only 2 frames after the first's end.
  const second = shifted(makeStream({ count: 20, seed: 2, firstTs: 160_000 + 160 * 22, arrival: (i) => 440 + 20 * i + 5 }), 20)
  const buffer = new JitterBuffer()
  const frames = play(buffer, [...first, ...second], 0, 50)
  t.same(
    audioIndexes(frames),
    [...first, ...second].map((p) => p.index),
  )
  t.equal(buffer.stats.lateDropped, 0)
})

t.test('a timestamp jump without a marker MUST re-anchor instead of dropping every packet as late', async (t) => {
  const first = makeStream({ count: 30, seed: 1 })
  // The sender restarts its timestamps 10 s back, no marker, 5 ms after the last packet.
  const second = shifted(makeStream({ count: 30, seed: 2, firstTs: 160_000 - 80_000 + 160 * 30, arrival: (i) => 625 + 20 * i }), 30).map((p) => ({
    ...p,
    marker: false,
  }))
  const buffer = new JitterBuffer()
  const frames = play(buffer, [...first, ...second], 0, 80)
  const played = audioIndexes(frames)
  t.same(
    played.slice(0, 30),
    first.map((p) => p.index),
  )
  t.same(
    played.slice(30),
    second.map((p) => p.index),
    'the new timeline plays from its first packet',
  )
  t.match(buffer.stats, { resyncs: 1, lateDropped: 0 })
})

t.test('excess delay MUST shrink by dropping silent frames, at most one per second', async (t) => {
  const silent = makeStream({ count: 300, seed: 3 }).map((p) => ({ ...p, payload: new Uint8Array(160).fill(0xff) }))
  const buffer = new JitterBuffer()
  // The first pull comes 200 ms late: 175 ms of delay where 20 ms would do.
  for (const p of silent.filter((p) => p.arrivalMs <= 200)) buffer.push(p, p.arrivalMs)
  let shrinkAt: number[] = []
  let previous = 0
  const queue = silent.filter((p) => p.arrivalMs > 200)
  for (let ms = 200; ms < 6000; ms += 20) {
    while (queue.length > 0 && queue[0]!.arrivalMs <= ms) {
      const p = queue.shift()!
      buffer.push(p, p.arrivalMs)
    }
    buffer.pull(ms)
    if (buffer.stats.shrunk > previous) shrinkAt = [...shrinkAt, ms]
    previous = buffer.stats.shrunk
  }
  t.ok(shrinkAt.length >= 6 && shrinkAt.length <= 8, `${shrinkAt.length} frames dropped`)
  for (let i = 1; i < shrinkAt.length; i++) t.ok(shrinkAt[i]! - shrinkAt[i - 1]! >= 1000)
  t.equal(buffer.stats.concealed, 0)
})

t.test('speech MUST never be shortened to shrink the delay', async (t) => {
  const loud = makeStream({ count: 200 })
  const buffer = new JitterBuffer()
  const frames = play(buffer, loud, 300, 200)
  t.equal(buffer.stats.shrunk, 0)
  t.same(audioIndexes(frames), loud.map((p) => p.index).slice(0, audioIndexes(frames).length))
})
