import t from 'tap'
import { downmix, encodeWav, parseWav, WavError } from '../../../engine/audio/wav.js'

const chunk = (id: string, body: Buffer, declaredSize = body.length): Buffer => {
  const head = Buffer.alloc(8)
  head.write(id, 0, 'latin1')
  head.writeUInt32LE(declaredSize, 4)
  return Buffer.concat([head, body, body.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0)])
}
const riff = (...chunks: Buffer[]): Buffer => {
  const body = Buffer.concat([Buffer.from('WAVE', 'latin1'), ...chunks])
  const head = Buffer.alloc(8)
  head.write('RIFF', 0, 'latin1')
  head.writeUInt32LE(body.length, 4)
  return Buffer.concat([head, body])
}
const fmt = (opts: { tag?: number; channels?: number; rate?: number; bits?: number } = {}): Buffer => {
  const { tag = 1, channels = 1, rate = 16000, bits = 16 } = opts
  const b = Buffer.alloc(16)
  b.writeUInt16LE(tag, 0)
  b.writeUInt16LE(channels, 2)
  b.writeUInt32LE(rate, 4)
  b.writeUInt32LE((rate * channels * bits) / 8, 8)
  b.writeUInt16LE((channels * bits) / 8, 12)
  b.writeUInt16LE(bits, 14)
  return b
}
const extensible = (subformat: number): Buffer => {
  const b = Buffer.alloc(40)
  fmt({ tag: 0xfffe, channels: 2, rate: 48000 }).copy(b)
  b.writeUInt16LE(22, 16)
  b.writeUInt16LE(16, 18)
  b.writeUInt32LE(3, 20)
  b.writeUInt16LE(subformat, 24)
  return b
}
const data = (...samples: number[]): Buffer => Buffer.from(Int16Array.from(samples).buffer)
const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn()
  } catch (err) {
    return err instanceof WavError ? err.code : `not a WavError: ${String(err)}`
  }
  return undefined
}

t.test('encodeWav output parses back to the same samples', async (t) => {
  const samples = Int16Array.from([0, 1, -1, 32767, -32768, 1234])
  const wav = encodeWav(samples, 22050, 2)
  t.equal(wav.length, 44 + 12)
  t.same(parseWav(wav), { sampleRate: 22050, channels: 2, samples })
})

t.test('unknown chunks are skipped, odd-sized ones with their pad byte', async (t) => {
  const wav = riff(chunk('LIST', Buffer.from('INFOabc', 'latin1')), chunk('fmt ', fmt()), chunk('junk', Buffer.alloc(1)), chunk('data', data(5, -5)))
  t.same(Array.from(parseWav(wav).samples), [5, -5])
})

t.test('a data chunk before the fmt chunk is refused', async (t) => {
  t.equal(
    codeOf(() => parseWav(riff(chunk('data', data(1)), chunk('fmt ', fmt())))),
    'missing_chunk',
  )
})

t.test('WAVE_FORMAT_EXTENSIBLE with the PCM subformat is read', async (t) => {
  const wav = riff(chunk('fmt ', extensible(1)), chunk('data', data(1, 2, 3, 4)))
  t.same(parseWav(wav), { sampleRate: 48000, channels: 2, samples: Int16Array.from([1, 2, 3, 4]) })
  t.equal(
    codeOf(() => parseWav(riff(chunk('fmt ', extensible(3)), chunk('data', data(1, 2))))),
    'unsupported_format',
  )
})

t.test('a streamed data size (0, 0xFFFFFFFF, espeak-ng 0x7FFFF000) means the rest of the file', async (t) => {
  for (const size of [0, 0xffffffff, 0x7ffff000]) {
    const wav = riff(chunk('fmt ', fmt()), chunk('data', data(7, 8, 9), size))
    t.same(Array.from(parseWav(wav).samples), [7, 8, 9], `size ${size.toString(16)}`)
  }
})

t.test('a stream cut mid-sample keeps its whole samples', async (t) => {
  const wav = riff(chunk('fmt ', fmt()), chunk('data', data(7, 8), 0xffffffff))
  t.same(Array.from(parseWav(Buffer.concat([wav, Buffer.from([1])])).samples), [7, 8])
})

t.test('anything else is a WavError with a code', async (t) => {
  t.equal(
    codeOf(() => parseWav(Buffer.from('not a wav file at all'))),
    'not_riff',
  )
  t.equal(
    codeOf(() => parseWav(Buffer.alloc(4))),
    'not_riff',
  )
  t.equal(
    codeOf(() => parseWav(riff(chunk('fmt ', fmt({ bits: 8 })), chunk('data', data(1))))),
    'unsupported_format',
  )
  t.equal(
    codeOf(() => parseWav(riff(chunk('fmt ', fmt({ tag: 3, bits: 32 })), chunk('data', data(1))))),
    'unsupported_format',
  )
  t.equal(
    codeOf(() => parseWav(riff(chunk('fmt ', fmt().subarray(0, 14))))),
    'truncated',
  )
  t.equal(
    codeOf(() => parseWav(riff(chunk('fmt ', fmt()), chunk('data', data(1, 2), 100)))),
    'truncated',
  )
  t.equal(
    codeOf(() => parseWav(riff(chunk('fmt ', fmt())))),
    'missing_chunk',
  )
  t.equal(
    codeOf(() => parseWav(riff())),
    'truncated',
  )
  const err = (() => {
    try {
      parseWav(Buffer.alloc(0))
    } catch (e) {
      return e
    }
  })()
  t.ok(err instanceof Error && err instanceof WavError && err.name === 'WavError')
})

t.test('downmix averages each frame', async (t) => {
  t.same(Array.from(downmix(Int16Array.from([10, 20, -32768, -32768, 1, 2]), 2)), [15, -32768, 2])
  const mono = Int16Array.from([1, 2])
  t.equal(downmix(mono, 1), mono)
  t.throws(() => downmix(Int16Array.from([1, 2, 3]), 2), RangeError)
})
