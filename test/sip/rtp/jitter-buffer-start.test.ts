// The jitter buffer, in order and on time: it MUST play every frame bit for bit at the minimum delay.
import t from 'tap'
import { DEFAULT_JITTER_BUFFER, JitterBuffer } from '../../../sip/rtp/index.js'
import { audioIndexes, makeStream, play } from './jitter-stream.js'

t.test('DEFAULT_JITTER_BUFFER: 20-120 ms (the issue figures), 20 ms frames at 8 kHz, a 64-frame ring', async (t) => {
  const { decode, ...numbers } = DEFAULT_JITTER_BUFFER
  t.match(numbers, { clockRateHz: 8000, frameMs: 20, minDelayMs: 20, maxDelayMs: 120, capacityFrames: 64, fadeFrames: 3 })
  t.equal(typeof decode, 'function')
  t.ok(Object.isFrozen(DEFAULT_JITTER_BUFFER))
})

t.test('options MUST be validated up front', async (t) => {
  t.throws(() => new JitterBuffer({ minDelayMs: 10 }), RangeError, 'under one frame')
  t.throws(() => new JitterBuffer({ maxDelayMs: 10 }), RangeError)
  t.throws(() => new JitterBuffer({ capacityFrames: 6 }), RangeError, 'the ring must hold more than the largest delay')
  t.throws(() => new JitterBuffer({ frameMs: 0.01 }), RangeError)
})

t.test('before the first packet every pull MUST be 160 samples of silence', async (t) => {
  const buffer = new JitterBuffer()
  for (let ms = 0; ms < 100; ms += 20) {
    const frame = buffer.pull(ms)
    t.equal(frame.kind, 'silence')
    t.equal(frame.pcm.length, 160)
    t.ok(frame.pcm.every((x) => x === 0))
  }
})

t.test('an in-order stream with zero jitter MUST play at the minimum delay, every frame bit-exact', async (t) => {
  // Packet i arrives at 20i + 5 ms; pulls at 0, 20, 40, …: the first is due at 5 + 20 = 25 ms.
  const packets = makeStream({ count: 200 })
  const buffer = new JitterBuffer()
  const frames = play(buffer, packets, 0, 202)
  t.same(
    frames.slice(0, 3).map((f) => f.kind),
    ['silence', 'silence', 'audio'],
  )
  t.equal(frames[2]!.atMs, 40, 'the first pull at or after 25 ms')
  t.same(
    audioIndexes(frames),
    packets.map((p) => p.index),
  )
  for (const f of frames.filter((f) => f.kind === 'audio')) {
    const delayMs = f.atMs - packets[f.index!]!.arrivalMs
    if (delayMs !== 35) t.fail(`frame ${f.index} played ${delayMs} ms after it arrived`)
  }
  t.match(buffer.stats, { played: 200, concealed: 0, lateDropped: 0, duplicates: 0, underruns: 0, targetDelayMs: 20 })
})

t.test('with pulls in phase with arrivals the delay MUST be exactly the 20 ms minimum', async (t) => {
  const packets = makeStream({ count: 50, arrival: (i) => 20 * i })
  const frames = play(new JitterBuffer(), packets, 0, 52)
  const first = frames.find((f) => f.kind === 'audio')!
  t.same([first.atMs, first.index], [20, 0])
  t.same(
    audioIndexes(frames),
    packets.map((p) => p.index),
  )
})
