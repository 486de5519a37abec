import { classifyAddress } from './address.js'
import { isToken, parsePayloadType, parsePort } from './attributes.js'
import type { SdpBandwidth, SdpConnection, SdpMedia, SdpOrigin, SdpTiming } from './model.js'

// Readers for the structured line types (RFC 8866 §5). Each returns undefined when the value is
// malformed; fields are separated by one or more spaces (a lone SP is the grammar, but agents
// writing two are common and harmless).

const fields = (value: string): string[] => value.trim().split(/ +/)
const DIGITS = /^\d{1,20}$/

/** o=: the address is not classified: it names the originator and nothing is ever sent there. */
export function parseOrigin(value: string): SdpOrigin | undefined {
  const f = fields(value)
  if (f.length !== 6) return undefined
  const [username, sessionId, sessionVersion, netType, addrType, address] = f as [string, string, string, string, string, string]
  if (!/^\d{1,40}$/.test(sessionId) || !/^\d{1,40}$/.test(sessionVersion) || !isToken(netType) || !isToken(addrType)) return undefined
  return { username, sessionId, sessionVersion, netType, addrType, address }
}

function suffix(s: string | undefined): number | undefined {
  return s !== undefined && /^\d{1,5}$/.test(s) ? Number(s) : undefined
}

/**
 * c= (§5.7). For "IN" the address must be an IP literal of its addrtype or a domain name; an IP4
 * address may carry /ttl and /count, an IP6 one /count. Other network types are kept as text.
 */
export function parseConnection(value: string): SdpConnection | undefined {
  const f = fields(value)
  if (f.length !== 3) return undefined
  const [netType, addrType, full] = f as [string, string, string]
  if (!isToken(netType) || !isToken(addrType)) return undefined
  if (netType !== 'IN') return { netType, addrType, address: full }
  const [address, ...suffixes] = full.split('/') as [string, ...string[]]
  if (classifyAddress(addrType, address) === undefined) return undefined
  const numbers = suffixes.map(suffix)
  if (numbers.some((n) => n === undefined) || numbers.length > (addrType === 'IP4' ? 2 : 1)) return undefined
  if (numbers.length === 0) return { netType, addrType, address }
  if (addrType === 'IP6') return { netType, addrType, address, addressCount: numbers[0]! }
  return { netType, addrType, address, ttl: numbers[0]!, ...(numbers.length === 2 ? { addressCount: numbers[1]! } : {}) }
}

export function parseBandwidth(value: string): SdpBandwidth | undefined {
  const m = /^([^:]+):(\d{1,10})$/.exec(value.trim())
  return m && isToken(m[1]!) ? { type: m[1]!, value: Number(m[2]) } : undefined
}

export function parseTiming(value: string): Omit<SdpTiming, 'repeats'> | undefined {
  const f = fields(value)
  return f.length === 2 && DIGITS.test(f[0]!) && DIGITS.test(f[1]!) ? { start: f[0]!, stop: f[1]! } : undefined
}

/** Whether a transport protocol carries RTP, whose formats are payload type numbers (§5.14). */
export function isRtpProto(proto: string): boolean {
  return proto.split('/').includes('RTP')
}

/** m= without its following lines; the format count is checked by the caller against its limit. */
export function parseMediaLine(value: string): Pick<SdpMedia, 'type' | 'port' | 'portCount' | 'proto' | 'formats'> | undefined {
  const f = fields(value)
  if (f.length < 4) return undefined
  const [type, portText, proto] = f as [string, string, string]
  const formats = f.slice(3)
  const [portPart, countPart, ...more] = portText.split('/')
  const port = parsePort(portPart!)
  const portCount = countPart === undefined ? undefined : suffix(countPart)
  if (!isToken(type) || port === undefined || more.length > 0 || (countPart !== undefined && !portCount)) return undefined
  if (!proto.split('/').every(isToken)) return undefined
  const formatOk = isRtpProto(proto) ? (s: string) => parsePayloadType(s) !== undefined : isToken
  if (!formats.every(formatOk)) return undefined
  return { type, port, ...(portCount === undefined ? {} : { portCount }), proto, formats }
}
