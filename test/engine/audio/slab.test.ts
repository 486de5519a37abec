import t from 'tap'
import { slabFloat32, slabInt16 } from '../../../engine/audio/slab.js'

t.test('arrays from a slab are zeroed, aligned, disjoint and share buffers', async (t) => {
  const a = slabInt16(320)
  const b = slabFloat32(576)
  const c = slabInt16(3)
  t.ok(a.every((x) => x === 0) && b.every((x) => x === 0) && c.every((x) => x === 0), 'zeroed')
  t.equal(b.byteOffset % 8, 0, 'aligned for any element type')
  t.equal(c.byteOffset % 8, 0)
  a.fill(7)
  b.fill(1.5)
  t.ok(
    c.every((x) => x === 0),
    'writing one array leaves the others alone',
  )
  t.equal(b[0], 1.5)
  t.equal(a.buffer, b.buffer, 'one backing buffer for many small arrays')
})

t.test('a full slab starts a new one; arrays over half a slab (4 KiB) get their own buffer', async (t) => {
  const first = slabInt16(8)
  t.equal(first.buffer.byteLength, 8192, 'slabs are 8 KiB: a kept array pins little')
  const cuts = [slabInt16(1000)]
  while (cuts.at(-1)!.buffer === first.buffer) cuts.push(slabInt16(1000))
  const room = 8192 - (first.byteOffset + 16)
  t.equal(cuts.length - 1, Math.floor(room / 2000), `as many 2000-byte arrays as the ${room} bytes left hold, then a new slab`)
  const next = cuts.at(-1)!
  t.equal(next.byteOffset, 0)
  t.equal(next.buffer.byteLength, 8192)
  t.ok(
    next.every((x) => x === 0),
    'a fresh slab is zeroed',
  )
  const silero16k = slabFloat32(576)
  t.equal(silero16k.buffer.byteLength, 8192, "Silero's 16 kHz input (2304 bytes) is cut from a slab")
  const half = slabInt16(2048)
  t.equal(half.buffer.byteLength, 8192, 'half a slab still is')
  const over = slabInt16(2049)
  t.equal(over.buffer.byteLength, 4098, 'over half: its own buffer')
  const big = slabFloat32(100_000)
  t.equal(big.length, 100_000)
  t.equal(big.byteOffset, 0)
  t.equal(big.buffer.byteLength, 400_000, 'its own buffer')
})
