import { classifyAddress } from './address.js'
import type { SdpAttribute, SdpDirection, SdpMedia, SessionDescription } from './model.js'

// Typed readers for the attributes an audio call needs. parseSdp checks each of these names with
// the same readers, so on a parsed description they find every value well formed.

/** a=rtpmap:<payload type> <encoding name>/<clock rate>[/<encoding parameters>] (RFC 8866 §6.6). */
export interface RtpMap {
  readonly payloadType: number
  readonly encoding: string
  readonly clockRateHz: number
  /** Audio channels (the encoding parameters); undefined means one. */
  readonly channels?: number
}

/** a=rtcp:<port> [<nettype> <addrtype> <connection-address>] (RFC 3605 §2.1). */
export interface RtcpAttribute {
  readonly port: number
  readonly address?: string
}

export const DIRECTIONS: readonly SdpDirection[] = ['sendrecv', 'sendonly', 'recvonly', 'inactive']
const TOKEN = /^[!#$%&'*+\-.0-9A-Z^_`a-z{|}~]+$/

export function isToken(s: string): boolean {
  return TOKEN.test(s)
}

export function parsePayloadType(s: string): number | undefined {
  return /^\d{1,3}$/.test(s) && Number(s) <= 127 ? Number(s) : undefined
}

export function parsePort(s: string): number | undefined {
  return /^\d{1,5}$/.test(s) && Number(s) <= 65535 ? Number(s) : undefined
}

export function parseRtpmap(value: string): RtpMap | undefined {
  const m = /^(\d{1,3}) +([^ /]+)\/(\d{1,10})(?:\/(\d{1,3}))?$/.exec(value)
  if (!m || !isToken(m[2]!)) return undefined
  const payloadType = parsePayloadType(m[1]!)
  const clockRateHz = Number(m[3])
  const channels = m[4] === undefined ? undefined : Number(m[4])
  if (payloadType === undefined || clockRateHz < 1 || channels === 0) return undefined
  return { payloadType, encoding: m[2]!, clockRateHz, ...(channels === undefined ? {} : { channels }) }
}

/** a=fmtp:<format> <format specific parameters> (§6.15): the format and the parameters as text. */
export function parseFmtp(value: string): { format: string; parameters: string } | undefined {
  const m = /^([^ ]+) +(.*)$/.exec(value)
  return m && isToken(m[1]!) ? { format: m[1]!, parameters: m[2]!.trim() } : undefined
}

/** a=ptime and a=maxptime (§6.4, §6.5): milliseconds, a decimal allowed ("0.5"). */
export function parseMilliseconds(value: string): number | undefined {
  if (!/^\d{1,6}(?:\.\d{1,3})?$/.test(value)) return undefined
  const ms = Number(value)
  return ms > 0 ? ms : undefined
}

export function parseRtcp(value: string): RtcpAttribute | undefined {
  const fields = value.split(/ +/)
  const port = parsePort(fields[0]!)
  if (port === undefined) return undefined
  if (fields.length === 1) return { port }
  if (fields.length !== 4 || fields[1] !== 'IN' || classifyAddress(fields[2]!, fields[3]!) === undefined) return undefined
  return { port, address: fields[3]! }
}

/** Whether an attribute this module reads is well formed; any other attribute passes as it is. */
export function isWellFormedAttribute(attribute: SdpAttribute): boolean {
  const { value } = attribute
  switch (attribute.name.toLowerCase()) {
    case 'rtpmap':
      return value !== undefined && parseRtpmap(value) !== undefined
    case 'fmtp':
      return value !== undefined && parseFmtp(value) !== undefined
    case 'ptime':
    case 'maxptime':
      return value !== undefined && parseMilliseconds(value) !== undefined
    case 'rtcp':
      return value !== undefined && parseRtcp(value) !== undefined
    case 'sendrecv':
    case 'sendonly':
    case 'recvonly':
    case 'inactive':
    case 'rtcp-mux':
      return value === undefined
    default:
      return true
  }
}

function first(attributes: readonly SdpAttribute[], name: string): SdpAttribute | undefined {
  return attributes.find((a) => a.name.toLowerCase() === name)
}

/** The media's direction: its own attribute, else the session's, else sendrecv (RFC 8866 §6.7). */
export function directionOf(sdp: SessionDescription, media: SdpMedia): SdpDirection {
  const find = (attributes: readonly SdpAttribute[]) => attributes.find((a) => (DIRECTIONS as readonly string[]).includes(a.name.toLowerCase()))
  const found = find(media.attributes) ?? find(sdp.attributes)
  return found ? (found.name.toLowerCase() as SdpDirection) : 'sendrecv'
}

/** The first a=rtpmap for a payload type. */
export function rtpmapOf(media: SdpMedia, payloadType: number): RtpMap | undefined {
  for (const a of media.attributes) {
    if (a.name.toLowerCase() !== 'rtpmap' || a.value === undefined) continue
    const map = parseRtpmap(a.value)
    if (map?.payloadType === payloadType) return map
  }
  return undefined
}

/** The parameters of the first a=fmtp for a format. */
export function fmtpOf(media: SdpMedia, format: string): string | undefined {
  for (const a of media.attributes) {
    if (a.name.toLowerCase() !== 'fmtp' || a.value === undefined) continue
    const fmtp = parseFmtp(a.value)
    if (fmtp?.format === format) return fmtp.parameters
  }
  return undefined
}

/** a=ptime or a=maxptime of the media, else of the session (some agents write them there). */
export function millisecondsOf(sdp: SessionDescription, media: SdpMedia, name: 'ptime' | 'maxptime'): number | undefined {
  const found = first(media.attributes, name) ?? first(sdp.attributes, name)
  return found?.value === undefined ? undefined : parseMilliseconds(found.value)
}

export function rtcpOf(media: SdpMedia): RtcpAttribute | undefined {
  const found = first(media.attributes, 'rtcp')
  return found?.value === undefined ? undefined : parseRtcp(found.value)
}

export function hasAttribute(attributes: readonly SdpAttribute[], name: string): boolean {
  return first(attributes, name) !== undefined
}
