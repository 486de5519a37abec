import t from 'tap'
import { encodeWav } from '../../../../../engine/audio/wav.js'
import { pcmToBytes } from '../../../../../engine/audio/pcm.js'
import { Pcm16Framer, WavStreamReader, pcmDecoder } from '../../../../../engine/pipeline/providers/tts/pcm-stream.js'

const ramp = (n: number) => Int16Array.from({ length: n }, (_, i) => i * 37 - 5000)

/** Feeds `bytes` one byte at a time, the worst split a network read can make. */
function feedBytewise(push: (b: Uint8Array) => Int16Array, bytes: Buffer): Int16Array {
  const out: number[] = []
  for (let i = 0; i < bytes.length; i++) out.push(...push(bytes.subarray(i, i + 1)))
  return Int16Array.from(out)
}

t.test('Pcm16Framer reassembles samples split across odd reads', async (t) => {
  const pcm = ramp(301)
  const f = new Pcm16Framer()
  t.same(
    feedBytewise((b) => f.push(b), pcmToBytes(pcm)),
    pcm,
  )
  t.equal(f.push(Buffer.from([1, 2, 3])).length, 1)
  t.equal(f.end(), 1, 'a dangling byte at the end is reported and dropped')
})

t.test('Pcm16Framer.pushTransient: the same samples from any split, in one array it refills', async (t) => {
  const pcm = ramp(4001)
  const bytes = pcmToBytes(pcm)
  // Reads at odd addresses (a socket's buffer), of odd and even lengths, some shorter than a frame.
  const backing = Buffer.alloc(bytes.length + 1)
  bytes.copy(backing, 1)
  const shifted = backing.subarray(1)
  for (const sizes of [[1], [3, 1, 4096, 2], [999], [4096, 4095]]) {
    const f = new Pcm16Framer()
    const out: number[] = []
    const arrays = new Set<ArrayBufferLike>()
    for (let at = 0, k = 0; at < shifted.length; k++) {
      const n = sizes[k % sizes.length]!
      const samples = f.pushTransient(shifted.subarray(at, at + n))
      if (samples.length) arrays.add(samples.buffer)
      out.push(...samples)
      at += n
    }
    t.same(Int16Array.from(out), pcm, `reads of ${sizes.join(', ')} bytes`)
    t.ok(arrays.size <= 2, `${arrays.size} arrays for ${pcm.length} samples (grown once at most)`)
    t.equal(f.end(), 0)
  }
  const stereo = new Pcm16Framer(2)
  const frames = pcmToBytes(Int16Array.from([1, 2, 3, 4, 5, 6]))
  t.same([...stereo.pushTransient(frames.subarray(0, 7))], [1, 2], 'whole frames of two channels only')
  t.same([...stereo.pushTransient(frames.subarray(7))], [3, 4, 5, 6])
  const own = new Pcm16Framer()
  const a = own.push(Buffer.from([1, 0, 2, 0]))
  own.push(Buffer.from([3, 0, 4, 0]))
  t.same([...a], [1, 2], 'push() gives samples of their own, which the next push leaves alone')
})

t.test('WavStreamReader takes the header from the first bytes, whatever size it claims', async (t) => {
  const pcm = ramp(500)
  for (const size of [0, 0xffffffff, 0x7ffff000]) {
    const wav = encodeWav(pcm, 22050)
    wav.writeUInt32LE(size, 40)
    const r = new WavStreamReader()
    t.same(
      feedBytewise((b) => r.push(b), wav),
      pcm,
      `data size ${size.toString(16)}`,
    )
    t.same(r.format, { sampleRate: 22050, channels: 1 })
    r.end()
  }
  const stereo = new WavStreamReader()
  t.same(stereo.push(encodeWav(Int16Array.from([100, 300, -100, -300]), 16000, 2)), Int16Array.from([200, -200]), 'stereo is downmixed')
  const cut = new WavStreamReader()
  cut.push(Buffer.from('RIFF'))
  t.throws(() => cut.end(), RangeError, 'a stream that ends inside its header is an error')
  t.throws(() => new WavStreamReader().push(Buffer.from('not a wav file at all')), RangeError)
})

t.test('pcmDecoder resamples 24 kHz to 16 kHz across chunk boundaries', async (t) => {
  const d = pcmDecoder(24000)
  const bytes = pcmToBytes(new Int16Array(24000).fill(1000))
  let n = 0
  for (let at = 0; at < bytes.length; at += 999) n += d.push(bytes.subarray(at, at + 999)).length
  n += d.end().length
  t.ok(Math.abs(n - 16000) <= 1, `${n} samples for one second`)
})
