// Bounds: a flood of packets MUST never grow the buffer past its ring; what does not fit is dropped and counted.
import t from 'tap'
import { JitterBuffer } from '../../../sip/rtp/index.js'
import { makeStream, seededRandom } from './jitter-stream.js'

t.test('1,000 in-order packets at once MUST fill the ring and drop the rest as overflow', async (t) => {
  const buffer = new JitterBuffer()
  for (const p of makeStream({ count: 1000 })) buffer.push(p, 0)
  t.match(buffer.stats, { bufferedFrames: 64, overflowDropped: 936 })
})

t.test('20,000 random packets (seeded) MUST stay within the ring, never throw, and keep pulls at 160 samples', async (t) => {
  const random = seededRandom(77)
  const template = makeStream({ count: 1 })[0]!
  const buffer = new JitterBuffer()
  let maxBuffered = 0
  for (let i = 0; i < 20_000; i++) {
    const packet = {
      ...template,
      ssrc: random() < 0.01 ? Math.floor(random() * 4) : 0x5eed,
      timestamp: random() < 0.5 ? Math.floor(random() * 2 ** 32) : 160_000 + 160 * Math.floor(random() * 200),
      marker: random() < 0.1,
      payloadType: random() < 0.05 ? 18 : 0,
      payload: new Uint8Array(Math.floor(random() * 400)),
    }
    buffer.push(packet, i / 10)
    if (i % 200 === 0) t.equal(buffer.pull(i / 10).pcm.length, 160)
    maxBuffered = Math.max(maxBuffered, buffer.stats.bufferedFrames)
  }
  t.ok(maxBuffered <= 64, `at most ${maxBuffered} frames held`)
  const { undecodable, overflowDropped, duplicates } = buffer.stats
  t.ok(undecodable > 0 && overflowDropped > 0 && duplicates > 0, JSON.stringify(buffer.stats))
})

t.test('a payload longer than a frame is cut to one frame; a shorter one is padded with silence', async (t) => {
  const [p] = makeStream({ count: 1 })
  const buffer = new JitterBuffer()
  buffer.push({ ...p!, payload: new Uint8Array(80).fill(0x80) }, 0)
  const frame = buffer.pull(100)
  t.equal(frame.kind, 'audio')
  t.same([frame.pcm[79], frame.pcm[80], frame.pcm.length], [32124, 0, 160])
})
