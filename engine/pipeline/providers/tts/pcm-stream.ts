/**
 * Pure, synchronous cores that turn a byte stream of audio into engine-format chunks: network and
 * pipe reads split anywhere (an odd byte count included), a streamed WAV puts its header in the
 * first bytes with a placeholder size, and providers speak at 22.05 or 24 kHz. Each core takes
 * bytes in and gives samples out, with an explicit end().
 */
import { LITTLE_ENDIAN_HOST, pcmFromBytes } from '../../../audio/pcm.js'
import { downmix } from '../../../audio/wav.js'
import { Resampler } from '../../../audio/resample.js'
import { SAMPLE_RATE, type SpeechRate } from '../../../audio/format.js'

/** Cuts a byte stream into whole little-endian 16-bit frames, carrying a partial frame to the next push. */
export class Pcm16Framer {
  /** The bytes of a partial frame, held for the next push. */
  private readonly carry: Uint8Array
  private carried = 0
  /** pushTransient's samples, refilled by each call (grown to the largest read). */
  private scratch = new Int16Array(0)

  /** `channels` interleaved samples make one frame; only whole frames leave. */
  constructor(private readonly channels = 1) {
    this.carry = new Uint8Array(2 * channels)
  }

  /** Whole frames as samples of their own. */
  push(bytes: Uint8Array): Int16Array {
    const whole = this.wholeBytes(bytes)
    if (whole === 0) return this.keep(bytes, 0)
    const joined = this.joined(bytes, new Uint8Array(whole))
    return LITTLE_ENDIAN_HOST ? new Int16Array(joined.buffer) : pcmFromBytes(joined)
  }

  /**
   * As push(), but the samples are the framer's own array, refilled by its next call: for a
   * consumer that copies them at once (the resampler). Why: a network read's bytes rarely start
   * on an even address, so every read was copied into a new array, and an array per read of a
   * voice at 24 kHz is ArrayBuffer memory V8 counts toward its next full GC (slab.ts).
   */
  pushTransient(bytes: Uint8Array): Int16Array {
    const whole = this.wholeBytes(bytes)
    if (whole === 0) return this.keep(bytes, 0)
    if (!LITTLE_ENDIAN_HOST) return this.push(bytes)
    if (this.scratch.length < whole / 2) this.scratch = new Int16Array(Math.max(whole / 2, 2 * this.scratch.length))
    this.joined(bytes, new Uint8Array(this.scratch.buffer, 0, whole))
    return this.scratch.subarray(0, whole / 2)
  }

  /** Bytes left over at the end: a truncated last frame, which is dropped (it is under 0.1 ms). */
  end(): number {
    const left = this.carried
    this.carried = 0
    return left
  }

  private wholeBytes(bytes: Uint8Array): number {
    const total = this.carried + bytes.length
    return total - (total % this.carry.length)
  }

  /** The carry then `bytes` into `into` (whole frames), keeping what is left of `bytes` as the new carry. */
  private joined(bytes: Uint8Array, into: Uint8Array): Uint8Array {
    const fromBytes = into.length - this.carried
    into.set(this.carry.subarray(0, this.carried))
    into.set(bytes.subarray(0, fromBytes), this.carried)
    this.carried = 0
    this.keep(bytes, fromBytes)
    return into
  }

  /** Adds `bytes` from `from` on (less than a frame) to the carry; returns no samples. */
  private keep(bytes: Uint8Array, from: number): Int16Array {
    this.carry.set(bytes.subarray(from), this.carried)
    this.carried += bytes.length - from
    return new Int16Array(0)
  }
}

export interface WavFormat {
  sampleRate: number
  channels: number
}

/** Headers larger than this are not a WAV we can stream (real ones are 44–100 bytes). */
const MAX_HEADER_BYTES = 64 * 1024

/**
 * Reads a streamed RIFF/WAVE: the header from the first bytes (whatever size it claims, since
 * streamers write 0, 0xFFFFFFFF or espeak-ng's 0x7FFFF000 before they know it), then mono samples.
 */
export class WavStreamReader {
  format: WavFormat | null = null
  private head: Buffer = Buffer.alloc(0)
  private framer: Pcm16Framer | null = null
  /** Data bytes still expected when the header gave a real size; Infinity when it did not. */
  private remaining = Infinity

  push(bytes: Uint8Array): Int16Array {
    if (!this.framer) {
      this.head = Buffer.concat([this.head, bytes])
      const parsed = parseHeader(this.head)
      if (!parsed) {
        if (this.head.length > MAX_HEADER_BYTES) throw new RangeError('WAV header not found in the first 64 KiB')
        return new Int16Array(0)
      }
      this.format = parsed.format
      this.framer = new Pcm16Framer(parsed.format.channels)
      // 0 and the 0xFFFFFFFF/0x7FFFF000 placeholders mean "until the stream ends".
      this.remaining = parsed.dataBytes === 0 || parsed.dataBytes >= 0x7fff_f000 ? Infinity : parsed.dataBytes
      bytes = this.head.subarray(parsed.dataOffset)
      this.head = Buffer.alloc(0)
    }
    if (this.remaining !== Infinity) {
      bytes = bytes.subarray(0, this.remaining)
      this.remaining -= bytes.length
    }
    const frames = this.framer.push(bytes)
    const channels = this.format!.channels
    return channels === 1 ? frames : downmix(frames, channels)
  }

  /** Throws when the stream ended before a complete header. */
  end(): void {
    if (!this.framer) throw new RangeError('the stream ended inside the WAV header')
    this.framer.end()
  }
}

function parseHeader(b: Buffer): { format: WavFormat; dataOffset: number; dataBytes: number } | null {
  if (b.length < 12) return null
  if (b.toString('latin1', 0, 4) !== 'RIFF' || b.toString('latin1', 8, 12) !== 'WAVE') throw new RangeError('not a RIFF/WAVE stream')
  let format: WavFormat | null = null
  for (let at = 12; at + 8 <= b.length; ) {
    const id = b.toString('latin1', at, at + 4)
    const size = b.readUInt32LE(at + 4)
    if (id === 'data') {
      if (!format) throw new RangeError('WAV data chunk before its fmt chunk')
      return { format, dataOffset: at + 8, dataBytes: size }
    }
    if (at + 8 + size > b.length) return null
    if (id === 'fmt ') {
      const audioFormat = b.readUInt16LE(at + 8)
      const bits = b.readUInt16LE(at + 22)
      // 1 = integer PCM; 0xFFFE = WAVE_FORMAT_EXTENSIBLE, whose subformat we trust to be PCM at 16 bits.
      if ((audioFormat !== 1 && audioFormat !== 0xfffe) || bits !== 16) throw new RangeError(`WAV format ${audioFormat} at ${bits} bits is not 16-bit PCM`)
      format = { channels: b.readUInt16LE(at + 10), sampleRate: b.readUInt32LE(at + 12) }
      if (format.channels < 1 || format.sampleRate < 1) throw new RangeError('WAV fmt chunk has no channels or no rate')
    }
    // RIFF chunks are padded to an even size.
    at += 8 + size + (size % 2)
  }
  return null
}

/**
 * To the call's rate. 8 kHz is a phone line's (nothing else speaks at it), so the filter keeps the
 * telephone band only (resample.ts): 96 taps an output from 24 kHz instead of 160, on every sample
 * of the agent's voice.
 */
function resamplerTo(fromRate: number, toRate: SpeechRate): Resampler {
  return new Resampler(fromRate, toRate, toRate === 8000 && fromRate > toRate ? { band: 'telephone' } : {})
}

/** Bytes in, mono samples at the call's rate (16 kHz, or a phone line's 8) out; end() returns what the filters held back. */
export interface AudioDecoder {
  push(bytes: Uint8Array): Int16Array
  /** Throws a RangeError when the stream ended inside a WAV header. */
  end(): Int16Array
}

/** Headerless PCM16 mono at a known rate (OpenAI's `pcm` is 24 kHz; Deepgram's linear16 is what we ask), to `toRate`. */
export function pcmDecoder(rateHz: number, toRate: SpeechRate = SAMPLE_RATE): AudioDecoder {
  const framer = new Pcm16Framer(1)
  const resampler = resamplerTo(rateHz, toRate)
  // A resampler copies its input, so the samples need not be copied out of the network's bytes
  // first; at the same rate it hands the samples themselves on, and they must be a copy.
  const resampled = rateHz !== toRate
  return {
    push: (bytes) => resampler.push(resampled ? framer.pushTransient(bytes) : framer.push(bytes)),
    end: () => {
      framer.end()
      return resampler.flush()
    },
  }
}

/** A streamed WAV at whatever rate and channel count its header declares, to `toRate`. */
export function wavDecoder(toRate: SpeechRate = SAMPLE_RATE): AudioDecoder {
  const wav = new WavStreamReader()
  let resampler: Resampler | null = null
  return {
    push: (bytes) => {
      const samples = wav.push(bytes)
      if (!wav.format) return samples
      resampler ??= resamplerTo(wav.format.sampleRate, toRate)
      return resampler.push(samples)
    },
    end: () => {
      wav.end()
      return resampler?.flush() ?? new Int16Array(0)
    },
  }
}

/**
 * Bytes decoded per slice: ~85 ms of 24 kHz audio, ~0.03 ms of (SIMD) resampling. Every call
 * decoding at once gets one slice per event-loop turn, so the slice bounds how long a turn of a busy
 * engine holds back the playout timers (with the scalar resampler, 8 KiB slices let 40 calls'
 * replies stall frames by 10–20 ms; 2 KiB slices then cost a loop turn per 43 ms of audio).
 */
export const DECODE_SLICE_BYTES = 4096

/**
 * Decodes one network or pipe read slice by slice, letting the event loop run between slices. A
 * provider that sends faster than real time hands over 64 KiB reads (over a second of audio, ~3 ms
 * to resample); decoded at once, that stalls every other call's frames on this engine.
 */
export async function* decodeSliced(decoder: AudioDecoder, bytes: Uint8Array): AsyncGenerator<Int16Array> {
  for (let at = 0; at < bytes.length; at += DECODE_SLICE_BYTES) {
    if (at > 0) await new Promise<void>((resolve) => setImmediate(resolve))
    const out = decoder.push(bytes.subarray(at, at + DECODE_SLICE_BYTES))
    if (out.length) yield out
  }
}
