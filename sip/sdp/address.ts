import { isIPv4, isIPv6 } from 'node:net'

/** What a c= or o= address is: a name needs DNS before RTP can go there, and the caller decides. */
export type SdpAddressKind = 'ipv4' | 'ipv6' | 'fqdn'

/** IPv6 without a zone identifier: a zone is local to the host that wrote it. */
function isIPv6Literal(s: string): boolean {
  return !s.includes('%') && isIPv6(s)
}

/** A domain name (RFC 1035 §2.3.1 labels, letters-digits-hyphens); the top label is not all digits. */
export function isDomainName(s: string): boolean {
  if (s.length === 0 || s.length > 253) return false
  const labels = (s.endsWith('.') ? s.slice(0, -1) : s).split('.')
  for (const label of labels) if (!/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/.test(label)) return false
  return !/^\d+$/.test(labels[labels.length - 1]!)
}

/**
 * Classifies an address of the "IN" network type for its addrtype (RFC 8866 §5.7): an IP4
 * address must not be an IPv6 literal and the other way round. Undefined when it is neither an IP
 * literal of that family nor a domain name.
 */
export function classifyAddress(addrType: string, address: string): SdpAddressKind | undefined {
  if (addrType === 'IP4') {
    if (isIPv4(address)) return 'ipv4'
  } else if (addrType === 'IP6') {
    if (isIPv6Literal(address)) return 'ipv6'
  } else return undefined
  return isDomainName(address) ? 'fqdn' : undefined
}

/** "IP4" or "IP6" for an IP literal, undefined for anything else. */
export function addrTypeOf(address: string): 'IP4' | 'IP6' | undefined {
  if (isIPv4(address)) return 'IP4'
  return isIPv6Literal(address) ? 'IP6' : undefined
}

/**
 * RFC 3264 §8.4: c=0.0.0.0 (RFC 2543's hold) means neither RTP nor RTCP is to be sent to the peer.
 * "::" is treated alike: no agent can receive on the unspecified address either.
 */
export function isUnspecifiedAddress(address: string): boolean {
  return address === '0.0.0.0' || (isIPv6Literal(address) && /^[0:]+$/.test(address))
}
