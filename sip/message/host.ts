import { isIPv6 } from 'node:net'

// host = hostname / IPv4address / IPv6reference (§25.1).

/** hostname = *( domainlabel "." ) toplabel [ "." ]; toplabel starts with a letter. */
export function isHostname(s: string): boolean {
  if (s.length === 0 || s.length > 255) return false
  const name = s.endsWith('.') ? s.slice(0, -1) : s
  const labels = name.split('.')
  for (const label of labels) {
    if (label.length === 0 || label.length > 63) return false
    if (label.startsWith('-') || label.endsWith('-')) return false
    for (let i = 0; i < label.length; i++) {
      const c = label.charCodeAt(i)
      const alnum = (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)
      if (!alnum && c !== 0x2d) return false
    }
  }
  const top = labels[labels.length - 1]!.charCodeAt(0)
  return (top >= 0x41 && top <= 0x5a) || (top >= 0x61 && top <= 0x7a)
}

/** IPv4address = 1*3DIGIT "." 1*3DIGIT "." 1*3DIGIT "." 1*3DIGIT (§25.1): leading zeros allowed, each at most 255. */
export function isIPv4Address(s: string): boolean {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s)
  return m?.slice(1).every((octet) => Number(octet) <= 255) === true
}

/** IPv6 as RFC 3261 writes it: no zone identifier (a '%' would read as an escape in a URI). */
function isIPv6Address(s: string): boolean {
  return !s.includes('%') && isIPv6(s)
}

/** IPv6reference = "[" IPv6address "]" */
export function isIPv6Reference(s: string): boolean {
  return s.length > 2 && s.startsWith('[') && s.endsWith(']') && isIPv6Address(s.slice(1, -1))
}

export function isHost(s: string): boolean {
  return isIPv4Address(s) || isIPv6Reference(s) || isHostname(s)
}

/** Via's received (§20.42, RFC 3581): an IP address, IPv6 with or without brackets. */
export function isAddress(s: string): boolean {
  return isIPv4Address(s) || isIPv6Address(s) || isIPv6Reference(s)
}

/**
 * hostport = host [ ":" port ]. The port is 0-65535. Undefined when malformed.
 */
export function parseHostPort(s: string): { host: string; port?: number } | undefined {
  let host: string
  let rest: string
  if (s.startsWith('[')) {
    const close = s.indexOf(']')
    if (close < 0) return undefined
    host = s.slice(0, close + 1)
    rest = s.slice(close + 1)
  } else {
    const colon = s.indexOf(':')
    host = colon < 0 ? s : s.slice(0, colon)
    rest = colon < 0 ? '' : s.slice(colon)
  }
  if (!isHost(host)) return undefined
  if (rest === '') return { host }
  if (!rest.startsWith(':') || !/^\d{1,5}$/.test(rest.slice(1))) return undefined
  const port = Number(rest.slice(1))
  return port <= 65535 ? { host, port } : undefined
}
