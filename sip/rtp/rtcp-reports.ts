/**
 * The compound packets an endpoint sends (RFC 3550 §6.1, §6.4): an SR (or an RR when it has sent
 * nothing) with its report blocks, then an SDES with the CNAME; BYE when leaving (§6.6).
 */
import { ntpFromUnixMs } from './ntp.js'
import { MAX_RTCP_COUNT, type ReportBlock, type RtcpPacket, SDES_CNAME, serializeRtcp } from './rtcp-packet.js'
import type { SenderStats } from './sender-stats.js'

export interface ReportInput {
  readonly ssrc: number
  readonly cname: string
  readonly reports: readonly ReportBlock[]
}

export interface SenderReportInput extends ReportInput {
  /** The injected wall clock, in Unix milliseconds, for the SR's NTP timestamp. */
  readonly wallClockMs: number
  /** The session's monotonic clock, for the RTP timestamp at that instant. */
  readonly nowMs: number
  readonly sender: SenderStats
}

/** §6.4.2: blocks past the 31 an SR or RR can hold go into further RR packets. */
function overflowReceiverReports(ssrc: number, reports: readonly ReportBlock[]): RtcpPacket[] {
  const packets: RtcpPacket[] = []
  for (let i = 0; i < reports.length; i += MAX_RTCP_COUNT) packets.push({ type: 'rr', ssrc, reports: reports.slice(i, i + MAX_RTCP_COUNT) })
  return packets
}

function sdes(ssrc: number, cname: string): RtcpPacket {
  return { type: 'sdes', chunks: [{ ssrc, items: [{ type: SDES_CNAME, text: cname }] }] }
}

export function buildSenderReport(input: SenderReportInput): Uint8Array {
  const ntp = ntpFromUnixMs(input.wallClockMs)
  const sr: RtcpPacket = {
    type: 'sr',
    ssrc: input.ssrc,
    sender: {
      ntpSeconds: ntp.seconds,
      ntpFraction: ntp.fraction,
      rtpTimestamp: input.sender.rtpTimestampAt(input.nowMs),
      packetCount: input.sender.packetCount,
      octetCount: input.sender.octetCount,
    },
    reports: input.reports.slice(0, MAX_RTCP_COUNT),
  }
  return serializeRtcp([sr, ...overflowReceiverReports(input.ssrc, input.reports.slice(MAX_RTCP_COUNT)), sdes(input.ssrc, input.cname)])
}

export function buildReceiverReport(input: ReportInput): Uint8Array {
  const rrs = input.reports.length === 0 ? [{ type: 'rr', ssrc: input.ssrc, reports: [] } as const] : overflowReceiverReports(input.ssrc, input.reports)
  return serializeRtcp([...rrs, sdes(input.ssrc, input.cname)])
}

/** §6.6: a BYE goes in a compound packet behind an RR (or SR) and SDES like any other. */
export function buildBye(input: ReportInput & { readonly reason?: string }): Uint8Array {
  const rrs = input.reports.length === 0 ? [{ type: 'rr', ssrc: input.ssrc, reports: [] } as const] : overflowReceiverReports(input.ssrc, input.reports)
  const bye: RtcpPacket = input.reason === undefined ? { type: 'bye', ssrcs: [input.ssrc] } : { type: 'bye', ssrcs: [input.ssrc], reason: input.reason }
  return serializeRtcp([...rrs, sdes(input.ssrc, input.cname), bye])
}
