/**
 * Streaming sample-rate conversion by windowed-sinc interpolation (polyphase, Kaiser window).
 *
 * Why not linear interpolation: TTS providers send 22.05/24/44.1/48 kHz, and everything above the
 * 8 kHz Nyquist of our 16 kHz format would fold back into the band STT and the caller hear.
 * Quality, measured by test/engine/audio/resample.test.ts: the low-pass is −6 dB at 0.91 of the
 * lower Nyquist (7.28 kHz when producing 16 kHz), flat within 0.01 dB up to 6 kHz, −1.2 dB at
 * 7 kHz, and what lies above 8 kHz comes back as aliases 80 dB down or more (Kaiser β = 7,
 * 24 zero crossings a side). The filter is zero-phase: output sample n
 * sits exactly at input time n·from/to, so timestamps survive conversion; the price is
 * a look-ahead of 24 output-rate samples (1.5 ms at 16 kHz) held back until the next push or flush.
 * Cost is ~48·max(1, from/to) multiply-adds per output sample (~150 for 48→16 kHz), run four at a
 * time in WebAssembly SIMD (fir.wat) with float32 taps: 24→16 kHz, 10 s of audio, 15 ms in the
 * scalar loop, 2.5–3.2 ms in SIMD. Rate pairs without a tap table, or a Node without WebAssembly SIMD,
 * use the scalar loop (float64 taps); the two agree within one LSB.
 *
 * The telephone band (`band: 'telephone'`, output at 8 kHz only): a phone line carries 300–3400 Hz,
 * so the low-pass may put its transition between 3.4 kHz and the 4.6 kHz that would fold back into
 * that band, centred on the 4 kHz Nyquist, with 16 zero crossings a side (Kaiser β = 7): the design
 * of the 8 → 16 kHz half-band filter (halfband.ts), flat within 0.01 dB to 3.4 kHz, −6 dB at 4 kHz,
 * aliases from 4.6 kHz up 70 dB down or more. 24 → 8 kHz then takes 96 taps an output sample
 * instead of the general design's 160: the agent's voice on a phone call, every sample of it.
 */
import { firEngine, type FirEngine } from './fir.js'
import { kaiser } from './kaiser.js'

const KAISER_BETA = 7
/** Zero crossings each side and the cut-off as a fraction of the lower Nyquist, per band. */
const DESIGNS = {
  full: { zeroCrossings: 24, rolloff: 0.91 },
  telephone: { zeroCrossings: 16, rolloff: 1 },
} as const
export type ResamplerBand = keyof typeof DESIGNS
/** Rate pairs with more phases than this (odd rates like 44 056 Hz) compute taps per sample. */
const MAX_TABLE_PHASES = 4096

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b))

const clamp16 = (v: number): number => (v > 32767 ? 32767 : v < -32768 ? -32768 : Math.round(v))

class Kernel {
  /** Taps each side of the interpolation point, in input samples. */
  readonly half: number
  private readonly cutoff: number
  private readonly table: Float64Array[] | undefined
  /** The table in the FirEngine (rows of `simdLen` float32 taps, zero-padded), once first used. */
  private simd: { engine: FirEngine; offset: number } | undefined

  constructor(
    from: number,
    to: number,
    private readonly phases: number,
    band: ResamplerBand,
  ) {
    // Cut-off as a fraction of the input Nyquist; widening the kernel by 1/cutoff when
    // downsampling keeps the design's zero crossings of the (narrower) output band.
    const { zeroCrossings, rolloff } = DESIGNS[band]
    this.cutoff = Math.min(1, to / from) * rolloff
    this.half = Math.ceil(zeroCrossings / this.cutoff)
    if (phases <= MAX_TABLE_PHASES) {
      this.table = []
      for (let p = 0; p < phases; p++) this.table.push(this.compute(p / phases))
    }
  }

  /** Taps per row in the SIMD table: 2·half rounded up to a multiple of 4. */
  get simdLen(): number {
    return (2 * this.half + 3) & ~3
  }

  /** The tap table's place in `engine` (copied in on first use); undefined without a table. */
  simdTable(engine: FirEngine): number | undefined {
    if (!this.table) return undefined
    if (this.simd?.engine !== engine) {
      const len = this.simdLen
      const rows = new Float32Array(this.phases * len)
      this.table.forEach((taps, p) => rows.set(taps, p * len))
      this.simd = { engine, offset: engine.addTable(rows) }
    }
    return this.simd.offset
  }

  /** Taps for input samples i-half+1 … i+half when the output falls at time i + frac. */
  taps(phase: number): Float64Array {
    return this.table?.[phase] ?? this.compute(phase / this.phases)
  }

  private compute(frac: number): Float64Array {
    const taps = new Float64Array(2 * this.half)
    let sum = 0
    for (let j = 0; j < taps.length; j++) {
      const t = frac + this.half - 1 - j
      const x = this.cutoff * t
      const sinc = x === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x)
      const r = t / this.half
      const window = kaiser(r, KAISER_BETA)
      taps[j] = sinc * window
      sum += taps[j]!
    }
    // Unity gain at DC for every phase, so a constant input stays exactly constant.
    for (let j = 0; j < taps.length; j++) taps[j]! /= sum
    return taps
  }
}

/** Kernels are immutable and costly for odd rate pairs (a table of phases × taps): one per pair. */
const kernels = new Map<string, Kernel>()
function kernelFor(from: number, to: number, phases: number, band: ResamplerBand): Kernel {
  const key = `${from}/${to}/${band}`
  let k = kernels.get(key)
  if (!k) kernels.set(key, (k = new Kernel(from, to, phases, band)))
  return k
}

/** Room after the history for the SIMD rows' zero padding to read (they multiply it by 0). */
const SIMD_SLACK = 4
/** Samples a push usually brings: a 4 KiB network read of a voice (pcm-stream's DECODE_SLICE_BYTES), held without growing. */
const TYPICAL_CHUNK = 2048

export interface ResamplerOptions {
  /** false: always the scalar loop (tests compare the two). */
  simd?: boolean
  /** 'telephone': the narrower design for a phone line's 8 kHz (see the top of this file); default 'full'. */
  band?: ResamplerBand
}

export class Resampler {
  private readonly up: number
  private readonly down: number
  private readonly kernel: Kernel | undefined
  private readonly fir: FirEngine | null
  /** Input history; buf[0] is absolute input sample `bufStart` (int16 values, exact in float32). */
  private buf = new Float32Array(0)
  private bufLength = 0
  private bufStart = 0
  private received = 0
  /** The next output falls at input time `pos + phase/up`. */
  private pos = 0
  private phase = 0

  constructor(
    readonly fromRate: number,
    readonly toRate: number,
    options: ResamplerOptions = {},
  ) {
    for (const rate of [fromRate, toRate]) {
      if (!Number.isInteger(rate) || rate <= 0) throw new RangeError(`sample rate must be a positive integer, got ${rate}`)
    }
    const band = options.band ?? 'full'
    if (band === 'telephone' && (toRate !== 8000 || fromRate <= toRate))
      throw new RangeError(`the telephone band is for downsampling to 8000 Hz, not ${fromRate} → ${toRate}`)
    const g = gcd(fromRate, toRate)
    this.up = toRate / g
    this.down = fromRate / g
    if (fromRate !== toRate) this.kernel = kernelFor(fromRate, toRate, this.up, band)
    this.fir = options.simd === false ? null : firEngine()
    this.restart()
  }

  /** Converts what it can; with equal rates it returns `samples` itself. */
  push(samples: Int16Array): Int16Array {
    if (!this.kernel) return samples
    this.append(samples, samples.length)
    this.received += samples.length
    return this.drain(this.received)
  }

  /** Ends the stream: the held-back tail comes out and the resampler is ready for a new stream. */
  flush(): Int16Array {
    if (!this.kernel) return new Int16Array(0)
    // Silence after the end, as before the start, lets the last samples be interpolated.
    this.append(new Int16Array(0), this.kernel.half)
    const out = this.drain(this.received)
    this.restart()
    return out
  }

  private restart(): void {
    const half = this.kernel?.half ?? 0
    // The history starts with `half` zeros (silence before the stream). A restarted resampler
    // keeps its array: a new one per stream and per growth was ArrayBuffer memory V8 counts
    // toward its next full GC (slab.ts), for every reply the agent speaks.
    const wanted = this.kernel ? Math.max(TYPICAL_CHUNK + 2 * half, 4 * half) + SIMD_SLACK : 0
    if (this.buf.length < wanted) this.buf = new Float32Array(wanted)
    else this.buf.fill(0, 0, half)
    this.bufLength = half
    this.bufStart = -half
    this.received = 0
    this.pos = 0
    this.phase = 0
  }

  /** Appends `samples` then pads with zeros up to `length` values. */
  private append(samples: Int16Array, length: number): void {
    if (this.bufLength + length + SIMD_SLACK > this.buf.length) {
      const grown = new Float32Array(Math.max(2 * this.buf.length, this.bufLength + length + SIMD_SLACK))
      grown.set(this.buf.subarray(0, this.bufLength))
      this.buf = grown
    }
    this.buf.set(samples, this.bufLength)
    this.buf.fill(0, this.bufLength + samples.length, this.bufLength + length)
    this.bufLength += length
  }

  /** Emits every output that lies before input time `limit` and has all its taps buffered. */
  private drain(limit: number): Int16Array {
    // The hot loop of TTS playback (every agent sample passes here): locals instead of fields, the
    // output sized up front, no per-sample allocation.
    const kernel = this.kernel!
    const half = kernel.half
    const buf = this.buf
    const bufStart = this.bufStart
    const end = Math.min(limit, bufStart + this.bufLength - half)
    const { up, down } = this
    let pos = this.pos
    let phase = this.phase
    const count = pos < end ? Math.ceil(((end - pos) * up - phase) / down) : 0
    const out = new Int16Array(Math.max(0, count))
    const fir = this.fir
    const table = fir && count > 0 ? kernel.simdTable(fir) : undefined
    if (fir && table !== undefined) {
      // Output k sits at input pos + ⌊(phase + k·down)/up⌋; its padded row reaches simdLen samples on.
      const first = pos - half + 1 - bufStart
      const span = Math.floor((phase + (count - 1) * down) / up) + kernel.simdLen
      fir.run(table, kernel.simdLen, buf.subarray(first, first + span), count, phase, up, down, out)
      const total = phase + count * down
      this.pos = pos + Math.floor(total / up)
      this.phase = total % up
      this.discardBefore(this.pos - half + 1)
      return out
    }
    let n = 0
    while (pos < end) {
      const taps = kernel.taps(phase)
      const first = pos - half + 1 - bufStart
      // Four accumulators: independent adds the CPU can overlap (taps.length is even, 2·half).
      let a0 = 0
      let a1 = 0
      let a2 = 0
      let a3 = 0
      const len = taps.length
      const len4 = len - (len % 4)
      let j = 0
      for (; j < len4; j += 4) {
        a0 += taps[j]! * buf[first + j]!
        a1 += taps[j + 1]! * buf[first + j + 1]!
        a2 += taps[j + 2]! * buf[first + j + 2]!
        a3 += taps[j + 3]! * buf[first + j + 3]!
      }
      for (; j < len; j++) a0 += taps[j]! * buf[first + j]!
      out[n++] = clamp16(a0 + a1 + (a2 + a3))
      phase += down
      if (phase >= up) {
        pos += Math.floor(phase / up)
        phase %= up
      }
    }
    this.pos = pos
    this.phase = phase
    this.discardBefore(pos - half + 1)
    return n === out.length ? out : out.subarray(0, n)
  }

  private discardBefore(absolute: number): void {
    const drop = Math.min(this.bufLength, absolute - this.bufStart)
    if (drop <= 0) return
    this.buf.copyWithin(0, drop, this.bufLength)
    this.bufLength -= drop
    this.bufStart += drop
  }
}

/** One-shot conversion of a whole signal. */
export function resample(samples: Int16Array, fromRate: number, toRate: number): Int16Array {
  const r = new Resampler(fromRate, toRate)
  const head = r.push(samples)
  if (fromRate === toRate) return head
  const tail = r.flush()
  const out = new Int16Array(head.length + tail.length)
  out.set(head)
  out.set(tail, head.length)
  return out
}
