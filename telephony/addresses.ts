import net from 'node:net'

// Shapes of the addresses a trunk names. Checked by the schema (422 at the field) before the
// outbound guard (service.ts) decides whether the host may be reached at all.

/** A DNS name (RFC 1123 labels, at least one dot or 'localhost') or an IP literal, without port. */
export function isHost(value: string): boolean {
  if (net.isIP(value)) return true
  if (value.length > 253) return false
  const labels = value.split('.')
  if (labels.length < 2 && value.toLowerCase() !== 'localhost') return false
  return labels.every((l) => /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/.test(l)) && !/^[0-9]+$/.test(labels.at(-1)!)
}

/** `host`, `host:port`, `[v6]` or `[v6]:port`; undefined when it is none of those. */
export function parseHostPort(value: string): { host: string; port: number | null } | undefined {
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(value)
  if (bracketed) {
    const port = bracketed[2] === undefined ? null : Number(bracketed[2])
    return net.isIPv6(bracketed[1]!) && (port === null || (port >= 1 && port <= 65_535)) ? { host: bracketed[1]!, port } : undefined
  }
  if (net.isIPv6(value)) return { host: value, port: null }
  const m = /^([^:]+)(?::(\d{1,5}))?$/.exec(value)
  if (!m || !isHost(m[1]!)) return undefined
  const port = m[2] === undefined ? null : Number(m[2])
  return port === null || (port >= 1 && port <= 65_535) ? { host: m[1]!, port } : undefined
}

/** An IPv4 or IPv6 address, or a CIDR range `address/prefix`, as net.BlockList takes them. */
export function parseCidr(value: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | undefined {
  const [address, prefixText, extra] = value.split('/')
  if (extra !== undefined || !address) return undefined
  const version = net.isIP(address)
  if (version === 0) return undefined
  const max = version === 4 ? 32 : 128
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return undefined
  const prefix = prefixText === undefined ? max : Number(prefixText)
  return prefix <= max ? { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' } : undefined
}

/** A BlockList of the ranges (each already valid per parseCidr). */
export function sourceList(cidrs: readonly string[]): net.BlockList {
  const list = new net.BlockList()
  for (const c of cidrs) {
    const r = parseCidr(c)
    if (r) list.addSubnet(r.address, r.prefix, r.family)
  }
  return list
}
