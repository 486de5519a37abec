/**
 * The jitter buffer's delay estimate. Each packet's transit (arrival minus its timestamp, both in
 * ms) is measured against the smallest transit of the last `windowPackets` packets: that
 * difference is how late the packet came compared with the fastest recent one, which is the delay
 * the buffer needs to have it in time. A histogram of those delays in frame-sized buckets, with
 * exponential forgetting (as WebRTC's NetEq keeps its inter-arrival histogram), gives the target:
 * the bucket holding the `quantile` of recent packets, rounded up to whole frames.
 *
 * The histogram costs O(buckets) per packet (6 at 20-120 ms) and sorts nothing; the target is
 * worked out there, once a packet, since the buffer reads it several times a frame. Growth is quick: a
 * packet that came too late is counted `lateWeight` times, which alone lifts its bucket past the
 * quantile. Shrinking is slow: a bucket's share decays by `forget` per packet, so a 50 % share
 * takes about ln(50)/(1 - forget) packets (15 s at 0.995) to fall under 1 %.
 */

export interface DelayEstimatorOptions {
  readonly frameMs: number
  readonly minDelayMs: number
  readonly maxDelayMs: number
  /** Share of packets the target should have in time. */
  readonly quantile: number
  /** Per-packet decay of the histogram. */
  readonly forget: number
  /** How many packets one late packet counts for. */
  readonly lateWeight: number
  /** Packets over which the smallest transit is taken (a route change moves it within this). */
  readonly windowPackets: number
}

export class DelayEstimator {
  private readonly transits: Float64Array
  private transitCount = 0
  private transitNext = 0
  private minTransit = Number.POSITIVE_INFINITY
  private readonly histogram: Float64Array
  private total = 0
  /** targetMs(), as of the last packet. */
  private target: number

  constructor(private readonly options: DelayEstimatorOptions) {
    this.transits = new Float64Array(options.windowPackets)
    this.histogram = new Float64Array(Math.max(1, Math.ceil(options.maxDelayMs / options.frameMs)))
    this.target = options.minDelayMs
  }

  /** The smallest recent transit in ms: a packet with this transit needs no buffering at all. */
  get baseTransitMs(): number {
    return this.minTransit
  }

  get hasBase(): boolean {
    return this.transitCount > 0
  }

  /** Counts one packet; returns its delay over the fastest recent packet, in ms. */
  observe(transitMs: number, late = false): number {
    this.addTransit(transitMs)
    const delayMs = transitMs - this.minTransit
    const bucket = Math.min(this.histogram.length - 1, Math.floor(delayMs / this.options.frameMs))
    const weight = late ? this.options.lateWeight : 1
    for (let i = 0; i < this.histogram.length; i++) this.histogram[i]! *= this.options.forget
    this.histogram[bucket]! += weight
    this.total = this.total * this.options.forget + weight
    this.target = this.quantileMs()
    return delayMs
  }

  /** The delay to play at: the quantile's bucket, whole frames, within [minDelayMs, maxDelayMs]. */
  targetMs(): number {
    return this.target
  }

  private quantileMs(): number {
    const { frameMs, minDelayMs, maxDelayMs, quantile } = this.options
    if (this.total === 0) return minDelayMs
    let cumulative = 0
    let bucket = 0
    for (; bucket < this.histogram.length - 1; bucket++) {
      cumulative += this.histogram[bucket]!
      if (cumulative >= quantile * this.total) break
    }
    return Math.max(minDelayMs, Math.min(maxDelayMs, (bucket + 1) * frameMs))
  }

  /** Forgets the transits (the timestamps jumped or the source changed); the histogram stays. */
  resetTransits(): void {
    this.transitCount = 0
    this.transitNext = 0
    this.minTransit = Number.POSITIVE_INFINITY
  }

  private addTransit(transitMs: number): void {
    const size = this.transits.length
    const evicted = this.transitCount === size ? this.transits[this.transitNext]! : Number.POSITIVE_INFINITY
    this.transits[this.transitNext] = transitMs
    this.transitNext = (this.transitNext + 1) % size
    if (this.transitCount < size) this.transitCount++
    if (transitMs <= this.minTransit) this.minTransit = transitMs
    else if (evicted === this.minTransit) {
      this.minTransit = Number.POSITIVE_INFINITY
      for (let i = 0; i < this.transitCount; i++) this.minTransit = Math.min(this.minTransit, this.transits[i]!)
    }
  }
}
