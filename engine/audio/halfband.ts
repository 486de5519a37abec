/**
 * Exact 8 → 16 kHz for telephone audio with a half-band low-pass, for less than the general
 * Resampler (a 20 ms frame, one core: 5.0 → 2.8 µs): caller audio at a phone line's 8 kHz from a
 * transport that does not announce it (a phone transport does, and its call runs at 8 kHz with no
 * filter at all: engine/pipeline/call/transport.ts, `lineRate`).
 *
 * Why a second design: the Resampler's filter (resample.ts) serves any rate pair and keeps 7.28 kHz
 * of a 16 kHz signal, so for 8 → 16 kHz it runs 54 taps an output sample. A telephone channel
 * carries 300–3400 Hz (G.711 over the PSTN), so the filter may put its transition in the gap
 * between 3.4 kHz and the images above 4.6 kHz, centred on 4 kHz. Centred there it is a half-band
 * filter: every other tap is zero but the centre, so the even outputs are the input samples
 * themselves and only the odd ones are computed (32 taps). (Down to 8 kHz, the same design is the
 * Resampler's telephone band.)
 *
 * Quality (test/engine/audio/halfband.test.ts): flat within 0.01 dB up to 3.4 kHz, −6 dB at
 * 4 kHz, images from 4.6 kHz up 70 dB down or more (Kaiser β = 7, 16 zero crossings a side).
 * Zero-phase like the Resampler: output sample n sits at input time n/2, so timestamps survive;
 * the look-ahead is 16 samples at 8 kHz (2 ms), held back until the next push or flush.
 *
 * Outputs are cut from the shared slabs (slab.ts), as the web caller's frames are: an ArrayBuffer
 * a frame would cost the GC. Keep them only while in flight.
 *
 * Digital silence costs no filtering: when every tap of every output a push makes lands on an
 * exact zero, the outputs are the zeros a fresh slab array holds (`silentDrains` counts them), to
 * the sample what filtering would give. A phone line between a caller's words is often exactly
 * that (µ-law 0xFF from SIPp, softphones without comfort noise).
 */

import { firEngine, type FirEngine } from './fir.js'
import { kaiser } from './kaiser.js'
import { slabInt16 } from './slab.js'

/** Zero crossings of the windowed sinc each side, counted at 8 kHz. */
const ZERO_CROSSINGS = 16
const KAISER_BETA = 7

/** The filter at time `t` (in 8 kHz samples): a sinc cut off at 4 kHz under a Kaiser window. */
function impulse(t: number): number {
  const sinc = t === 0 ? 1 : Math.sin(Math.PI * t) / (Math.PI * t)
  return sinc * kaiser(t / ZERO_CROSSINGS, KAISER_BETA)
}

/**
 * The 2·ZERO_CROSSINGS taps that give the midpoint between 8 kHz samples n and n+1 from samples
 * n−15 … n+16 (tap j on sample n−15+j, time 15.5 − j away), summing to 1 so DC passes unchanged.
 */
const MIDPOINT: Float64Array = (() => {
  const taps = new Float64Array(2 * ZERO_CROSSINGS)
  for (let j = 0; j < taps.length; j++) taps[j] = impulse(ZERO_CROSSINGS - 0.5 - j)
  const sum = taps.reduce((a, b) => a + b, 0)
  return taps.map((v) => v / sum)
})()

export interface HalfbandOptions {
  /** false: always the scalar loops (tests compare the two). */
  simd?: boolean
  /**
   * Upsampling: start with the look-ahead already spent on silence, so every push of n samples
   * gives exactly 2n out (a transport's fixed frames stay fixed); the stream comes out 2 ms late,
   * as it would anyway, held back.
   */
  steady?: boolean
}

/** MIDPOINT as float32 in the WebAssembly FIR's memory (fir.ts), copied in once per engine. */
const simdTables = new WeakMap<FirEngine, number>()
function midpointIn(fir: FirEngine): number {
  let t = simdTables.get(fir)
  if (t === undefined) {
    t = fir.addTable(Float32Array.from(MIDPOINT))
    simdTables.set(fir, t)
  }
  return t
}

const clamp16 = (v: number): number => (v > 32767 ? 32767 : v < -32768 ? -32768 : Math.round(v))

/** Σ MIDPOINT[j]·src[at + j], four accumulators the CPU can overlap. */
function midpoint(src: Float32Array, at: number): number {
  const c = MIDPOINT
  let a0 = 0
  let a1 = 0
  let a2 = 0
  let a3 = 0
  for (let j = 0; j < 2 * ZERO_CROSSINGS; j += 4) {
    a0 += c[j]! * src[at + j]!
    a1 += c[j + 1]! * src[at + j + 1]!
    a2 += c[j + 2]! * src[at + j + 2]!
    a3 += c[j + 3]! * src[at + j + 3]!
  }
  return a0 + a1 + (a2 + a3)
}

/**
 * A stream of one rate's samples, history kept: `buf[0]` is sample `start`. Zeros stand before the
 * first sample, as the Resampler assumes silence before a stream begins.
 */
class History {
  buf: Float32Array
  length: number
  start: number
  /** How many of the last samples held are exactly zero (the lead counts). */
  zeroTail: number

  constructor(lead: number) {
    this.buf = new Float32Array(1024)
    this.length = lead
    this.start = -lead
    this.zeroTail = lead
  }

  /** Appends `samples`, then zeros up to `count` values in all. */
  append(samples: Int16Array, count: number): void {
    if (this.length + count > this.buf.length) {
      const grown = new Float32Array(Math.max(2 * this.buf.length, this.length + count))
      grown.set(this.buf.subarray(0, this.length))
      this.buf = grown
    }
    this.buf.set(samples, this.length)
    this.buf.fill(0, this.length + samples.length, this.length + count)
    this.length += count
    let last = samples.length - 1
    while (last >= 0 && samples[last] === 0) last--
    this.zeroTail = last < 0 ? this.zeroTail + count : count - last - 1
  }

  /** True when every sample from `absolute` to the end is exactly zero. */
  zeroFrom(absolute: number): boolean {
    return this.zeroTail >= this.end - absolute
  }

  /** Forgets the samples before `absolute`. */
  dropBefore(absolute: number): void {
    const drop = Math.min(this.length, absolute - this.start)
    if (drop <= 0) return
    this.buf.copyWithin(0, drop, this.length)
    this.length -= drop
    this.start += drop
    this.zeroTail = Math.min(this.zeroTail, this.length)
  }

  /** One past the last sample held. */
  get end(): number {
    return this.start + this.length
  }
}

/** 8 → 16 kHz. Same contract as Resampler: push converts what it can, flush ends the stream. */
export class HalfbandUpsampler {
  readonly fromRate = 8000
  readonly toRate = 16_000
  private readonly fir: FirEngine | null
  private history = new History(ZERO_CROSSINGS)
  /** The next output pair is samples n (even) and n + ½ (odd). */
  private next = 0
  private received = 0
  private odd = new Int16Array(256)
  /** Drains whose outputs were all zero without filtering: digital silence in, every tap on a zero. */
  silentDrains = 0

  constructor(private readonly options: HalfbandOptions = {}) {
    this.fir = options.simd === false ? null : firEngine()
    this.restart()
  }

  push(samples: Int16Array): Int16Array {
    this.history.append(samples, samples.length)
    this.received += samples.length
    return this.drain(this.received)
  }

  flush(): Int16Array {
    this.history.append(new Int16Array(0), ZERO_CROSSINGS)
    const out = this.drain(this.received)
    this.restart()
    return out
  }

  private restart(): void {
    this.history = new History(ZERO_CROSSINGS)
    this.next = 0
    this.received = 0
    if (this.options.steady) this.push(new Int16Array(ZERO_CROSSINGS))
  }

  /** Emits the pairs before input `limit` whose midpoint has all its taps (to n + 16) held. */
  private drain(limit: number): Int16Array {
    const h = this.history
    const pairs = Math.max(0, Math.min(limit, h.end - ZERO_CROSSINGS) - this.next)
    const out = slabInt16(2 * pairs)
    const buf = h.buf
    const first = this.next - h.start
    if (pairs > 0 && h.zeroFrom(this.next - ZERO_CROSSINGS + 1)) {
      // Every tap of every output lands on a zero: the outputs are the zeros `out` starts as.
      this.silentDrains++
    } else if (this.fir && pairs > 0) {
      if (this.odd.length < pairs) this.odd = new Int16Array(2 * pairs)
      const taps = 2 * ZERO_CROSSINGS
      const from = first - ZERO_CROSSINGS + 1
      this.fir.run(midpointIn(this.fir), taps, buf.subarray(from, from + pairs - 1 + taps), pairs, 0, 1, 1, this.odd)
      const odd = this.odd
      for (let k = 0; k < pairs; k++) {
        out[2 * k] = buf[first + k]!
        out[2 * k + 1] = odd[k]!
      }
    } else {
      for (let k = 0; k < pairs; k++) {
        out[2 * k] = buf[first + k]!
        out[2 * k + 1] = clamp16(midpoint(buf, first + k - ZERO_CROSSINGS + 1))
      }
    }
    this.next += pairs
    h.dropBefore(this.next - ZERO_CROSSINGS + 1)
    return out
  }
}
