// ITU-T G.711: µ-law and A-law against the Recommendation's tables (reference points and the
// segment/mantissa formula of Tables 1 and 2, computed here independently of the codec).
import t from 'tap'
import {
  alawDecodeSample,
  alawEncodeSample,
  decodeAlaw,
  decodeG711,
  decodeMulaw,
  encodeAlaw,
  encodeMulaw,
  mulawDecodeSample,
  mulawEncodeSample,
} from '../../../sip/rtp/index.js'

/** G.711 Table 2: bits inverted; magnitude ((2m + 33) << e) - 33 on a 14-bit scale; ×4 to PCM16. */
function mulawOracle(code: number): number {
  const u = ~code & 0xff
  const e = (u >> 4) & 7
  const m = u & 15
  const magnitude = 4 * (((2 * m + 33) << e) - 33)
  return u & 0x80 ? -magnitude : magnitude
}

/** G.711 Table 1: even bits inverted (XOR 0x55); magnitude 2m + 1 or (2m + 33) << (e - 1) on a 13-bit scale; ×8. Sign bit 1 is positive. */
function alawOracle(code: number): number {
  const a = code ^ 0x55
  const e = (a >> 4) & 7
  const m = a & 15
  const magnitude = 8 * (e === 0 ? 2 * m + 1 : (2 * m + 33) << (e - 1))
  return a & 0x80 ? magnitude : -magnitude
}

const decodeOne = (decode: (c: Uint8Array, o: Int16Array) => number, code: number) => {
  const out = new Int16Array(1)
  decode(Uint8Array.of(code), out)
  return out[0]!
}
const encodeOne = (encode: (p: Int16Array, o: Uint8Array) => number, pcm: number) => {
  const out = new Uint8Array(1)
  encode(Int16Array.of(pcm), out)
  return out[0]!
}

t.test('µ-law reference points MUST decode as G.711 gives them', async (t) => {
  const points: [number, number][] = [
    [0xff, 0],
    [0x7f, 0],
    [0x80, 32124],
    [0x00, -32124],
    [0xfe, 8],
    [0x7e, -8],
    [0xef, 132],
    [0xf0, 120],
  ]
  for (const [code, pcm] of points) t.equal(decodeOne(decodeMulaw, code), pcm, `0x${code.toString(16)} → ${pcm}`)
})

t.test('A-law reference points MUST decode as G.711 gives them', async (t) => {
  const points: [number, number][] = [
    [0xd5, 8],
    [0x55, -8],
    [0xaa, 32256],
    [0x2a, -32256],
    [0xd4, 24],
    [0xc5, 264],
  ]
  for (const [code, pcm] of points) t.equal(decodeOne(decodeAlaw, code), pcm, `0x${code.toString(16)} → ${pcm}`)
})

t.test('every one of the 256 codes MUST decode as the Table 1/2 formula says', async (t) => {
  for (let code = 0; code < 256; code++) {
    if (decodeOne(decodeMulaw, code) !== mulawOracle(code)) t.fail(`µ-law 0x${code.toString(16)}`)
    if (decodeOne(decodeAlaw, code) !== alawOracle(code)) t.fail(`A-law 0x${code.toString(16)}`)
  }
  t.pass('256 µ-law and 256 A-law codes')
})

t.test('encoding reference points: zero, the extremes, the smallest steps', async (t) => {
  t.same(
    [0, 32767, -32768, 8, -8].map((x) => encodeOne(encodeMulaw, x)),
    [0xff, 0x80, 0x00, 0xfe, 0x7e],
  )
  t.same(
    [0, -1, 8, -8, 32767, -32768].map((x) => encodeOne(encodeAlaw, x)),
    [0xd5, 0x55, 0xd5, 0x55, 0xaa, 0x2a],
  )
})

t.test('encode(decode(code)) MUST give the code back, µ-law 0x7F aside (its zero encodes as 0xFF)', async (t) => {
  for (let code = 0; code < 256; code++) {
    const mu = encodeOne(encodeMulaw, decodeOne(decodeMulaw, code))
    if (mu !== (code === 0x7f ? 0xff : code)) t.fail(`µ-law 0x${code.toString(16)} → 0x${mu.toString(16)}`)
    const a = encodeOne(encodeAlaw, decodeOne(decodeAlaw, code))
    if (a !== code) t.fail(`A-law 0x${code.toString(16)} → 0x${a.toString(16)}`)
  }
  t.pass('all 256 codes of each law')
})

t.test('quantization MUST be monotonic, with an error under one step of the segment', async (t) => {
  for (const [name, encode, decode, stepOf] of [
    ['µ-law', mulawEncodeSample, mulawDecodeSample, (code: number) => 8 << ((~code >> 4) & 7)],
    ['A-law', alawEncodeSample, alawDecodeSample, (code: number) => 16 << Math.max(0, (((code ^ 0x55) >> 4) & 7) - 1)],
  ] as const) {
    let previous = Number.NEGATIVE_INFINITY
    let worst = 0
    for (let x = -32768; x <= 32767; x++) {
      const code = encode(x)
      const y = decode(code)
      if (y < previous) t.fail(`${name}: ${x} decodes below ${x - 1}`)
      previous = y
      const clipped = Math.max(-32256, Math.min(32256, x))
      if (Math.abs(y - clipped) > stepOf(code)) t.fail(`${name}: ${x} → ${y}`)
      worst = Math.max(worst, Math.abs(y - x))
    }
    t.ok(worst <= 1024, `${name} worst error ${worst}`)
  }
})

t.test('the tables MUST agree with the reference segment search on all 65,536 samples', async (t) => {
  const pcm = new Int16Array(65536)
  for (let i = 0; i < 65536; i++) pcm[i] = i - 32768
  const mu = new Uint8Array(65536)
  const a = new Uint8Array(65536)
  t.equal(encodeMulaw(pcm, mu), 65536)
  t.equal(encodeAlaw(pcm, a), 65536)
  let mismatches = 0
  for (let i = 0; i < 65536; i++) if (mu[i] !== mulawEncodeSample(i - 32768) || a[i] !== alawEncodeSample(i - 32768)) mismatches++
  t.equal(mismatches, 0)
})

t.test('frame functions write into caller buffers and return min(input, output) samples', async (t) => {
  const out = new Int16Array(4).fill(123)
  t.equal(decodeMulaw(Uint8Array.of(0xff, 0x80), out), 2)
  t.same([...out], [0, 32124, 123, 123], 'the rest of the output is untouched')
  const codes = new Uint8Array(2)
  t.equal(encodeAlaw(Int16Array.of(8, -8, 100), codes), 2)
  t.same([...codes], [0xd5, 0x55])
  t.equal(decodeG711(0, Uint8Array.of(0xff), out), 1, 'payload type 0 is PCMU')
  t.equal(decodeG711(8, Uint8Array.of(0xaa), out), 1, 'payload type 8 is PCMA')
  t.equal(out[0], 32256)
  t.equal(decodeG711(9, Uint8Array.of(0), out), undefined, 'G.722 is not decoded here')
})
