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
