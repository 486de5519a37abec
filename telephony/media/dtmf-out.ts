/**
 * The agent's key presses out, as RFC 4733 events timed on the injected clock: each digit's
 * packets (dtmfPackets: the marker on the first, updates every 20 ms, the end packet three
 * times, §2.5.1) at their offsets from the digit's start, then the next digit one period later
 * (tone + pause). Times are computed from the first digit's start, so late timers do not add up.
 *
 * Audio is paused while an event is sent (rtp-sender.ts): a receiver regenerating the tone would
 * otherwise mix it with our voice, and one that also detects tones in the audio could read a
 * press twice. The agent rarely speaks while dialling; its frames meanwhile are counted as
 * suppressed.
 *
 * Bounded: at most `maxDigits` queued across calls to send() (a typed error beyond).
 */
import type { PlayoutClock, TimerId } from '../../engine/pipeline/playout-clock.js'
import { DEFAULT_DTMF_SEND, type DtmfDigit, type DtmfSendOptions, dtmfPackets } from '../../sip/index.js'
import { DtmfError } from './errors.js'
import type { RtpSender } from './rtp-sender.js'

export interface DtmfOutOptions {
  readonly tone: DtmfSendOptions
  /** Silence between one digit's tone and the next (Q.24 asks receivers to take 40 ms pauses). */
  readonly pauseMs: number
  readonly maxDigits: number
}

export const DEFAULT_DTMF_OUT: DtmfOutOptions = Object.freeze({ tone: DEFAULT_DTMF_SEND, pauseMs: 100, maxDigits: 32 })

const DIGITS = /^[0-9*#A-D]*$/

interface Job {
  readonly digits: DtmfDigit[]
  readonly resolve: () => void
  readonly reject: (err: Error) => void
}

export class DtmfOut {
  private readonly options: DtmfOutOptions
  private readonly queue: Job[] = []
  private queued = 0
  private timer: TimerId | undefined
  private nextStartMs: number | undefined
  private closed = false
  digitsSent = 0

  constructor(
    private readonly sender: RtpSender,
    private readonly clock: PlayoutClock,
    options: Partial<DtmfOutOptions> = {},
  ) {
    this.options = { ...DEFAULT_DTMF_OUT, ...options }
  }

  /** Queues `digits`; resolves once the last one's end packets are sent. */
  send(digits: string): Promise<void> {
    const upper = digits.toUpperCase()
    if (this.closed) return Promise.reject(new DtmfError('closed', 'the call is over'))
    if (!DIGITS.test(upper)) return Promise.reject(new DtmfError('invalid_digit', 'DTMF digits are 0-9, *, #, A-D'))
    if (this.queued + upper.length > this.options.maxDigits)
      return Promise.reject(new DtmfError('too_long', `at most ${this.options.maxDigits} DTMF digits may be queued`))
    if (this.sender.dtmfPayloadType === undefined) return Promise.reject(new DtmfError('not_negotiated', 'the peer did not agree to telephone-event'))
    if (upper.length === 0) return Promise.resolve()
    return new Promise((resolve, reject) => {
      this.queue.push({ digits: [...upper] as DtmfDigit[], resolve, reject })
      this.queued += upper.length
      if (this.timer === undefined) this.startDigit()
    })
  }

  /** Stops sending; queued digits reject with 'closed'. */
  close(): void {
    if (this.closed) return
    this.closed = true
    if (this.timer !== undefined) this.clock.clearTimer(this.timer)
    this.timer = undefined
    this.sender.endDtmf()
    for (const job of this.queue.splice(0)) job.reject(new DtmfError('closed', 'the call ended before its DTMF digits were sent'))
    this.queued = 0
  }

  private startDigit(): void {
    const job = this.queue[0]
    if (!job) {
      this.nextStartMs = undefined
      return
    }
    const now = this.clock.now()
    // Back to back with the previous digit, or now after a pause in sending.
    const startMs = this.nextStartMs !== undefined && this.nextStartMs >= now - this.options.tone.packetIntervalMs ? this.nextStartMs : now
    const digit = job.digits.shift()!
    this.queued--
    const { tone } = this.options
    const timestamp = this.sender.startDtmf(startMs, tone.durationMs)
    const packets = timestamp === undefined ? [] : dtmfPackets(digit, timestamp, tone)
    const lastAtMs = tone.durationMs + (tone.endPackets - 1) * tone.packetIntervalMs
    this.nextStartMs = startMs + Math.max(tone.durationMs + this.options.pauseMs, lastAtMs + tone.packetIntervalMs)
    let index = 0
    const step = () => {
      this.timer = undefined
      const packet = packets[index++]
      if (packet) this.sender.sendDtmf(packet, this.clock.now())
      if (index < packets.length) return this.at(startMs + packets[index]!.atMs, step)
      this.sender.endDtmf()
      this.digitsSent++
      if (job.digits.length === 0) {
        this.queue.shift()
        job.resolve()
      }
      this.at(this.nextStartMs!, () => {
        this.timer = undefined
        this.startDigit()
      })
    }
    this.at(startMs + (packets[0]?.atMs ?? lastAtMs), step)
  }

  private at(dueMs: number, cb: () => void): void {
    this.timer = this.clock.setTimer(cb, Math.max(0, dueMs - this.clock.now()))
  }
}
