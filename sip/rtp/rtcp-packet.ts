/**
 * RTCP packets (RFC 3550 §6.4-6.6) as plain objects, and their serialization into a compound
 * packet. Parsing is in `rtcp-parse.ts`.
 */
import { writeUint16, writeUint32 } from './bytes.js'

export const RTCP_SR = 200
export const RTCP_RR = 201
export const RTCP_SDES = 202
export const RTCP_BYE = 203
/** The SDES item types (§6.5): 1 is CNAME, the one item every compound packet carries (§6.1). */
export const SDES_CNAME = 1
/** The 5-bit count field (§6.4.1) caps report blocks, SDES chunks and BYE sources per packet. */
export const MAX_RTCP_COUNT = 31

/** One reception report block (§6.4.1). */
export interface ReportBlock {
  readonly ssrc: number
  /** Packets lost since the previous report over packets expected, as a fixed-point fraction × 256. */
  readonly fractionLost: number
  /** Signed 24 bits: duplicates can make it negative (§6.4.1). */
  readonly cumulativeLost: number
  readonly extendedHighestSequence: number
  /** Interarrival jitter in timestamp units (§6.4.1, §A.8). */
  readonly jitter: number
  /** The middle 32 bits of the last SR's NTP timestamp from this source, 0 if none. */
  readonly lastSr: number
  /** Since that SR arrived, in units of 1/65536 s; 0 if none. */
  readonly delaySinceLastSr: number
}

/** The sender info of an SR (§6.4.1): the NTP timestamp as whole seconds and a 32-bit fraction. */
export interface SenderInfo {
  readonly ntpSeconds: number
  readonly ntpFraction: number
  readonly rtpTimestamp: number
  readonly packetCount: number
  readonly octetCount: number
}

export interface SdesItem {
  readonly type: number
  readonly text: string
}

export interface SdesChunk {
  readonly ssrc: number
  readonly items: readonly SdesItem[]
}

export type RtcpPacket =
  | { readonly type: 'sr'; readonly ssrc: number; readonly sender: SenderInfo; readonly reports: readonly ReportBlock[] }
  | { readonly type: 'rr'; readonly ssrc: number; readonly reports: readonly ReportBlock[] }
  | { readonly type: 'sdes'; readonly chunks: readonly SdesChunk[] }
  | { readonly type: 'bye'; readonly ssrcs: readonly number[]; readonly reason?: string }

const encoder = new TextEncoder()

function sdesChunkBytes(chunk: SdesChunk): Uint8Array[] {
  return chunk.items.map((item) => {
    const text = encoder.encode(item.text)
    if (text.length > 255) throw new RangeError('SDES item text over 255 octets')
    return text
  })
}

function bodyLength(packet: RtcpPacket): number {
  switch (packet.type) {
    case 'sr':
      return 4 + 20 + 24 * packet.reports.length
    case 'rr':
      return 4 + 24 * packet.reports.length
    case 'sdes': {
      let length = 0
      for (const chunk of packet.chunks) {
        const items = sdesChunkBytes(chunk).reduce((sum, text) => sum + 2 + text.length, 0)
        // SSRC, items, then a null octet and padding to the next 32-bit boundary (§6.5).
        length += 4 + (Math.floor(items / 4) + 1) * 4
      }
      return length
    }
    case 'bye': {
      const reason = packet.reason === undefined ? 0 : 1 + encoder.encode(packet.reason).length
      return 4 * packet.ssrcs.length + Math.ceil(reason / 4) * 4
    }
  }
}

function countOf(packet: RtcpPacket): number {
  switch (packet.type) {
    case 'sr':
    case 'rr':
      return packet.reports.length
    case 'sdes':
      return packet.chunks.length
    case 'bye':
      return packet.ssrcs.length
  }
}

const TYPE_CODE = { sr: RTCP_SR, rr: RTCP_RR, sdes: RTCP_SDES, bye: RTCP_BYE } as const

function writeReportBlock(out: Uint8Array, at: number, block: ReportBlock): void {
  writeUint32(out, at, block.ssrc)
  // Cumulative lost is clamped to the signed 24-bit range (§A.3).
  const lost = Math.max(-0x800000, Math.min(0x7fffff, block.cumulativeLost))
  writeUint32(out, at + 4, ((block.fractionLost & 0xff) << 24) | (lost & 0xffffff))
  writeUint32(out, at + 8, block.extendedHighestSequence)
  writeUint32(out, at + 12, block.jitter)
  writeUint32(out, at + 16, block.lastSr)
  writeUint32(out, at + 20, block.delaySinceLastSr)
}

function writeBody(out: Uint8Array, at: number, packet: RtcpPacket): void {
  switch (packet.type) {
    case 'sr': {
      writeUint32(out, at, packet.ssrc)
      const s = packet.sender
      writeUint32(out, at + 4, s.ntpSeconds)
      writeUint32(out, at + 8, s.ntpFraction)
      writeUint32(out, at + 12, s.rtpTimestamp)
      writeUint32(out, at + 16, s.packetCount)
      writeUint32(out, at + 20, s.octetCount)
      packet.reports.forEach((block, i) => writeReportBlock(out, at + 24 + 24 * i, block))
      return
    }
    case 'rr':
      writeUint32(out, at, packet.ssrc)
      packet.reports.forEach((block, i) => writeReportBlock(out, at + 4 + 24 * i, block))
      return
    case 'sdes':
      for (const chunk of packet.chunks) {
        writeUint32(out, at, chunk.ssrc)
        let itemAt = at + 4
        sdesChunkBytes(chunk).forEach((text, i) => {
          out[itemAt] = chunk.items[i]!.type
          out[itemAt + 1] = text.length
          out.set(text, itemAt + 2)
          itemAt += 2 + text.length
        })
        const itemBytes = itemAt - at - 4
        at += 4 + (Math.floor(itemBytes / 4) + 1) * 4 // the null terminator and padding stay zero
      }
      return
    case 'bye':
      packet.ssrcs.forEach((ssrc, i) => writeUint32(out, at + 4 * i, ssrc))
      if (packet.reason !== undefined) {
        const reason = encoder.encode(packet.reason)
        if (reason.length > 255) throw new RangeError('BYE reason over 255 octets')
        out[at + 4 * packet.ssrcs.length] = reason.length
        out.set(reason, at + 4 * packet.ssrcs.length + 1)
      }
      return
  }
}

/** Serializes packets into one compound packet (§6.1), without padding (no SRTCP here). */
export function serializeRtcp(packets: readonly RtcpPacket[]): Uint8Array {
  const lengths = packets.map((packet) => {
    if (countOf(packet) > MAX_RTCP_COUNT) throw new RangeError(`an RTCP ${packet.type} holds at most ${MAX_RTCP_COUNT} entries`)
    return 4 + bodyLength(packet)
  })
  const out = new Uint8Array(lengths.reduce((sum, n) => sum + n, 0))
  let at = 0
  packets.forEach((packet, i) => {
    const length = lengths[i]!
    out[at] = (2 << 6) | countOf(packet)
    out[at + 1] = TYPE_CODE[packet.type]
    // The length field counts 32-bit words minus one (§6.4.1).
    writeUint16(out, at + 2, length / 4 - 1)
    writeBody(out, at + 4, packet)
    at += length
  })
  return out
}
