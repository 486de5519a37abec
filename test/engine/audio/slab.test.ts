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

t.test('a full slab starts a new one; large arrays get their own buffer', async (t) => {
  const first = slabInt16(8)
  let next = slabInt16(4000)
  for (let i = 0; i < 40 && next.buffer === first.buffer; i++) next = slabInt16(4000)
  t.not(next.buffer, first.buffer, 'a new slab once the old one is full')
  t.ok(
    next.every((x) => x === 0),
    'a fresh slab is zeroed',
  )
  const big = slabFloat32(100_000)
  t.equal(big.length, 100_000)
  t.equal(big.byteOffset, 0)
  t.equal(big.buffer.byteLength, 400_000, 'its own buffer')
})
