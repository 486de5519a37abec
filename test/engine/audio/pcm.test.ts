import t from 'tap'
import { pcmFromBytes, pcmToBytes, pcmTransient, pcmView, rms, toFloat32 } from '../../../engine/audio/pcm.js'

t.test('bytes are read and written little-endian', async (t) => {
  const bytes = Buffer.from([0x01, 0x00, 0xff, 0xff, 0x00, 0x80, 0xff, 0x7f])
  const pcm = pcmFromBytes(bytes)
  t.same(Array.from(pcm), [1, -1, -32768, 32767])
  t.same(pcmToBytes(pcm), bytes)
})

t.test('an odd byte count is a RangeError', async (t) => {
  t.throws(() => pcmFromBytes(Buffer.alloc(3)), RangeError)
})

t.test('a buffer at an odd offset inside a pool is still read correctly', async (t) => {
  const pool = Buffer.from([0xaa, 0x34, 0x12, 0x78, 0x56])
  t.same(Array.from(pcmFromBytes(pool.subarray(1))), [0x1234, 0x5678])
})

t.test('the samples are a copy: reusing the source buffer does not change them', async (t) => {
  const bytes = Buffer.from([0x01, 0x00])
  const pcm = pcmFromBytes(bytes)
  bytes[0] = 9
  t.equal(pcm[0], 1)
})

t.test('pcmToBytes of a subarray writes only that subarray', async (t) => {
  const pcm = Int16Array.from([1, 2, 3]).subarray(1)
  t.same(Array.from(pcmFromBytes(pcmToBytes(pcm))), [2, 3])
})

t.test('toFloat32 divides by 32768', async (t) => {
  t.same(Array.from(toFloat32(Int16Array.from([-32768, 0, 16384]))), [-1, 0, 0.5])
})

t.test('rms is on a 0..1 scale', async (t) => {
  t.equal(rms(new Int16Array(0)), 0)
  t.equal(rms(new Int16Array(100)), 0)
  t.equal(rms(Int16Array.from([16384, -16384])), 0.5)
  const sine = Int16Array.from({ length: 16000 }, (_, i) => Math.round(32767 * Math.sin((2 * Math.PI * 440 * i) / 16000)))
  t.ok(Math.abs(rms(sine) - Math.SQRT1_2) < 1e-3)
})

t.test("pcmView shares the samples' memory; pcmTransient views aligned bytes and copies the rest", async (t) => {
  const pcm = Int16Array.from([1, -2, 300, -32768])
  const view = pcmView(pcm)
  t.same([...view], [...pcmToBytes(pcm)], 'the same bytes as a copy would hold')
  t.equal(view.buffer, pcm.buffer, 'no copy on a little-endian host')
  const bytes = new Uint8Array(pcmToBytes(pcm))
  const aligned = pcmTransient(bytes)
  t.same([...aligned], [...pcm])
  t.equal(aligned.buffer, bytes.buffer, 'aligned bytes are viewed')
  const odd = new Uint8Array(bytes.length + 1)
  odd.set(bytes, 1)
  const shifted = pcmTransient(odd.subarray(1))
  t.same([...shifted], [...pcm], 'an odd offset is copied, correctly')
  t.not(shifted.buffer, odd.buffer)
})
