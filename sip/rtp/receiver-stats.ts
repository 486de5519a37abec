/**
 * Reception statistics for one source (RFC 3550 §A.1, §A.3, §A.8), fed each RTP packet's sequence
 * number, timestamp and arrival time, read out as a report block (§6.4.1).
 */
import { msToNtpShort } from './ntp.js'
import type { ReportBlock } from './rtcp-packet.js'

const RTP_SEQ_MOD = 1 << 16

export interface ReceiverStatsOptions {
  /** The payload format's RTP clock (8000 Hz for G.711, RFC 3551 §4.5.14). */
  readonly clockRateHz: number
  /** §A.1: sequential packets needed before a new source is valid. */
  readonly minSequential: number
  /** §A.1: a forward jump larger than this is a restart or a bad packet, not loss. */
  readonly maxDropout: number
  /** §A.1: a backward jump of up to this is a late or duplicate packet. */
  readonly maxMisorder: number
}

export const DEFAULT_RECEIVER_STATS: ReceiverStatsOptions = Object.freeze({ clockRateHz: 8000, minSequential: 2, maxDropout: 3000, maxMisorder: 100 })

export class ReceiverStats {
  private readonly options: ReceiverStatsOptions
  private maxSeq = 0
  private cycles = 0
  private baseSeq = 0
  private badSeq = RTP_SEQ_MOD + 1
  private probation: number
  private started = false
  private receivedCount = 0
  private expectedPrior = 0
  private receivedPrior = 0
  private transit: number | undefined
  private jitterTs = 0
  private lastSrMiddle = 0
  private lastSrArrivalMs: number | undefined

  constructor(
    readonly ssrc: number,
    options: Partial<ReceiverStatsOptions> = {},
  ) {
    this.options = { ...DEFAULT_RECEIVER_STATS, ...options }
    if (!(this.options.clockRateHz > 0)) throw new RangeError(`clockRateHz must be positive, got ${this.options.clockRateHz}`)
    this.probation = this.options.minSequential
  }

  /** True once the source has passed probation (§A.1). */
  get valid(): boolean {
    return this.probation === 0
  }

  /** Packets counted (duplicates included, as in §A.3). */
  get received(): number {
    return this.receivedCount
  }

  get extendedHighestSequence(): number {
    return (this.cycles + this.maxSeq) >>> 0
  }

  get expected(): number {
    return this.valid ? this.cycles + this.maxSeq - this.baseSeq + 1 : 0
  }

  /** Expected minus received, clamped to 24 signed bits (§A.3); negative with duplicates. */
  get cumulativeLost(): number {
    return Math.max(-0x800000, Math.min(0x7fffff, this.expected - this.receivedCount))
  }

  /** Interarrival jitter in timestamp units (§A.8), as the report block carries it. */
  get jitter(): number {
    return Math.floor(this.jitterTs)
  }

  /**
   * Counts one packet. Returns false while the source is on probation or when the packet is a
   * sequence jump §A.1 sets aside (the next in-order packet after it restarts the count).
   */
  receive(sequenceNumber: number, rtpTimestamp: number, arrivalMs: number): boolean {
    if (!this.updateSeq(sequenceNumber & 0xffff)) return false
    this.updateJitter(rtpTimestamp >>> 0, arrivalMs)
    return true
  }

  /** Remembers an SR from this source for LSR/DLSR (§6.4.1). */
  receiveSenderReport(ntpMiddle32: number, arrivalMs: number): void {
    this.lastSrMiddle = ntpMiddle32 >>> 0
    this.lastSrArrivalMs = arrivalMs
  }

  /** The report block for this source; moves the interval used by fraction lost (§A.3). */
  reportBlock(nowMs: number): ReportBlock {
    const expected = this.expected
    const expectedInterval = expected - this.expectedPrior
    const receivedInterval = this.receivedCount - this.receivedPrior
    this.expectedPrior = expected
    this.receivedPrior = this.receivedCount
    const lostInterval = expectedInterval - receivedInterval
    const fractionLost = expectedInterval === 0 || lostInterval <= 0 ? 0 : Math.floor((lostInterval * 256) / expectedInterval)
    return {
      ssrc: this.ssrc,
      fractionLost: Math.min(255, fractionLost),
      cumulativeLost: this.cumulativeLost,
      extendedHighestSequence: this.extendedHighestSequence,
      jitter: this.jitter >>> 0,
      lastSr: this.lastSrMiddle,
      delaySinceLastSr: this.lastSrArrivalMs === undefined ? 0 : msToNtpShort(nowMs - this.lastSrArrivalMs),
    }
  }

  private initSeq(seq: number): void {
    this.baseSeq = seq
    this.maxSeq = seq
    this.badSeq = RTP_SEQ_MOD + 1
    this.cycles = 0
    this.receivedCount = 0
    this.receivedPrior = 0
    this.expectedPrior = 0
  }

  /** §A.1's update_seq, line for line. */
  private updateSeq(seq: number): boolean {
    const { minSequential, maxDropout, maxMisorder } = this.options
    if (!this.started) {
      // First packet of the source: init_seq, then max_seq = seq - 1 so the check below passes.
      this.started = true
      this.initSeq(seq)
      this.maxSeq = (seq - 1) & 0xffff
    }
    const delta = (seq - this.maxSeq) & 0xffff
    if (this.probation > 0) {
      if (seq === ((this.maxSeq + 1) & 0xffff)) {
        this.probation--
        this.maxSeq = seq
        if (this.probation === 0) {
          this.initSeq(seq)
          this.receivedCount++
          return true
        }
      } else {
        this.probation = minSequential - 1
        this.maxSeq = seq
      }
      return false
    }
    if (delta < maxDropout) {
      if (seq < this.maxSeq) this.cycles += RTP_SEQ_MOD // wrapped
      this.maxSeq = seq
    } else if (delta <= RTP_SEQ_MOD - maxMisorder) {
      if (seq !== this.badSeq) {
        this.badSeq = (seq + 1) & 0xffff
        return false
      }
      // Two sequential packets after a big jump: the other side restarted (§A.1).
      this.initSeq(seq)
      this.transit = undefined // the timestamps may have restarted too
    }
    // Otherwise a duplicate or reordered packet: counted, max_seq unchanged.
    this.receivedCount++
    return true
  }

  /** §A.8: J += (|D| - J) / 16, with arrival time in timestamp units. */
  private updateJitter(rtpTimestamp: number, arrivalMs: number): void {
    const arrivalTs = (arrivalMs * this.options.clockRateHz) / 1000
    const transit = arrivalTs - rtpTimestamp
    if (this.transit !== undefined) {
      let d = transit - this.transit
      // The timestamp wraps at 2^32: a difference past half the range is the wrap.
      if (d > 2 ** 31) d -= 2 ** 32
      else if (d < -(2 ** 31)) d += 2 ** 32
      this.jitterTs += (Math.abs(d) - this.jitterTs) / 16
    }
    this.transit = transit
  }
}
