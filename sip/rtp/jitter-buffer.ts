/**
 * The receive side's adaptive jitter buffer for one call's audio: a pure core fed
 * `push(packet, arrivalMs)` and pulled `pull(nowMs)` every frame (20 ms), each pull giving exactly
 * one frame of PCM16: real audio, concealment for a missing packet (`concealment.ts`), or silence
 * (before the first packet, between talkspurts, after the stream stops).
 *
 * Frames are keyed by their RTP timestamp, unwrapped to a number that does not wrap, and decoded
 * as they arrive into a ring of `capacityFrames` preallocated slots, so the memory is fixed: a
 * flood of packets only fills the ring, and the rest is dropped and counted. The sequence number
 * plays no part (G.711 packets are one frame each, and timestamps order them, wrap or not).
 *
 * Timing. The play point is the timestamp of the next frame to play. A frame is due at
 * base + its timestamp in ms + the target delay, where base is the smallest recent transit
 * (`delay-estimator.ts`). Playback starts (and restarts at each talkspurt, RFC 3551 §4.1's marker
 * bit) at the first pull at or after the first frame's due time, then takes one frame per pull.
 *
 * Adapting, and the rule for it: the target follows the measured delays (20-120 ms, quick to grow,
 * slow to shrink). The actual delay moves towards it only where no speech is cut:
 * - it grows when a frame is missing at its pull while the delay is under the target: the pull
 *   plays concealment and keeps the play point (the late packet plays next, one frame later);
 *   missing at or above the target, the frame is lost: concealed, and the play point moves on;
 * - it shrinks at a talkspurt start (re-anchored at the target), or by dropping one frame that
 *   is silent (peak under `silencePeak`) while the delay is a frame or more over the target, at
 *   most once per `shrinkIntervalMs`: never in the middle of a word.
 * A new SSRC clears everything; a timestamp jump (a packet past the ring with nothing buffered,
 * or any packet after the stream paused) re-anchors the play point on that packet.
 */
import { concealFrame } from './concealment.js'
import { DelayEstimator } from './delay-estimator.js'
import { decodeG711 } from './g711.js'

/** Decodes a payload into `out`; returns the samples written, or undefined for a payload type it does not know. */
export type PayloadDecoder = (payloadType: number, payload: Uint8Array, out: Int16Array) => number | undefined

export interface JitterBufferOptions {
  readonly clockRateHz: number
  /** One packet and one pull: RFC 3551's default packetization for G.711 (ptime 20). */
  readonly frameMs: number
  readonly minDelayMs: number
  readonly maxDelayMs: number
  /** Ring slots: frames held at most (64 × 20 ms = 1.28 s ahead of the play point). */
  readonly capacityFrames: number
  readonly fadeFrames: number
  /** Missing frames in a row with nothing buffered before the stream counts as stopped. */
  readonly pauseAfterFrames: number
  readonly shrinkIntervalMs: number
  readonly silencePeak: number
  readonly delayQuantile: number
  readonly delayForget: number
  readonly lateWeight: number
  readonly transitWindowPackets: number
  readonly decode: PayloadDecoder
}

export const DEFAULT_JITTER_BUFFER: JitterBufferOptions = Object.freeze({
  clockRateHz: 8000,
  frameMs: 20,
  minDelayMs: 20,
  maxDelayMs: 120,
  capacityFrames: 64,
  fadeFrames: 3,
  pauseAfterFrames: 10,
  shrinkIntervalMs: 1000,
  /** About -54 dBFS: line noise, not speech. */
  silencePeak: 64,
  /** 99 %: with G.711 and no time stretching, each late packet is an audible concealment. */
  delayQuantile: 0.99,
  delayForget: 0.995,
  /** 10 of the ~200 packets the histogram remembers: 5 %, past the 1 % the quantile leaves. */
  lateWeight: 10,
  transitWindowPackets: 128,
  decode: decodeG711,
})

/** What the buffer reads of an RTP packet (an `RtpPacket` fits). */
export interface JitterPacket {
  readonly ssrc: number
  readonly timestamp: number
  readonly marker: boolean
  readonly payloadType: number
  readonly payload: Uint8Array
}

export type JitterFrameKind = 'audio' | 'concealed' | 'silence'

export interface JitterFrame {
  readonly kind: JitterFrameKind
  /** One frame of samples; the buffer reuses it: valid until the next pull. */
  readonly pcm: Int16Array
}

export interface JitterStats {
  readonly played: number
  readonly concealed: number
  readonly lateDropped: number
  readonly duplicates: number
  /** Too far ahead of the play point for the ring (a flood, or a timestamp jump while playing). */
  readonly overflowDropped: number
  readonly undecodable: number
  /** Times the buffer ran dry while playing. */
  readonly underruns: number
  /** Silent frames dropped to shrink the delay. */
  readonly shrunk: number
  /** New SSRCs and timestamp jumps that re-anchored the play point. */
  readonly resyncs: number
  readonly targetDelayMs: number
  readonly bufferedFrames: number
}

type Mode = 'idle' | 'waiting' | 'playing' | 'paused'

export class JitterBuffer {
  readonly options: JitterBufferOptions
  private readonly samplesPerFrame: number
  private readonly estimator: DelayEstimator
  /** Slot i holds the frame whose unwrapped timestamp is slotTs[i] (NaN: empty). */
  private readonly slotTs: Float64Array
  private readonly slotPcm: Int16Array
  /** The timestamps last played per slot, to tell a duplicate from a late packet. */
  private readonly playedTs: Float64Array
  private readonly lastFrame: Int16Array
  private readonly out: Int16Array
  private mode: Mode = 'idle'
  private ssrc: number | undefined
  private lastTs32 = 0
  private lastExt: number | undefined
  private playTs = 0
  private talkspurtTs: number | undefined
  private count = 0
  private concealRun = 0
  private emptyRun = 0
  private lastShrinkMs = Number.NEGATIVE_INFINITY
  private readonly counters = {
    played: 0,
    concealed: 0,
    lateDropped: 0,
    duplicates: 0,
    overflowDropped: 0,
    undecodable: 0,
    underruns: 0,
    shrunk: 0,
    resyncs: 0,
  }

  constructor(options: Partial<JitterBufferOptions> = {}) {
    const o = { ...DEFAULT_JITTER_BUFFER, ...options }
    this.options = o
    this.samplesPerFrame = (o.clockRateHz * o.frameMs) / 1000
    if (!Number.isInteger(this.samplesPerFrame) || this.samplesPerFrame < 1) throw new RangeError('frameMs × clockRateHz must be a whole number of samples')
    if (!(o.minDelayMs >= o.frameMs && o.maxDelayMs >= o.minDelayMs)) throw new RangeError('delays must satisfy frameMs ≤ minDelayMs ≤ maxDelayMs')
    if (!(Number.isInteger(o.capacityFrames) && o.capacityFrames * o.frameMs > o.maxDelayMs))
      throw new RangeError('capacityFrames must hold more than maxDelayMs')
    this.estimator = new DelayEstimator({ ...o, quantile: o.delayQuantile, forget: o.delayForget, windowPackets: o.transitWindowPackets })
    this.slotTs = new Float64Array(o.capacityFrames).fill(Number.NaN)
    this.playedTs = new Float64Array(o.capacityFrames).fill(Number.NaN)
    this.slotPcm = new Int16Array(o.capacityFrames * this.samplesPerFrame)
    this.lastFrame = new Int16Array(this.samplesPerFrame)
    this.out = new Int16Array(this.samplesPerFrame)
  }

  get stats(): JitterStats {
    return { ...this.counters, targetDelayMs: this.estimator.targetMs(), bufferedFrames: this.count }
  }

  push(packet: JitterPacket, arrivalMs: number): void {
    if (packet.ssrc !== this.ssrc) {
      if (this.ssrc !== undefined) this.resync()
      this.ssrc = packet.ssrc
      this.lastExt = undefined
    }
    const ext = this.unwrap(packet.timestamp >>> 0)
    const transitMs = arrivalMs - this.tsMs(ext)
    const slot = this.slotOf(ext)
    if (this.mode !== 'idle' && this.playedTs[slot] === ext) {
      this.counters.duplicates++
      return
    }
    const span = this.options.capacityFrames * this.samplesPerFrame
    // Further off its schedule than any delay could absorb: the timestamps jumped.
    const jumped = Math.abs(transitMs - this.estimator.baseTransitMs) > this.options.maxDelayMs + this.options.frameMs
    if (
      this.mode === 'idle' ||
      this.mode === 'paused' ||
      (this.mode === 'playing' && this.count === 0 && (packet.marker || jumped || ext >= this.playTs + span))
    ) {
      // A first packet, a talkspurt start, or a jump: re-anchor on it.
      if (this.mode !== 'idle' && jumped) {
        this.counters.resyncs++
        this.estimator.resetTransits()
      }
      this.mode = 'waiting'
      this.playTs = ext
      this.talkspurtTs = undefined
    } else if (ext < this.playTs) {
      if (this.mode === 'waiting' && this.playTs - ext < span)
        this.playTs = ext // reordered before playback began
      else {
        this.counters.lateDropped++
        this.estimator.observe(transitMs, true)
        return
      }
    } else if (ext >= this.playTs + span) {
      this.counters.overflowDropped++
      return
    }
    if (this.slotTs[slot] === ext) {
      this.counters.duplicates++
      return
    }
    if (!Number.isNaN(this.slotTs[slot]!)) {
      this.counters.overflowDropped++ // the slot holds a frame a ring away: only after the start moved back
      return
    }
    const pcm = this.slotPcm.subarray(slot * this.samplesPerFrame, (slot + 1) * this.samplesPerFrame)
    const written = this.options.decode(packet.payloadType, packet.payload, pcm)
    if (written === undefined) {
      this.counters.undecodable++
      return
    }
    pcm.fill(0, written)
    this.slotTs[slot] = ext
    this.count++
    this.estimator.observe(transitMs)
    if (packet.marker && this.mode === 'playing' && ext > this.playTs) this.talkspurtTs = ext
  }

  pull(nowMs: number): JitterFrame {
    if (this.mode === 'waiting') {
      if (nowMs < this.dueMs(this.playTs)) return this.silence()
      this.mode = 'playing'
    }
    if (this.mode !== 'playing') return this.silence()
    let slot = this.slotOf(this.playTs)
    if (this.slotTs[slot] !== this.playTs && this.talkspurtTs !== undefined && !this.anyBufferedBefore(this.talkspurtTs)) {
      // Between talkspurts: the next one starts at its own due time, which re-anchors the delay.
      if (nowMs < this.dueMs(this.talkspurtTs)) return this.silence()
      this.playTs = this.talkspurtTs
      this.talkspurtTs = undefined
      slot = this.slotOf(this.playTs)
    }
    const delayMs = nowMs - this.dueMs(this.playTs) + this.estimator.targetMs()
    if (this.slotTs[slot] === this.playTs) {
      const next = this.slotOf(this.playTs + this.samplesPerFrame)
      if (this.canShrink(slot, next, delayMs, nowMs)) {
        this.release(slot)
        this.counters.shrunk++
        this.lastShrinkMs = nowMs
        this.playTs += this.samplesPerFrame
        slot = next
      }
      return this.play(slot)
    }
    if (this.count === 0) {
      if (this.emptyRun++ === 0) this.counters.underruns++
      if (this.emptyRun > this.options.pauseAfterFrames) {
        this.mode = 'paused'
        return this.silence()
      }
    }
    this.counters.concealed++
    concealFrame(this.lastFrame, this.out, ++this.concealRun, this.options.fadeFrames)
    // Under the target the packet may only be late: keep the play point (the delay grows a frame).
    if (delayMs >= this.estimator.targetMs()) this.playTs += this.samplesPerFrame
    return { kind: 'concealed', pcm: this.out }
  }

  private play(slot: number): JitterFrame {
    const start = slot * this.samplesPerFrame
    this.out.set(this.slotPcm.subarray(start, start + this.samplesPerFrame))
    this.lastFrame.set(this.out)
    this.playedTs[slot] = this.playTs
    this.release(slot)
    this.counters.played++
    this.concealRun = 0
    this.emptyRun = 0
    this.playTs += this.samplesPerFrame
    return { kind: 'audio', pcm: this.out }
  }

  private canShrink(slot: number, next: number, delayMs: number, nowMs: number): boolean {
    if (delayMs < this.estimator.targetMs() + this.options.frameMs || nowMs - this.lastShrinkMs < this.options.shrinkIntervalMs) return false
    if (this.slotTs[next] !== this.playTs + this.samplesPerFrame) return false
    const start = slot * this.samplesPerFrame
    for (let i = start; i < start + this.samplesPerFrame; i++) if (Math.abs(this.slotPcm[i]!) > this.options.silencePeak) return false
    return true
  }

  private release(slot: number): void {
    this.slotTs[slot] = Number.NaN
    this.count--
  }

  private anyBufferedBefore(ext: number): boolean {
    for (let ts = this.playTs; ts < ext; ts += this.samplesPerFrame) if (this.slotTs[this.slotOf(ts)] === ts) return true
    return false
  }

  private silence(): JitterFrame {
    this.out.fill(0)
    return { kind: 'silence', pcm: this.out }
  }

  private dueMs(ext: number): number {
    return this.estimator.baseTransitMs + this.tsMs(ext) + this.estimator.targetMs()
  }

  private tsMs(ext: number): number {
    return (ext * 1000) / this.options.clockRateHz
  }

  private slotOf(ext: number): number {
    const cap = this.options.capacityFrames
    return ((Math.floor(ext / this.samplesPerFrame) % cap) + cap) % cap
  }

  /** The 32-bit timestamp as a number that does not wrap, by its signed distance from the last one. */
  private unwrap(ts32: number): number {
    const ext = this.lastExt === undefined ? ts32 : this.lastExt + ((ts32 - this.lastTs32) | 0)
    this.lastTs32 = ts32
    this.lastExt = ext
    return ext
  }

  private resync(): void {
    this.counters.resyncs++
    this.slotTs.fill(Number.NaN)
    this.playedTs.fill(Number.NaN)
    this.count = 0
    this.mode = 'idle'
    this.talkspurtTs = undefined
    this.concealRun = 0
    this.emptyRun = 0
    this.estimator.resetTransits()
  }
}
