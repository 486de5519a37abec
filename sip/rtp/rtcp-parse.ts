/**
 * Parsing of compound RTCP packets (RFC 3550 §6.1) with the validity checks of §A.2. Never throws:
 * a malformed compound packet is one typed error, and the whole packet is dropped, as §A.2 asks.
 * SR, RR, SDES and BYE are read; other packet types (APP, RTPFB, PSFB, XR, …) are skipped by
 * their length field. Every count is checked against the bytes present before it is read, so
 * nothing loops past the 5-bit counts or the buffer.
 */
import { readUint16, readUint32 } from './bytes.js'
import { RTCP_BYE, RTCP_RR, RTCP_SDES, RTCP_SR, type ReportBlock, type RtcpPacket, type SdesChunk, type SdesItem } from './rtcp-packet.js'

export type RtcpParseErrorCode =
  | 'too_short'
  | 'bad_version'
  /** A packet's length field runs past the compound packet, or the lengths do not add up. */
  | 'bad_length'
  /** §A.2: only the last packet of a compound packet may be padded. */
  | 'padding_not_last'
  | 'bad_padding'
  /** §A.2: a compound packet starts with an SR or an RR (unless reduced-size RTCP is allowed). */
  | 'first_not_report'
  /** A count (report blocks, chunks, sources) needs more bytes than the packet's length gives. */
  | 'count_past_end'
  | 'bad_sdes'

export type RtcpParseResult = { ok: true; packets: RtcpPacket[] } | { ok: false; error: RtcpParseErrorCode }

export interface RtcpParseOptions {
  /** Accept a compound packet that does not start with SR/RR (reduced-size RTCP, RFC 5506 §3.4.1). */
  readonly reducedSize?: boolean
}

const decoder = new TextDecoder('utf-8', { fatal: false })

function reportBlocks(bytes: Uint8Array, at: number, count: number): ReportBlock[] {
  const reports: ReportBlock[] = []
  for (let i = 0; i < count; i++, at += 24) {
    const lostWord = readUint32(bytes, at + 4)
    reports.push({
      ssrc: readUint32(bytes, at),
      fractionLost: lostWord >>> 24,
      cumulativeLost: ((lostWord & 0xffffff) << 8) >> 8, // sign-extend 24 bits
      extendedHighestSequence: readUint32(bytes, at + 8),
      jitter: readUint32(bytes, at + 12),
      lastSr: readUint32(bytes, at + 16),
      delaySinceLastSr: readUint32(bytes, at + 20),
    })
  }
  return reports
}

/** Chunks of an SDES packet (§6.5): each an SSRC and items ending with a null octet, padded to 32 bits. */
function sdesChunks(bytes: Uint8Array, at: number, end: number, count: number): SdesChunk[] | undefined {
  const chunks: SdesChunk[] = []
  for (let c = 0; c < count; c++) {
    if (at + 4 > end) return undefined
    const ssrc = readUint32(bytes, at)
    at += 4
    const items: SdesItem[] = []
    for (;;) {
      if (at >= end) return undefined
      const type = bytes[at]!
      if (type === 0) break
      if (at + 2 > end || at + 2 + bytes[at + 1]! > end) return undefined
      const length = bytes[at + 1]!
      items.push({ type, text: decoder.decode(bytes.subarray(at + 2, at + 2 + length)) })
      at += 2 + length
    }
    // Past the null octet to the next 32-bit boundary (the chunk started on one).
    at = (Math.floor(at / 4) + 1) * 4
    if (at > end) return undefined
    chunks.push({ ssrc, items })
  }
  return chunks
}

function parseOne(bytes: Uint8Array, start: number, end: number): RtcpPacket | RtcpParseErrorCode | undefined {
  const count = bytes[start]! & 0x1f
  const type = bytes[start + 1]!
  const body = start + 4
  switch (type) {
    case RTCP_SR:
      if (body + 24 + 24 * count > end) return 'count_past_end'
      return {
        type: 'sr',
        ssrc: readUint32(bytes, body),
        sender: {
          ntpSeconds: readUint32(bytes, body + 4),
          ntpFraction: readUint32(bytes, body + 8),
          rtpTimestamp: readUint32(bytes, body + 12),
          packetCount: readUint32(bytes, body + 16),
          octetCount: readUint32(bytes, body + 20),
        },
        reports: reportBlocks(bytes, body + 24, count),
      }
    case RTCP_RR:
      if (body + 4 + 24 * count > end) return 'count_past_end'
      return { type: 'rr', ssrc: readUint32(bytes, body), reports: reportBlocks(bytes, body + 4, count) }
    case RTCP_SDES: {
      const chunks = sdesChunks(bytes, body, end, count)
      return chunks ? { type: 'sdes', chunks } : 'bad_sdes'
    }
    case RTCP_BYE: {
      if (body + 4 * count > end) return 'count_past_end'
      const ssrcs: number[] = []
      for (let i = 0; i < count; i++) ssrcs.push(readUint32(bytes, body + 4 * i))
      const reasonAt = body + 4 * count
      if (reasonAt >= end) return { type: 'bye', ssrcs }
      const length = bytes[reasonAt]!
      if (reasonAt + 1 + length > end) return 'count_past_end'
      return { type: 'bye', ssrcs, reason: decoder.decode(bytes.subarray(reasonAt + 1, reasonAt + 1 + length)) }
    }
    default:
      return undefined
  }
}

export function parseRtcp(bytes: Uint8Array, options: RtcpParseOptions = {}): RtcpParseResult {
  if (bytes.length < 4 || bytes.length % 4 !== 0) return { ok: false, error: bytes.length < 4 ? 'too_short' : 'bad_length' }
  const first = bytes[1]!
  if (!options.reducedSize && first !== RTCP_SR && first !== RTCP_RR) return { ok: false, error: 'first_not_report' }
  const packets: RtcpPacket[] = []
  let at = 0
  while (at < bytes.length) {
    if (at + 4 > bytes.length) return { ok: false, error: 'bad_length' }
    if (bytes[at]! >> 6 !== 2) return { ok: false, error: 'bad_version' }
    const length = 4 * (readUint16(bytes, at + 2) + 1)
    const next = at + length
    if (next > bytes.length) return { ok: false, error: 'bad_length' }
    let end = next
    if (bytes[at]! & 0x20) {
      if (next !== bytes.length) return { ok: false, error: 'padding_not_last' }
      const padding = bytes[next - 1]!
      if (padding === 0 || padding > length - 4) return { ok: false, error: 'bad_padding' }
      end -= padding
    }
    const packet = parseOne(bytes, at, end)
    if (typeof packet === 'string') return { ok: false, error: packet }
    if (packet) packets.push(packet)
    at = next
  }
  return { ok: true, packets }
}
