import { pcmFromBytes, pcmToBytes } from './pcm.js'

export type WavErrorCode = 'not_riff' | 'unsupported_format' | 'missing_chunk' | 'truncated'

export class WavError extends Error {
  override readonly name = 'WavError'
  constructor(
    readonly code: WavErrorCode,
    message: string,
  ) {
    super(message)
  }
}

export interface Wav {
  sampleRate: number
  channels: number
  /** PCM16, interleaved when channels > 1. */
  samples: Int16Array
}

const WAVE_FORMAT_PCM = 1
const WAVE_FORMAT_EXTENSIBLE = 0xfffe

/**
 * Data sizes writers put in the header when they stream to a pipe and cannot seek back:
 * 0 and 0xFFFFFFFF by convention, 0x7FFFF000 by espeak-ng --stdout (and anything that large
 * would be a 2 GiB file we would never hold in memory anyway).
 */
const isStreamingSize = (size: number): boolean => size === 0 || size >= 0x7ffff000

interface Fmt {
  channels: number
  sampleRate: number
  blockAlign: number
}

function parseFmt(buf: Buffer, at: number, size: number): Fmt {
  if (size < 16) throw new WavError('truncated', `fmt chunk of ${size} bytes is shorter than 16`)
  const tag = buf.readUInt16LE(at)
  const channels = buf.readUInt16LE(at + 2)
  const sampleRate = buf.readUInt32LE(at + 4)
  const blockAlign = buf.readUInt16LE(at + 12)
  const bits = buf.readUInt16LE(at + 14)
  let pcm = tag === WAVE_FORMAT_PCM
  if (tag === WAVE_FORMAT_EXTENSIBLE) {
    // The subformat GUID starts 24 bytes in; its first two bytes are the format tag it stands for.
    if (size < 40) throw new WavError('truncated', 'WAVE_FORMAT_EXTENSIBLE fmt chunk is shorter than 40 bytes')
    pcm = buf.readUInt16LE(at + 24) === WAVE_FORMAT_PCM
  }
  if (!pcm || bits !== 16) {
    throw new WavError('unsupported_format', `only PCM 16-bit WAV is supported (format ${tag}, ${bits} bits)`)
  }
  if (channels < 1 || sampleRate < 1 || blockAlign !== channels * 2) {
    throw new WavError('unsupported_format', `inconsistent fmt chunk (${channels} channels, block ${blockAlign})`)
  }
  return { channels, sampleRate, blockAlign }
}

/** Reads a RIFF/WAVE file holding PCM16; every other chunk (LIST, fact, cue …) is skipped. */
export function parseWav(buf: Buffer): Wav {
  if (buf.length < 12 || buf.toString('latin1', 0, 4) !== 'RIFF' || buf.toString('latin1', 8, 12) !== 'WAVE') {
    throw new WavError('not_riff', 'not a RIFF/WAVE file')
  }
  let fmt: Fmt | undefined
  let at = 12
  while (at + 8 <= buf.length) {
    const id = buf.toString('latin1', at, at + 4)
    const size = buf.readUInt32LE(at + 4)
    const body = at + 8
    if (id === 'data') {
      if (!fmt) throw new WavError('missing_chunk', 'data chunk before any fmt chunk')
      let end = body + size
      if (isStreamingSize(size)) end = buf.length
      else if (end > buf.length) throw new WavError('truncated', `data chunk wants ${size} bytes, ${buf.length - body} left`)
      // A stream cut mid-frame keeps its whole frames.
      end = body + Math.floor((end - body) / fmt.blockAlign) * fmt.blockAlign
      return { sampleRate: fmt.sampleRate, channels: fmt.channels, samples: pcmFromBytes(buf.subarray(body, end)) }
    }
    if (body + size > buf.length) throw new WavError('truncated', `${id} chunk runs past the end of the file`)
    if (id === 'fmt ') fmt = parseFmt(buf, body, size)
    // RIFF chunks are word-aligned: an odd-sized chunk is followed by one pad byte.
    at = body + size + (size % 2)
  }
  throw new WavError(fmt ? 'missing_chunk' : 'truncated', fmt ? 'no data chunk' : 'no fmt chunk')
}

/** A canonical 44-byte-header PCM16 WAV. */
export function encodeWav(samples: Int16Array, sampleRate: number, channels = 1): Buffer {
  if (samples.length % channels !== 0) throw new RangeError('sample count is not a multiple of channels')
  const data = pcmToBytes(samples)
  const header = Buffer.alloc(44)
  header.write('RIFF', 0, 'latin1')
  header.writeUInt32LE(36 + data.length, 4)
  header.write('WAVEfmt ', 8, 'latin1')
  header.writeUInt32LE(16, 16)
  header.writeUInt16LE(WAVE_FORMAT_PCM, 20)
  header.writeUInt16LE(channels, 22)
  header.writeUInt32LE(sampleRate, 24)
  header.writeUInt32LE(sampleRate * channels * 2, 28)
  header.writeUInt16LE(channels * 2, 32)
  header.writeUInt16LE(16, 34)
  header.write('data', 36, 'latin1')
  header.writeUInt32LE(data.length, 40)
  return Buffer.concat([header, data])
}

/** Interleaved → mono by averaging the channels of each frame. */
export function downmix(samples: Int16Array, channels: number): Int16Array {
  if (!Number.isInteger(channels) || channels < 1) throw new RangeError(`bad channel count ${channels}`)
  if (channels === 1) return samples
  if (samples.length % channels !== 0) throw new RangeError('sample count is not a multiple of channels')
  const out = new Int16Array(samples.length / channels)
  for (let i = 0; i < out.length; i++) {
    let sum = 0
    for (let c = 0; c < channels; c++) sum += samples[i * channels + c]!
    out[i] = Math.round(sum / channels)
  }
  return out
}
