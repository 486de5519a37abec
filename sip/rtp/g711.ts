/**
 * ITU-T G.711 µ-law (PCMU, RTP payload type 0) and A-law (PCMA, payload type 8), RFC 3551 §4.5.14.
 *
 * Decoding reads a 256-entry Int16 table. Encoding reads a table indexed by the sample's top bits:
 * µ-law quantizes a 14-bit magnitude (the sample >> 2, 16 Ki entries) and A-law a 13-bit one (the
 * sample >> 3, 8 Ki entries), so the table loses nothing against the classic segment search.
 * Measured with a throwaway script (tsx, x64 shared by other jobs, 10^6 frames of 160 samples): the
 * table encodes a frame in 0.28 µs for µ-law and A-law alike, the segment search in 1.5 µs (µ-law)
 * and 2.2 µs (A-law): 5-8 times slower. The tables take 24 KiB, built once at module load.
 *
 * The tables are built from the reference algorithm (the segment search below, as in the ITU-T
 * G.191 software tools), which stays exported so the tests can compare the two on every input.
 */

const SIGN_BIT = 0x80
const QUANT_MASK = 0x0f
const SEG_SHIFT = 4
const SEG_MASK = 0x70
/** µ-law adds 33 to the 14-bit magnitude (132 on the 16-bit scale) before taking the exponent. */
const MULAW_BIAS = 0x84
const MULAW_CLIP = 8159
const MULAW_SEG_END = [0x3f, 0x7f, 0xff, 0x1ff, 0x3ff, 0x7ff, 0xfff, 0x1fff]
const ALAW_SEG_END = [0x1f, 0x3f, 0x7f, 0xff, 0x1ff, 0x3ff, 0x7ff, 0xfff]

function segment(value: number, ends: readonly number[]): number {
  let seg = 0
  while (seg < 8 && value > ends[seg]!) seg++
  return seg
}

/** The reference µ-law encoder: one PCM16 sample to one code (the bits inverted, G.711 Table 2a). */
export function mulawEncodeSample(pcm: number): number {
  let value = pcm >> 2
  let mask = 0xff
  if (value < 0) {
    value = -value
    mask = 0x7f
  }
  if (value > MULAW_CLIP) value = MULAW_CLIP
  value += MULAW_BIAS >> 2
  const seg = segment(value, MULAW_SEG_END)
  if (seg >= 8) return 0x7f ^ mask
  return ((seg << 4) | ((value >> (seg + 1)) & QUANT_MASK)) ^ mask
}

/** The reference µ-law decoder. 0xFF and 0x7F both decode to 0 (G.711's two zero codes). */
export function mulawDecodeSample(code: number): number {
  const u = ~code & 0xff
  const magnitude = ((((u & QUANT_MASK) << 3) + MULAW_BIAS) << ((u & SEG_MASK) >> SEG_SHIFT)) - MULAW_BIAS
  return u & SIGN_BIT ? -magnitude : magnitude
}

/** The reference A-law encoder (even bits inverted: the XOR with 0x55, G.711 Table 1a). */
export function alawEncodeSample(pcm: number): number {
  let value = pcm >> 3
  let mask = 0xd5
  if (value < 0) {
    value = -value - 1
    mask = 0x55
  }
  const seg = segment(value, ALAW_SEG_END)
  if (seg >= 8) return 0x7f ^ mask
  const quant = seg < 2 ? (value >> 1) & QUANT_MASK : (value >> seg) & QUANT_MASK
  return ((seg << 4) | quant) ^ mask
}

/** The reference A-law decoder. */
export function alawDecodeSample(code: number): number {
  const a = code ^ 0x55
  const seg = (a & SEG_MASK) >> SEG_SHIFT
  let magnitude = (a & QUANT_MASK) << 4
  if (seg === 0) magnitude += 8
  else magnitude = (magnitude + 0x108) << (seg - 1)
  return a & SIGN_BIT ? magnitude : -magnitude
}

function decodeTable(decode: (code: number) => number): Int16Array {
  const table = new Int16Array(256)
  for (let code = 0; code < 256; code++) table[code] = decode(code)
  return table
}

function encodeTable(shift: number, encode: (pcm: number) => number): Uint8Array {
  const size = 65536 >> shift
  const table = new Uint8Array(size)
  // Index i holds the code for the samples whose top bits are i (as unsigned): every sample in
  // that group gives the same code, since the encoder's first step is the same shift.
  for (let i = 0; i < size; i++) table[i] = encode(((i << shift) << 16) >> 16)
  return table
}

const MULAW_DECODE = decodeTable(mulawDecodeSample)
const ALAW_DECODE = decodeTable(alawDecodeSample)
const MULAW_ENCODE = encodeTable(2, mulawEncodeSample)
const ALAW_ENCODE = encodeTable(3, alawEncodeSample)

/**
 * Encodes `pcm` into `out` (one byte per sample) and returns the samples written:
 * min(pcm.length, out.length). Nothing is allocated.
 */
export function encodeMulaw(pcm: Int16Array, out: Uint8Array): number {
  const n = Math.min(pcm.length, out.length)
  for (let i = 0; i < n; i++) out[i] = MULAW_ENCODE[(pcm[i]! & 0xffff) >> 2]!
  return n
}

/** Decodes `codes` into `out`; returns min(codes.length, out.length). */
export function decodeMulaw(codes: Uint8Array, out: Int16Array): number {
  const n = Math.min(codes.length, out.length)
  for (let i = 0; i < n; i++) out[i] = MULAW_DECODE[codes[i]!]!
  return n
}

export function encodeAlaw(pcm: Int16Array, out: Uint8Array): number {
  const n = Math.min(pcm.length, out.length)
  for (let i = 0; i < n; i++) out[i] = ALAW_ENCODE[(pcm[i]! & 0xffff) >> 3]!
  return n
}

export function decodeAlaw(codes: Uint8Array, out: Int16Array): number {
  const n = Math.min(codes.length, out.length)
  for (let i = 0; i < n; i++) out[i] = ALAW_DECODE[codes[i]!]!
  return n
}

/** The static payload types of RFC 3551 Table 4, both 8000 Hz mono. */
export const PAYLOAD_TYPE_PCMU = 0
export const PAYLOAD_TYPE_PCMA = 8

/** A payload decoder by payload type: PCMU and PCMA; undefined for any other. */
export function decodeG711(payloadType: number, codes: Uint8Array, out: Int16Array): number | undefined {
  if (payloadType === PAYLOAD_TYPE_PCMU) return decodeMulaw(codes, out)
  if (payloadType === PAYLOAD_TYPE_PCMA) return decodeAlaw(codes, out)
  return undefined
}
