/**
 * The playback side's jitter buffer: agent audio arrives in bursts of WebSocket messages and
 * leaves in fixed render quanta (128 samples). Pure and synchronous: the playback AudioWorklet
 * writes what arrives and reads one quantum per `process`, and Node's tests drive it the same way.
 *
 * States: `idle` (nothing to play) → `prebuffering` (audio arrived; silence is played until
 * `prebufferSamples` are buffered, or until the audio has waited that long, so a line shorter than
 * the prebuffer still plays) → `playing` → on running dry `starved`: the listener hears a gap. If
 * audio returns within `gapLimitSamples` that gap was an underrun (counted) and the buffer
 * prebuffers again before resuming; a longer silence is the agent not speaking, back to `idle`.
 * A full buffer drops its oldest samples (counted), so latency never grows past `capacitySamples`.
 */

export type JitterState = 'idle' | 'prebuffering' | 'playing' | 'starved'

export interface JitterBufferOptions {
  /** Samples held before playing starts (and again after an underrun). */
  prebufferSamples: number
  /** Most samples held; writing past it drops the oldest. */
  capacitySamples: number
  /** A dry spell shorter than this that ends with more audio is an underrun; longer is silence. */
  gapLimitSamples: number
}

/** The library's bounds, in milliseconds (converted at the AudioContext's rate by `jitterBufferOptions`). */
export const DEFAULT_JITTER_BUFFER_MS = {
  /** The engine's playout sends 60 ms ahead of real time, so 60 ms usually arrives at once. */
  prebufferMs: 60,
  /** One second: a stalled main thread catching up cannot build more delay than this. */
  capacityMs: 1000,
  gapLimitMs: 250,
} as const

export function jitterBufferOptions(rateHz: number, ms: Partial<typeof DEFAULT_JITTER_BUFFER_MS> = {}): JitterBufferOptions {
  const o = { ...DEFAULT_JITTER_BUFFER_MS, ...ms }
  const samples = (v: number) => Math.round((v * rateHz) / 1000)
  return { prebufferSamples: samples(o.prebufferMs), capacitySamples: samples(o.capacityMs), gapLimitSamples: samples(o.gapLimitMs) }
}

export class JitterBuffer {
  private readonly ring: Float32Array
  private readPos = 0
  private size = 0
  private stateNow: JitterState = 'idle'
  /** Samples of silence played while prebuffering or starved, since entering that state. */
  private waited = 0
  /** Dry spells that ended with more audio within the gap limit. */
  underruns = 0
  /** Samples dropped because the buffer was full. */
  droppedSamples = 0
  /** Samples of real audio read out. */
  playedSamples = 0

  constructor(readonly options: JitterBufferOptions) {
    // No destructuring in client/src: esbuild cannot lower it for Chrome 66 (scripts/build-client.ts).
    const prebufferSamples = options.prebufferSamples
    const capacitySamples = options.capacitySamples
    const gapLimitSamples = options.gapLimitSamples
    if (!(Number.isInteger(capacitySamples) && capacitySamples > 0)) throw new RangeError(`capacitySamples must be a positive integer, got ${capacitySamples}`)
    if (!(Number.isInteger(prebufferSamples) && prebufferSamples >= 0 && prebufferSamples <= capacitySamples))
      throw new RangeError(`prebufferSamples must be an integer in 0..capacitySamples, got ${prebufferSamples}`)
    if (!(gapLimitSamples >= 0)) throw new RangeError(`gapLimitSamples must be ≥ 0, got ${gapLimitSamples}`)
    this.ring = new Float32Array(capacitySamples)
  }

  get state(): JitterState {
    return this.stateNow
  }

  get bufferedSamples(): number {
    return this.size
  }

  write(samples: Float32Array): void {
    const cap = this.ring.length
    let input = samples
    if (input.length > cap) {
      // Only the newest `cap` samples can survive anyway.
      this.droppedSamples += input.length - cap
      input = input.subarray(input.length - cap)
    }
    const overflow = this.size + input.length - cap
    if (overflow > 0) {
      this.readPos = (this.readPos + overflow) % cap
      this.size -= overflow
      this.droppedSamples += overflow
    }
    const writePos = (this.readPos + this.size) % cap
    const first = Math.min(input.length, cap - writePos)
    this.ring.set(input.subarray(0, first), writePos)
    this.ring.set(input.subarray(first), 0)
    this.size += input.length
    if (input.length === 0) return
    if (this.stateNow === 'idle') this.enter('prebuffering')
    else if (this.stateNow === 'starved') {
      this.underruns++
      this.enter('prebuffering')
    }
  }

  /**
   * Fills `out` entirely: buffered audio while playing, zeros otherwise. Returns how many samples
   * of real audio it holds (the rest is silence).
   */
  read(out: Float32Array): number {
    if (this.stateNow === 'prebuffering') {
      const ready = this.size >= this.options.prebufferSamples || this.waited >= this.options.prebufferSamples
      if (!ready) {
        this.waited += out.length
        out.fill(0)
        return 0
      }
      this.enter('playing')
    }
    if (this.stateNow !== 'playing') {
      if (this.stateNow === 'starved') {
        this.waited += out.length
        if (this.waited >= this.options.gapLimitSamples) this.enter('idle')
      }
      out.fill(0)
      return 0
    }
    const n = Math.min(out.length, this.size)
    const cap = this.ring.length
    const first = Math.min(n, cap - this.readPos)
    out.set(this.ring.subarray(this.readPos, this.readPos + first), 0)
    out.set(this.ring.subarray(0, n - first), first)
    out.fill(0, n)
    this.readPos = (this.readPos + n) % cap
    this.size -= n
    this.playedSamples += n
    if (this.size === 0) {
      this.enter('starved')
      // The part of this quantum left silent already counts towards the gap.
      this.waited = out.length - n
    }
    return n
  }

  /** Drops everything buffered at once (the protocol's `clear`, a barge-in): no underrun is counted. */
  flush(): void {
    this.readPos = 0
    this.size = 0
    this.enter('idle')
  }

  private enter(state: JitterState): void {
    this.stateNow = state
    this.waited = 0
  }
}
