/**
 * Turns a stream of RFC 4733 telephone-event packets into key presses: exactly one `end` per
 * press, with its duration, however the packets came (§2.5.2). All packets of one event share
 * its RTP timestamp (the start of the tone); the sender repeats updates as the tone goes on, and
 * sends the packet with the E bit three times.
 *
 * - An update with the current event's timestamp lengthens it; the first one with E ends it.
 *   Later copies (the redundant end packets, retransmissions) are ignored: the last ended
 *   timestamps are remembered.
 * - A packet with a new timestamp starts a new event, and ends the current one if its end packets
 *   were all lost (reason `new_event`).
 * - If the start packets were lost, the event starts at whatever packet comes first; an event of
 *   only end packets still gives one press.
 * - With no packet for `timeoutMs`, `tick(nowMs)` ends the event (reason `timeout`).
 * - A packet with a timestamp before the current event's is a straggler of an earlier one: ignored.
 */
import { type DtmfDigit, TelephoneEvent } from './telephone-event.js'

export type DtmfEndReason = 'end' | 'new_event' | 'timeout'

export type DtmfOutput =
  | { readonly kind: 'start'; readonly digit: DtmfDigit; readonly timestamp: number }
  | { readonly kind: 'end'; readonly digit: DtmfDigit; readonly timestamp: number; readonly durationMs: number; readonly reason: DtmfEndReason }

export interface DtmfReceiverOptions {
  readonly clockRateHz: number
  /** RFC 4733 senders refresh an event every 50 ms or so; 500 ms without one ends it. */
  readonly timeoutMs: number
}

export const DEFAULT_DTMF_RECEIVER: DtmfReceiverOptions = Object.freeze({ clockRateHz: 8000, timeoutMs: 500 })

/** Ended timestamps remembered to ignore their repeats: a handful covers any reordering of end packets. */
const ENDED_MEMORY = 8

interface Current {
  readonly timestamp: number
  readonly digit: DtmfDigit | undefined
  duration: number
  lastPacketMs: number
}

export class DtmfReceiver {
  private readonly options: DtmfReceiverOptions
  private current: Current | undefined
  private lastTimestamp: number | undefined
  private readonly ended: number[] = []

  constructor(options: Partial<DtmfReceiverOptions> = {}) {
    this.options = { ...DEFAULT_DTMF_RECEIVER, ...options }
    if (!(this.options.clockRateHz > 0 && this.options.timeoutMs > 0)) throw new RangeError('clockRateHz and timeoutMs must be positive')
  }

  receive(packet: { readonly timestamp: number; readonly payload: Uint8Array }, nowMs: number): DtmfOutput[] {
    const event = TelephoneEvent.deserialize(packet.payload)
    if (!event) return []
    const timestamp = packet.timestamp >>> 0
    const out = this.tick(nowMs)
    if (this.ended.includes(timestamp)) return out
    if (this.current && this.current.timestamp === timestamp) {
      this.current.duration = Math.max(this.current.duration, event.duration)
      this.current.lastPacketMs = nowMs
    } else {
      // Serial-number order on the 32-bit timestamp: behind the last event means a straggler.
      if (this.lastTimestamp !== undefined && ((timestamp - this.lastTimestamp) | 0) < 0) return out
      if (this.current) this.finish('new_event', out)
      this.current = { timestamp, digit: event.digit, duration: event.duration, lastPacketMs: nowMs }
      this.lastTimestamp = timestamp
      if (event.digit) out.push({ kind: 'start', digit: event.digit, timestamp })
    }
    if (event.end) this.finish('end', out)
    return out
  }

  /** Ends an event whose packets stopped coming. Call it on the adapter's timer or each packet. */
  tick(nowMs: number): DtmfOutput[] {
    const out: DtmfOutput[] = []
    if (this.current && nowMs - this.current.lastPacketMs >= this.options.timeoutMs) this.finish('timeout', out)
    return out
  }

  private finish(reason: DtmfEndReason, out: DtmfOutput[]): void {
    const current = this.current!
    this.current = undefined
    this.ended.push(current.timestamp)
    if (this.ended.length > ENDED_MEMORY) this.ended.shift()
    if (current.digit) {
      const durationMs = (current.duration * 1000) / this.options.clockRateHz
      out.push({ kind: 'end', digit: current.digit, timestamp: current.timestamp, durationMs, reason })
    }
  }
}
