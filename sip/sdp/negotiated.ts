import { classifyAddress, isUnspecifiedAddress, type SdpAddressKind } from './address.js'
import { directionOf, millisecondsOf, rtcpOf } from './attributes.js'
import { type AudioCodec, audioCodecOf, formatOf, isTelephoneEvent8k } from './codecs.js'
import { canReceive, directionFrom, canSend } from './direction.js'
import type { SdpDirection, SdpMedia, SessionDescription } from './model.js'
import type { ResolvedAudio } from './options.js'

/** The audio stream both sides agreed on: what the RTP layer needs. */
export interface NegotiatedMedia {
  /** Which m= line (0-based) carries it, in the offer and the answer alike. */
  readonly mediaIndex: number
  /** Where to send RTP: an IP literal, or a domain name (remoteAddressKind 'fqdn') the caller must resolve or refuse. */
  readonly remoteAddress: string
  readonly remoteAddressKind: SdpAddressKind
  readonly remotePort: number
  /** a=rtcp's address and port (RFC 3605), else the RTP address with port + 1 (RFC 3550 §11), or the RTP port when muxed. */
  readonly rtcpAddress: string
  readonly rtcpPort: number
  readonly rtcpMux: boolean
  /** The payload type to send the codec with: the peer's number for it. */
  readonly payloadType: number
  readonly codec: AudioCodec
  readonly clockRateHz: 8000
  /** telephone-event/8000's payload type (RFC 4733), when both sides have it. */
  readonly dtmfPayloadType?: number
  /** Packet time to send with. */
  readonly ptimeMs: number
  /** Our side's direction: sendonly means we send and do not receive. */
  readonly direction: SdpDirection
  /** The peer asked not to receive: a=sendonly, a=inactive or c=0.0.0.0 (RFC 3264 §8.4). */
  readonly onHold: boolean
}

/** The peer's end of a stream, from its description. */
export interface RemoteStream {
  readonly address: string
  readonly addressKind: SdpAddressKind
  readonly port: number
  readonly rtcpAddress: string
  readonly rtcpPort: number
  /** The peer's direction, less receiving when it wrote c=0.0.0.0. */
  readonly direction: SdpDirection
  readonly onHold: boolean
}

/** Undefined when the stream has no usable c= line: another network type than IN, or none. */
export function remoteStream(sdp: SessionDescription, media: SdpMedia, rtcpMux: boolean): RemoteStream | undefined {
  const connection = media.connections[0] ?? sdp.connection
  if (connection?.netType !== 'IN') return undefined
  const addressKind = classifyAddress(connection.addrType, connection.address)
  if (!addressKind) return undefined
  const { address } = connection
  const written = directionOf(sdp, media)
  // RFC 3264 §8.4: with c=0.0.0.0 neither RTP nor RTCP is sent to the peer, whatever a= says.
  const direction = isUnspecifiedAddress(address) ? directionFrom(canSend(written), false) : written
  const rtcp = rtcpOf(media)
  return {
    address,
    addressKind,
    port: media.port,
    rtcpAddress: rtcp?.address ?? address,
    rtcpPort: rtcp?.port ?? (rtcpMux ? media.port : media.port + 1),
    direction,
    onHold: !canReceive(direction),
  }
}

/** Formats of an RTP m= line that are G.711 we speak, in the line's order. */
export function commonCodecs(media: SdpMedia, codecs: readonly AudioCodec[]): Array<{ codec: AudioCodec; payloadType: number }> {
  const found: Array<{ codec: AudioCodec; payloadType: number }> = []
  for (const format of media.formats) {
    const codec = audioCodecOf(formatOf(media, format))
    if (codec && codecs.includes(codec)) found.push({ codec, payloadType: Number(format) })
  }
  return found
}

/** The first telephone-event/8000 format of an m= line. */
export function telephoneEventFormat(media: SdpMedia): string | undefined {
  return media.formats.find((format) => isTelephoneEvent8k(formatOf(media, format)))
}

/**
 * The packet time to send with: the peer's a=ptime when our packetizer can do it and it is within
 * the peer's a=maxptime; else ours, or the largest we can do within a=maxptime.
 */
export function choosePtime(audio: Pick<ResolvedAudio, 'ptimeMs' | 'ptimesMs'>, sdp: SessionDescription, media: SdpMedia): number {
  const asked = millisecondsOf(sdp, media, 'ptime')
  const max = millisecondsOf(sdp, media, 'maxptime') ?? Number.POSITIVE_INFINITY
  if (asked !== undefined && asked <= max && audio.ptimesMs.includes(asked)) return asked
  if (audio.ptimeMs <= max) return audio.ptimeMs
  const fitting = audio.ptimesMs.filter((p) => p <= max)
  return fitting.length > 0 ? Math.max(...fitting) : Math.min(...audio.ptimesMs)
}
