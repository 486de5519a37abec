/**
 * What an SR's sender info counts (RFC 3550 §6.4.1): packets and payload octets sent, and the RTP
 * timestamp that matches the SR's NTP time, extrapolated from the last packet sent.
 */

export class SenderStats {
  private packets = 0
  private octets = 0
  private lastTimestamp: number | undefined
  private lastSentMs = 0

  constructor(readonly clockRateHz = 8000) {
    if (!(clockRateHz > 0)) throw new RangeError(`clockRateHz must be positive, got ${clockRateHz}`)
  }

  /** Both counts wrap modulo 2^32, as on the wire. */
  get packetCount(): number {
    return this.packets
  }

  /** Payload octets only: no header, no padding (§6.4.1). */
  get octetCount(): number {
    return this.octets
  }

  /** True once a packet has gone out: an RTP sender reports with SR, a receiver only with RR (§6.4). */
  get hasSent(): boolean {
    return this.lastTimestamp !== undefined
  }

  sent(payloadBytes: number, rtpTimestamp: number, nowMs: number): void {
    this.packets = (this.packets + 1) >>> 0
    this.octets = (this.octets + payloadBytes) >>> 0
    this.lastTimestamp = rtpTimestamp >>> 0
    this.lastSentMs = nowMs
  }

  /** Packets counted by sent() that never left (dropped before their time by a barge-in): the counts go back down. */
  unsent(packets: number, payloadBytes: number): void {
    this.packets = (this.packets - packets) >>> 0
    this.octets = (this.octets - payloadBytes) >>> 0
  }

  /**
   * The RTP timestamp for the instant `nowMs` (§6.4.1: "the same time as the NTP timestamp, …
   * not necessarily equal to the timestamp in any adjacent data packet").
   */
  rtpTimestampAt(nowMs: number): number {
    if (this.lastTimestamp === undefined) return 0
    return (this.lastTimestamp + Math.round(((nowMs - this.lastSentMs) * this.clockRateHz) / 1000)) >>> 0
  }
}
