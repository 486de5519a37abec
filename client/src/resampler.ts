/**
 * Streaming sample-rate conversion for the browser: the microphone's rate (44.1 or 48 kHz, or
 * whatever the AudioContext runs at) down to the protocol's 16 kHz, and 16 kHz back up for
 * playback. Pure and synchronous (no Web Audio here), so it runs inside an AudioWorklet and in
 * Node's tests alike.
 *
 * A polyphase windowed-sinc FIR: each output sample is the input convolved with a Kaiser-windowed
 * sinc low-pass evaluated at the output instant's fractional position. The cutoff sits at the
 * lower rate's Nyquist frequency (−6 dB there) with a DEFAULT transition band of ±1 kHz for 16 kHz,
 * so a 16 kHz stream keeps 0–7 kHz within 0.01 dB and everything from 9 kHz up is attenuated by at
 * least 60 dB before it can alias (or, upsampling, image) into the band.
 */

export interface ResamplerOptions {
  /** Stop-band attenuation of the anti-alias filter, in dB (Kaiser design). */
  attenuationDb: number
  /** Width of the transition band around the cutoff as a fraction of the lower rate (2 kHz at 16 kHz). */
  transitionFraction: number
}

export const DEFAULT_RESAMPLER: ResamplerOptions = { attenuationDb: 60, transitionFraction: 0.125 }

/**
 * Rate pairs whose ratio reduces to at most this many output steps per input period use exact
 * phases (44.1 kHz ↔ 16 kHz needs 160 or 441); stranger rates interpolate between this many.
 */
const MAX_PHASES = 1024

function gcd(a: number, b: number): number {
  while (b) {
    const r = a % b
    a = b
    b = r
  }
  return a
}

/** Zeroth-order modified Bessel function of the first kind (the Kaiser window's kernel). */
function besselI0(x: number): number {
  let sum = 1
  let term = 1
  for (let k = 1; k < 50; k++) {
    term *= (x / (2 * k)) ** 2
    sum += term
    if (term < sum * 1e-12) break
  }
  return sum
}

export class Resampler {
  /** Input samples the filter spans; an output sample depends on taps/2 input samples after its instant. */
  readonly taps: number
  /** Output advances by `step` / `phases` input samples (the reduced ratio inputRate / outputRate). */
  private readonly up: number
  private readonly down: number
  private readonly phases: number
  /** phases + 1 rows of `taps` coefficients, row p for the fractional position p / phases. */
  private readonly table: Float32Array
  /** Input not yet consumed, starting taps/2 − 1 samples before the next output's integer position. */
  private history: Float32Array
  private held = 0
  /** The next output's position in input samples: `index` (relative to history[taps/2 − 1]) + `frac` / up. */
  private frac = 0

  constructor(
    readonly inputRateHz: number,
    readonly outputRateHz: number,
    options: Partial<ResamplerOptions> = {},
  ) {
    const o = { ...DEFAULT_RESAMPLER, ...options }
    if (!Number.isInteger(inputRateHz) || inputRateHz <= 0) throw new RangeError(`inputRateHz must be a positive integer, got ${inputRateHz}`)
    if (!Number.isInteger(outputRateHz) || outputRateHz <= 0) throw new RangeError(`outputRateHz must be a positive integer, got ${outputRateHz}`)
    if (!(o.attenuationDb >= 21 && o.attenuationDb <= 150)) throw new RangeError(`attenuationDb must be in 21..150, got ${o.attenuationDb}`)
    if (!(o.transitionFraction > 0 && o.transitionFraction < 0.5)) throw new RangeError(`transitionFraction must be in (0, 0.5), got ${o.transitionFraction}`)
    const g = gcd(inputRateHz, outputRateHz)
    this.up = outputRateHz / g
    this.down = inputRateHz / g
    this.phases = Math.min(this.up, MAX_PHASES)
    const lowerHz = Math.min(inputRateHz, outputRateHz)
    // Kaiser's formulas: β from the attenuation, length from attenuation and transition width.
    const a = o.attenuationDb
    const beta = a > 50 ? 0.1102 * (a - 8.7) : 0.5842 * (a - 21) ** 0.4 + 0.07886 * (a - 21)
    const transitionRad = (2 * Math.PI * o.transitionFraction * lowerHz) / inputRateHz
    const length = Math.ceil((a - 8) / (2.285 * transitionRad)) + 1
    this.taps = inputRateHz === outputRateHz ? 0 : Math.max(4, 2 * Math.ceil(length / 2))
    const half = this.taps / 2
    // Cutoff in cycles per input sample: the lower rate's Nyquist.
    const cutoff = lowerHz / 2 / inputRateHz
    this.table = new Float32Array((this.phases + 1) * this.taps)
    for (let p = 0; p <= this.phases; p++) {
      const phase = p / this.phases
      let sum = 0
      const row = p * this.taps
      for (let j = 0; j < this.taps; j++) {
        // Distance (input samples) from the output instant back to input sample j of the window.
        const t = half - 1 - j + phase
        const x = t / half
        const window = Math.abs(x) >= 1 ? 0 : besselI0(beta * Math.sqrt(1 - x * x)) / besselI0(beta)
        const sinc = t === 0 ? 1 : Math.sin(2 * Math.PI * cutoff * t) / (2 * Math.PI * cutoff * t)
        const h = 2 * cutoff * sinc * window
        this.table[row + j] = h
        sum += h
      }
      // Unity gain at DC for every phase, so no phase-dependent ripple reaches the output.
      for (let j = 0; j < this.taps; j++) this.table[row + j]! /= sum
    }
    this.history = new Float32Array(Math.max(this.taps, 1) + 4096)
    this.reset()
  }

  /** Forgets all input: the next sample is treated as following silence (after a playback flush). */
  reset(): void {
    this.history.fill(0)
    // Silence before the first sample, so output 0 lies exactly on input 0.
    this.held = Math.max(0, this.taps / 2 - 1)
    this.frac = 0
  }

  /** Most output samples a call with `inputLength` samples can produce (size `output` with it). */
  maxOutput(inputLength: number): number {
    return Math.ceil(((this.held + inputLength) * this.up) / this.down) + 1
  }

  /**
   * Converts `input` (continuing the stream) and writes the samples now complete into `output`,
   * returning how many. Output n is the input at instant n × inputRate / outputRate, delivered
   * once taps/2 input samples beyond that instant have arrived.
   */
  process(input: Float32Array, output: Float32Array): number {
    if (this.taps === 0) {
      output.set(input)
      return input.length
    }
    this.append(input)
    const taps = this.taps
    const up = this.up
    const down = this.down
    const phases = this.phases
    const table = this.table
    const h = this.history
    let index = 0
    let produced = 0
    // Output at index + frac/up needs history[index .. index + taps − 1].
    while (index + taps <= this.held) {
      let acc = 0
      if (phases === up) {
        const row = this.frac * taps
        for (let j = 0; j < taps; j++) acc += h[index + j]! * table[row + j]!
      } else {
        const at = (this.frac * phases) / up
        const p = Math.floor(at)
        const mix = at - p
        const r0 = p * taps
        const r1 = r0 + taps
        for (let j = 0; j < taps; j++) acc += h[index + j]! * (table[r0 + j]! + mix * (table[r1 + j]! - table[r0 + j]!))
      }
      output[produced++] = acc
      this.frac += down
      index += Math.floor(this.frac / up)
      this.frac %= up
    }
    // Keep what later outputs still need.
    h.copyWithin(0, index, this.held)
    this.held -= index
    return produced
  }

  /** `process` into a new array: for tests and one-off conversions. */
  processAll(input: Float32Array): Float32Array {
    const out = new Float32Array(this.maxOutput(input.length))
    return out.slice(0, this.process(input, out))
  }

  /** End of stream: the outputs still waiting for lookahead, computed over trailing silence. */
  flush(): Float32Array {
    return this.processAll(new Float32Array(this.taps / 2))
  }

  private append(input: Float32Array): void {
    if (this.held + input.length > this.history.length) {
      const grown = new Float32Array((this.held + input.length) * 2)
      grown.set(this.history.subarray(0, this.held))
      this.history = grown
    }
    this.history.set(input, this.held)
    this.held += input.length
  }
}
