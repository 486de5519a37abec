/**
 * RTP data packets (RFC 3550 §5.1). `RtpPacket.deserialize` never throws: malformed input gives
 * undefined, and `parseRtp` says why with a stable code.
 *
 * The payload and the header extension's data are views into the buffer deserialized, not copies:
 * the socket adapter hands every datagram its own buffer (Node's dgram allocates one per message)
 * and reuses none, so a view is safe and saves a copy per packet. A caller that keeps packets past
 * a buffer's reuse copies `payload` itself.
 */

import { readUint16, readUint32, writeUint16, writeUint32 } from './bytes.js'

export const RTP_VERSION = 2
/** 12 fixed octets (§5.1). */
export const RTP_HEADER_BYTES = 12

export type RtpParseErrorCode = 'too_short' | 'bad_version' | 'csrc_past_end' | 'extension_past_end' | 'padding_zero' | 'padding_past_end'

export type RtpParseResult = { ok: true; packet: RtpPacket } | { ok: false; error: RtpParseErrorCode }

/** A header extension (§5.3.1): 16 profile-defined bits and a whole number of 32-bit words. */
export interface RtpHeaderExtension {
  readonly profile: number
  readonly data: Uint8Array
}

/** What the hot-path writer needs: the fixed header's fields. */
export interface RtpHeaderFields {
  readonly marker: boolean
  readonly payloadType: number
  readonly sequenceNumber: number
  readonly timestamp: number
  readonly ssrc: number
}

export interface RtpPacketInit extends RtpHeaderFields {
  readonly payload: Uint8Array
  readonly csrcs?: readonly number[]
  readonly extension?: RtpHeaderExtension
  /** Octets of padding to append (§5.1 P bit), 0-255; the last one holds the count. */
  readonly paddingBytes?: number
}

/**
 * Writes the 12-octet fixed header into `out` at `offset` (no CSRCs, no extension, no padding) and
 * returns 12. With the codec encoding straight into `out.subarray(offset + 12)`, a sender builds
 * each packet in one reused buffer without allocating.
 */
export function writeRtpHeader(out: Uint8Array, fields: RtpHeaderFields, offset = 0): number {
  if (out.length - offset < RTP_HEADER_BYTES) throw new RangeError('RTP header needs 12 octets')
  out[offset] = RTP_VERSION << 6
  out[offset + 1] = (fields.marker ? 0x80 : 0) | (fields.payloadType & 0x7f)
  writeUint16(out, offset + 2, fields.sequenceNumber)
  writeUint32(out, offset + 4, fields.timestamp)
  writeUint32(out, offset + 8, fields.ssrc)
  return RTP_HEADER_BYTES
}

export class RtpPacket {
  readonly marker: boolean
  /** 7 bits (§5.1). */
  readonly payloadType: number
  /** 16 bits; wraps. */
  readonly sequenceNumber: number
  /** 32 bits, in the payload format's clock units (8000 Hz for G.711); wraps. */
  readonly timestamp: number
  readonly ssrc: number
  /** At most 15 (the CC field is 4 bits). */
  readonly csrcs: readonly number[]
  readonly extension: RtpHeaderExtension | undefined
  readonly payload: Uint8Array
  readonly paddingBytes: number

  constructor(init: RtpPacketInit) {
    const csrcs = init.csrcs ?? []
    const paddingBytes = init.paddingBytes ?? 0
    if (!Number.isInteger(init.payloadType) || init.payloadType < 0 || init.payloadType > 127) throw new RangeError(`payloadType ${init.payloadType}`)
    if (!Number.isInteger(init.sequenceNumber) || init.sequenceNumber < 0 || init.sequenceNumber > 0xffff)
      throw new RangeError(`sequenceNumber ${init.sequenceNumber}`)
    if (csrcs.length > 15) throw new RangeError('at most 15 CSRCs')
    if (!Number.isInteger(paddingBytes) || paddingBytes < 0 || paddingBytes > 255) throw new RangeError(`paddingBytes ${paddingBytes}`)
    if (init.extension && init.extension.data.length % 4 !== 0) throw new RangeError('extension data must be whole 32-bit words')
    this.marker = init.marker
    this.payloadType = init.payloadType
    this.sequenceNumber = init.sequenceNumber
    this.timestamp = init.timestamp >>> 0
    this.ssrc = init.ssrc >>> 0
    this.csrcs = csrcs
    this.extension = init.extension
    this.payload = init.payload
    this.paddingBytes = paddingBytes
  }

  get serializedLength(): number {
    const extensionBytes = this.extension ? 4 + this.extension.data.length : 0
    return RTP_HEADER_BYTES + 4 * this.csrcs.length + extensionBytes + this.payload.length + this.paddingBytes
  }

  serialize(): Uint8Array {
    const out = new Uint8Array(this.serializedLength)
    this.serializeInto(out)
    return out
  }

  /** Writes the packet into `out` at `offset`; returns the octets written. */
  serializeInto(out: Uint8Array, offset = 0): number {
    const length = this.serializedLength
    if (out.length - offset < length) throw new RangeError(`RTP packet needs ${length} octets`)
    writeRtpHeader(out, this, offset)
    out[offset] = (RTP_VERSION << 6) | (this.paddingBytes > 0 ? 0x20 : 0) | (this.extension ? 0x10 : 0) | this.csrcs.length
    let at = offset + RTP_HEADER_BYTES
    for (const csrc of this.csrcs) {
      writeUint32(out, at, csrc)
      at += 4
    }
    if (this.extension) {
      writeUint16(out, at, this.extension.profile)
      writeUint16(out, at + 2, this.extension.data.length / 4)
      out.set(this.extension.data, at + 4)
      at += 4 + this.extension.data.length
    }
    out.set(this.payload, at)
    at += this.payload.length
    if (this.paddingBytes > 0) {
      out.fill(0, at, at + this.paddingBytes - 1)
      out[at + this.paddingBytes - 1] = this.paddingBytes
      at += this.paddingBytes
    }
    return at - offset
  }

  static deserialize(bytes: Uint8Array): RtpPacket | undefined {
    const result = parseRtp(bytes)
    return result.ok ? result.packet : undefined
  }
}

/** Most packets carry no CSRC: they share one empty list instead of making one each. */
const NO_CSRCS: readonly number[] = Object.freeze([])

/** Parses one RTP packet, checking every length against the buffer before reading (§5.1, §5.3.1). */
export function parseRtp(bytes: Uint8Array): RtpParseResult {
  if (bytes.length < RTP_HEADER_BYTES) return { ok: false, error: 'too_short' }
  const first = bytes[0]!
  if (first >> 6 !== RTP_VERSION) return { ok: false, error: 'bad_version' }
  const csrcCount = first & 0x0f
  let at = RTP_HEADER_BYTES + 4 * csrcCount
  if (at > bytes.length) return { ok: false, error: 'csrc_past_end' }
  let csrcs: readonly number[] = NO_CSRCS
  if (csrcCount > 0) {
    const list: number[] = []
    for (let i = 0; i < csrcCount; i++) list.push(readUint32(bytes, RTP_HEADER_BYTES + 4 * i))
    csrcs = list
  }
  let extension: RtpHeaderExtension | undefined
  if (first & 0x10) {
    if (at + 4 > bytes.length) return { ok: false, error: 'extension_past_end' }
    const profile = readUint16(bytes, at)
    const dataBytes = 4 * readUint16(bytes, at + 2)
    if (at + 4 + dataBytes > bytes.length) return { ok: false, error: 'extension_past_end' }
    extension = { profile, data: bytes.subarray(at + 4, at + 4 + dataBytes) }
    at += 4 + dataBytes
  }
  let end = bytes.length
  let paddingBytes = 0
  if (first & 0x20) {
    // §5.1: the last octet counts the padding, itself included; zero cannot be, nor can padding
    // that reaches back into the header.
    paddingBytes = bytes[bytes.length - 1]!
    if (paddingBytes === 0) return { ok: false, error: 'padding_zero' }
    if (paddingBytes > bytes.length - at) return { ok: false, error: 'padding_past_end' }
    end -= paddingBytes
  }
  const second = bytes[1]!
  const packet = new RtpPacket({
    marker: (second & 0x80) !== 0,
    payloadType: second & 0x7f,
    sequenceNumber: readUint16(bytes, 2),
    timestamp: readUint32(bytes, 4),
    ssrc: readUint32(bytes, 8),
    csrcs,
    extension,
    payload: bytes.subarray(at, end),
    paddingBytes,
  })
  return { ok: true, packet }
}

/**
 * RTCP shares the port when multiplexed (RFC 5761 §4): packet types 200-204 land on RTP payload
 * types 72-76 with the marker set, which RTP never uses for audio.
 */
export function looksLikeRtcp(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[1]! >= 192 && bytes[1]! <= 223
}
