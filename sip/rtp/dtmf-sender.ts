/**
 * The packets of one DTMF key press (RFC 4733 §2.5.1), timed for the adapter to send: all with
 * the timestamp of the tone's start, the first with the marker bit, one update every
 * `packetIntervalMs` whose duration is the tone so far, then the final duration with the E bit
 * three times, at the same interval. The audio stream sends no audio
 * packets meanwhile; its timestamps go on counting, so the next audio packet carries the timestamp
 * of its own instant.
 */
import { type DtmfDigit, MAX_EVENT_DURATION, TelephoneEvent } from './telephone-event.js'

export interface DtmfPacket {
  /** When to send, from the press's start. */
  readonly atMs: number
  readonly payload: Uint8Array
  readonly marker: boolean
  readonly timestamp: number
}

export interface DtmfSendOptions {
  readonly durationMs: number
  readonly packetIntervalMs: number
  readonly endPackets: number
  readonly volume: number
  readonly clockRateHz: number
}

export const DEFAULT_DTMF_SEND: DtmfSendOptions = Object.freeze({
  /** ITU-T Q.24 asks receivers to take 40 ms tones; 100 ms is what phones send. */
  durationMs: 100,
  packetIntervalMs: 20,
  endPackets: 3,
  /** -10 dBm0, a usual DTMF level. */
  volume: 10,
  clockRateHz: 8000,
})

/**
 * The packets for `digit` starting at RTP timestamp `timestamp`. Updates go at interval, 2 ×
 * interval, … while the tone lasts (each reports the tone played so far); the end packets go at
 * the tone's end and after.
 */
export function dtmfPackets(digit: DtmfDigit, timestamp: number, options: Partial<DtmfSendOptions> = {}): DtmfPacket[] {
  const o = { ...DEFAULT_DTMF_SEND, ...options }
  const event = TelephoneEvent.eventOf(digit)
  if (event < 0) throw new RangeError(`not a DTMF digit: ${digit}`)
  if (!(o.packetIntervalMs > 0 && o.durationMs >= o.packetIntervalMs && o.endPackets >= 1)) throw new RangeError('bad DTMF timing')
  const units = (ms: number) => Math.round((ms * o.clockRateHz) / 1000)
  if (units(o.durationMs) > MAX_EVENT_DURATION) throw new RangeError('DTMF tone too long for one event')
  const packets: DtmfPacket[] = []
  const make = (atMs: number, duration: number, end: boolean): DtmfPacket => ({
    atMs,
    payload: new TelephoneEvent({ event, end, volume: o.volume, duration }).serialize(),
    marker: packets.length === 0,
    timestamp: timestamp >>> 0,
  })
  for (let atMs = o.packetIntervalMs; atMs < o.durationMs; atMs += o.packetIntervalMs) packets.push(make(atMs, units(atMs), false))
  for (let i = 0; i < o.endPackets; i++) packets.push(make(o.durationMs + i * o.packetIntervalMs, units(o.durationMs), true))
  return packets
}
