import t from 'tap'
import { BLOCK_SAMPLES, BlockPool, SampleQueue } from '../../../engine/audio/sample-queue.js'

const ramp = (n: number, from: number) => Int16Array.from({ length: n }, (_, i) => (from + i) % 30_000)

t.test('samples come out in order and unchanged, whatever the write and read sizes', async (t) => {
  const q = new SampleQueue(new BlockPool())
  const sizes = [1, 319, 320, BLOCK_SAMPLES - 1, BLOCK_SAMPLES, BLOCK_SAMPLES + 1, 3 * BLOCK_SAMPLES + 17, 5]
  let written = 0
  for (const n of sizes) q.write(ramp(n, written)), (written += n)
  t.equal(q.length, written)
  const out = new Int16Array(written)
  let at = 0
  for (const n of [7, 320, BLOCK_SAMPLES * 2, 1, 100_000]) at += q.read(out, at, n)
  t.equal(at, written, 'a read past the end moves only what there is')
  t.same(out, ramp(written, 0))
  t.equal(q.length, 0)
  t.equal(q.read(out, 0, 10), 0, 'an empty queue moves nothing')
})

t.test('what was written is a copy: the writer may reuse its array at once', async (t) => {
  const q = new SampleQueue(new BlockPool())
  const chunk = ramp(500, 1)
  q.write(chunk)
  chunk.fill(-1)
  const out = new Int16Array(500)
  q.read(out, 0, 500)
  t.same(out, ramp(500, 1))
})

t.test('reads never run past the output array, and interleave with writes', async (t) => {
  const q = new SampleQueue(new BlockPool())
  q.write(ramp(1000, 0))
  const out = new Int16Array(320)
  t.equal(q.read(out, 300, 320), 20, 'limited by the room left in out')
  t.same(out.subarray(300), ramp(20, 0))
  t.same(out.subarray(0, 300), new Int16Array(300), 'nothing written before offset')
  q.write(ramp(BLOCK_SAMPLES * 2, 1000))
  const rest = new Int16Array(980 + BLOCK_SAMPLES * 2)
  t.equal(q.read(rest, 0, rest.length), rest.length)
  t.same(rest, ramp(rest.length, 20))
})

t.test('blocks are reused: a long stream through a short queue allocates a bounded number', async (t) => {
  const pool = new BlockPool()
  const q = new SampleQueue(pool)
  const out = new Int16Array(320)
  let next = 0
  let expect = 0
  // 60 s of 16 kHz audio, written 1,200 samples at a time and played 320 at a time, ≤ 1 s queued.
  while (next < 960_000) {
    if (q.length < 16_000) q.write(ramp(1200, next)), (next += 1200)
    const n = q.read(out, 0, 320)
    for (let i = 0; i < n; i++) if (out[i] !== (expect + i) % 30_000) return t.fail(`sample ${expect + i} out of order`)
    expect += n
  }
  t.ok(pool.allocated <= Math.ceil(17_200 / BLOCK_SAMPLES) + 1, `${pool.allocated} blocks for ~1 s queued at most`)
})

t.test('clear() drops the audio and hands its blocks back; queues on one pool stay apart', async (t) => {
  const pool = new BlockPool()
  const a = new SampleQueue(pool)
  const b = new SampleQueue(pool)
  a.write(ramp(BLOCK_SAMPLES * 2 + 5, 0))
  b.write(ramp(10, 500))
  const before = pool.allocated
  a.clear()
  t.equal(a.length, 0)
  t.equal(a.read(new Int16Array(4), 0, 4), 0)
  a.write(ramp(BLOCK_SAMPLES * 2, 7))
  t.equal(pool.allocated, before, 'the cleared blocks are reused, not new ones')
  const out = new Int16Array(10)
  b.read(out, 0, 10)
  t.same(out, ramp(10, 500), "reusing a's blocks left b's audio alone")
  const outA = new Int16Array(BLOCK_SAMPLES * 2)
  a.read(outA, 0, outA.length)
  t.same(outA, ramp(outA.length, 7))
})
