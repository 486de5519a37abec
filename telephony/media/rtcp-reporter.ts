/**
 * RTCP for one call, a pure core: our reports (SR while we send, RR otherwise, RFC 3550 §6.4), the
 * BYE at the end (§6.6), and what the peer's reports say of our stream (loss, jitter, and the
 * round-trip time from LSR/DLSR, §6.4.1).
 *
 * When: the adapter calls report() every `intervalMs` (5 s) rather than at §6.3's computed times.
 * With two members the computation gives its 5 s minimum anyway (RTCP's 5 % of 64 kbit/s over two
 * ~100-octet reports is a fraction of a second, raised to Tmin); its randomization exists to keep
 * many members of one session from reporting in step, which a two-party call does not have.
 */
import {
  buildBye,
  buildReceiverReport,
  buildSenderReport,
  ntpFromUnixMs,
  ntpMiddle32,
  parseRtcp,
  type ReceiverStats,
  type ReportBlock,
  type SenderStats,
} from '../../sip/index.js'

/** What the peer reported about our stream. */
export interface RemoteReport {
  /** Since its previous report, 0-1. */
  readonly fractionLost: number
  readonly cumulativeLost: number
  readonly jitterMs: number
  /** Undefined until the peer echoes one of our SRs. */
  readonly rttMs: number | undefined
}

export interface RtcpCounters {
  sent: number
  received: number
  malformed: number
  byes: number
}

export class RtcpReporter {
  readonly counters: RtcpCounters = { sent: 0, received: 0, malformed: 0, byes: 0 }
  private remoteReport: RemoteReport | undefined
  /** Our packet count at the last two reports: §6.4's "sent since the second previous report". */
  private countAtReports = [0, 0]

  constructor(
    readonly ssrc: number,
    readonly cname: string,
    private readonly wallClockMs: () => number,
  ) {}

  get remote(): RemoteReport | undefined {
    return this.remoteReport
  }

  report(nowMs: number, sender: SenderStats, receiver: ReceiverStats | undefined): Uint8Array {
    const reports = this.blocks(nowMs, receiver)
    const sentLately = sender.hasSent && sender.packetCount !== this.countAtReports[0]
    this.countAtReports = [this.countAtReports[1]!, sender.packetCount]
    this.counters.sent++
    if (!sentLately) return buildReceiverReport({ ssrc: this.ssrc, cname: this.cname, reports })
    return buildSenderReport({ ssrc: this.ssrc, cname: this.cname, reports, sender, nowMs, wallClockMs: this.wallClockMs() })
  }

  bye(nowMs: number, receiver: ReceiverStats | undefined): Uint8Array {
    this.counters.sent++
    return buildBye({ ssrc: this.ssrc, cname: this.cname, reports: this.blocks(nowMs, receiver) })
  }

  /** One compound packet from the peer (§A.2-checked; a malformed one is dropped whole). */
  receive(bytes: Uint8Array, nowMs: number, receiver: ReceiverStats | undefined): void {
    const parsed = parseRtcp(bytes)
    if (!parsed.ok) {
      this.counters.malformed++
      return
    }
    this.counters.received++
    for (const packet of parsed.packets) {
      if (packet.type === 'bye') this.counters.byes++
      if (packet.type !== 'sr' && packet.type !== 'rr') continue
      if (packet.type === 'sr' && receiver && packet.ssrc === receiver.ssrc) {
        receiver.receiveSenderReport(ntpMiddle32({ seconds: packet.sender.ntpSeconds, fraction: packet.sender.ntpFraction }), nowMs)
      }
      const ours = packet.reports.find((block) => block.ssrc === this.ssrc)
      if (ours) this.remoteReport = this.fromBlock(ours)
    }
  }

  private blocks(nowMs: number, receiver: ReceiverStats | undefined): ReportBlock[] {
    return receiver?.valid ? [receiver.reportBlock(nowMs)] : []
  }

  private fromBlock(block: ReportBlock): RemoteReport {
    let rttMs: number | undefined
    if (block.lastSr !== 0) {
      // §6.4.1: RTT = A - LSR - DLSR, all in 1/65536 s, modulo 2^32.
      const arrival = ntpMiddle32(ntpFromUnixMs(this.wallClockMs()))
      const rtt = (arrival - block.lastSr - block.delaySinceLastSr) >>> 0
      // A wrapped (negative) difference means clocks moved: no estimate rather than a wrong one.
      rttMs = rtt < 0x80000000 ? (rtt * 1000) / 65536 : undefined
    }
    return { fractionLost: block.fractionLost / 256, cumulativeLost: block.cumulativeLost, jitterMs: block.jitter / 8, rttMs }
  }
}
