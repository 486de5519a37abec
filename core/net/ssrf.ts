/**
 * The outbound-request guard (SSRF): decides whether a URL given by a tenant (an integration's
 * target, a credential's base URL, a webhook endpoint) may be fetched from this server, and pins
 * the connection to the addresses it checked so a second DNS answer cannot swap in another
 * (DNS rebinding). Rules, in order:
 *  1. only http: and https:, and no user:password in the URL; any port;
 *  2. the host is resolved (every A and AAAA answer; an IP literal as is — the WHATWG URL parser
 *     has already turned decimal, octal and hex IPv4 spellings such as 2130706433, 0177.0.0.1 and
 *     0x7f.1 into dotted quads);
 *  3. every address must be public: IPv4 and IPv6 special-purpose ranges (RFC 6890 and its IANA
 *     registries) are refused, and IPv6 forms that carry an IPv4 address (mapped, compatible,
 *     SIIT-translated, NAT64 64:ff9b::/96, 6to4 2002::/16) are judged by that IPv4 address;
 *  4. no address of this server itself (its listen address; every interface address when it
 *     listens on all of them): a public address of the host reaches the API and its neighbours;
 *  5. unless the operator allows it: an address inside an allow-listed CIDR range passes rules 3–4.
 * Tenant-chosen provider base URLs, integration targets and webhook endpoints all go through it;
 * the operator's own settings (OZAN_*_BASE_URL) do not.
 */
import dns from 'node:dns'
import net from 'node:net'
import os from 'node:os'

export type RefusalReason =
  | 'invalid_url'
  | 'scheme'
  | 'credentials'
  | 'unresolvable'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'metadata'
  | 'cgnat'
  | 'multicast'
  | 'broadcast'
  | 'unique_local'
  | 'reserved'
  | 'self'

const REASON_TEXT: Record<RefusalReason, string> = {
  invalid_url: 'is not a valid URL',
  scheme: 'must use http or https',
  credentials: 'must not contain a user name or password',
  unresolvable: 'has a host name that does not resolve',
  unspecified: 'resolves to an unspecified address (0.0.0.0 or ::)',
  loopback: 'resolves to a loopback address',
  private: 'resolves to a private address',
  link_local: 'resolves to a link-local address',
  metadata: 'resolves to a cloud metadata address',
  cgnat: 'resolves to a carrier-grade NAT address (100.64.0.0/10)',
  multicast: 'resolves to a multicast address',
  broadcast: 'resolves to the broadcast address',
  unique_local: 'resolves to a unique-local IPv6 address (fc00::/7)',
  reserved: 'resolves to a reserved or non-routable address',
  self: 'resolves to an address of this server',
}

/** A refused destination. The message names the rule, never anything fetched. */
export class DestinationRefusedError extends Error {
  readonly code = 'destination_refused'
  constructor(
    readonly reason: RefusalReason,
    readonly address?: string,
  ) {
    super(
      `The destination ${REASON_TEXT[reason]}${address ? ` (${address})` : ''}; it is refused unless the operator allows its range (OZAN_ALLOW_PRIVATE_CIDRS).`,
    )
    this.name = 'DestinationRefusedError'
  }
}

// Most specific first: the first list holding an address names the reason.
const RANGES: [RefusalReason, 'ipv4' | 'ipv6', string, number][] = [
  ['metadata', 'ipv4', '169.254.169.254', 32],
  ['metadata', 'ipv6', 'fd00:ec2::254', 128],
  ['broadcast', 'ipv4', '255.255.255.255', 32],
  ['unspecified', 'ipv4', '0.0.0.0', 8],
  ['unspecified', 'ipv6', '::', 128],
  ['loopback', 'ipv4', '127.0.0.0', 8],
  ['loopback', 'ipv6', '::1', 128],
  ['private', 'ipv4', '10.0.0.0', 8],
  ['private', 'ipv4', '172.16.0.0', 12],
  ['private', 'ipv4', '192.168.0.0', 16],
  ['cgnat', 'ipv4', '100.64.0.0', 10],
  ['link_local', 'ipv4', '169.254.0.0', 16],
  ['link_local', 'ipv6', 'fe80::', 10],
  ['multicast', 'ipv4', '224.0.0.0', 4],
  ['multicast', 'ipv6', 'ff00::', 8],
  ['unique_local', 'ipv6', 'fc00::', 7],
  ['reserved', 'ipv4', '192.0.0.0', 24], // IETF protocol assignments
  ['reserved', 'ipv4', '192.0.2.0', 24], // documentation (TEST-NET-1..3)
  ['reserved', 'ipv4', '198.51.100.0', 24],
  ['reserved', 'ipv4', '203.0.113.0', 24],
  ['reserved', 'ipv4', '192.88.99.0', 24], // 6to4 relay anycast
  ['reserved', 'ipv4', '198.18.0.0', 15], // benchmarking
  ['reserved', 'ipv4', '240.0.0.0', 4], // future use
  ['reserved', 'ipv6', 'fec0::', 10], // site-local (deprecated)
  ['reserved', 'ipv6', '100::', 64], // discard-only
  ['reserved', 'ipv6', '2001:db8::', 32], // documentation
  ['reserved', 'ipv6', '2001::', 32], // Teredo: the IPv4 inside is obfuscated, so none is trusted
  ['reserved', 'ipv6', '64:ff9b:1::', 48], // local-use NAT64
]
const LISTS = new Map<RefusalReason, net.BlockList>()
for (const [reason, family, address, prefix] of RANGES) {
  const list = LISTS.get(reason) ?? LISTS.set(reason, new net.BlockList()).get(reason)!
  list.addSubnet(address, prefix, family)
}

/** The eight 16-bit groups of an IPv6 address (dotted-quad tail allowed); null when not IPv6. */
function ipv6Groups(ip: string): number[] | null {
  if (net.isIPv6(ip) === false) return null
  let text = ip.split('%')[0]!
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)
  if (quad) {
    const [a, b, c, d] = quad[1]!.split('.').map(Number) as [number, number, number, number]
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head, tail] = text.includes('::') ? (text.split('::') as [string, string]) : [text, undefined]
  const part = (s: string) => (s ? s.split(':').map((g) => parseInt(g, 16)) : [])
  const left = part(head)
  const right = tail === undefined ? [] : part(tail)
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right]
}

const quadOf = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`

/**
 * The IPv4 address an IPv6 address stands for or carries, if any: ::ffff:a.b.c.d (mapped),
 * ::a.b.c.d (compatible, deprecated), ::ffff:0:a.b.c.d (SIIT), 64:ff9b::a.b.c.d (NAT64) and
 * 2002:aabb:ccdd:: (6to4). Each reaches, or may be routed to, that IPv4 host.
 */
export function embeddedIpv4(ip: string): string | null {
  const g = ipv6Groups(ip)
  if (!g) return null
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0)
  if (zeros(0, 5) && g[5] === 0xffff) return quadOf(g[6]!, g[7]!)
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return quadOf(g[6]!, g[7]!)
  // :: and ::1 are themselves (unspecified, loopback), not compatible forms of 0.0.0.x.
  if (zeros(0, 6) && (g[6] !== 0 || g[7]! > 1)) return quadOf(g[6]!, g[7]!)
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return quadOf(g[6]!, g[7]!)
  if (g[0] === 0x2002) return quadOf(g[1]!, g[2]!)
  return null
}

function rangeReason(ip: string, family: 'ipv4' | 'ipv6'): RefusalReason | null {
  for (const [reason, list] of LISTS) if (list.check(ip, family)) return reason
  return null
}

/** Why an IP address may not be reached (rule 3), or null when it is public. */
export function addressRefusal(ip: string): RefusalReason | null {
  if (net.isIPv4(ip)) return rangeReason(ip, 'ipv4')
  if (!net.isIPv6(ip)) return 'invalid_url'
  const inner = embeddedIpv4(ip)
  return (inner === null ? null : rangeReason(inner, 'ipv4')) ?? rangeReason(ip.split('%')[0]!, 'ipv6')
}

/** The operator's allowed ranges ("127.0.0.0/8", "fd00::/8"); throws on a malformed one. */
export function allowList(cidrs: readonly string[]): net.BlockList {
  const list = new net.BlockList()
  for (const cidr of cidrs) {
    const [address = '', prefix = ''] = cidr.split('/')
    const family = net.isIP(address)
    if (!family || !/^\d{1,3}$/.test(prefix)) throw new Error(`Not a CIDR range: ${cidr}`)
    list.addSubnet(address, Number(prefix), family === 4 ? 'ipv4' : 'ipv6')
  }
  return list
}

/** Whether an address, or the IPv4 address it carries, is in the list. */
function inList(ip: string, list: net.BlockList): boolean {
  const inner = embeddedIpv4(ip)
  return list.check(ip.split('%')[0]!, net.isIPv4(ip) ? 'ipv4' : 'ipv6') || (inner !== null && list.check(inner, 'ipv4'))
}

export interface ResolvedAddress {
  address: string
  family: 4 | 6
}
/** Every address a host name resolves to (A and AAAA). Injectable so tests can point a name anywhere. */
export type ResolveHost = (hostname: string) => Promise<ResolvedAddress[]>

export const systemResolve: ResolveHost = async (hostname) =>
  (await dns.promises.lookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }))

export interface GuardOptions {
  /** Ranges the operator allows although rules 3–4 refuse them (OZAN_ALLOW_PRIVATE_CIDRS). */
  allow?: net.BlockList
  resolve?: ResolveHost
  /** This server's own addresses (rule 4), from ownAddresses(). */
  own?: net.BlockList
}

/** A URL that passed the guard, with the only addresses a connection for it may use. */
export interface CheckedUrl {
  url: URL
  addresses: ResolvedAddress[]
}

const familyOf = (ip: string): 'ipv4' | 'ipv6' => (net.isIPv4(ip) ? 'ipv4' : 'ipv6')

/**
 * Rules 2–5 for a host (a name, or an IP literal without brackets): every address it stands for,
 * each checked. Throws DestinationRefusedError ('unresolvable' when DNS gives no answer).
 */
export async function checkHost(host: string, o: GuardOptions = {}): Promise<ResolvedAddress[]> {
  let addresses: ResolvedAddress[]
  if (net.isIP(host)) addresses = [{ address: host, family: net.isIPv6(host) ? 6 : 4 }]
  else {
    try {
      addresses = await (o.resolve ?? systemResolve)(host)
    } catch {
      throw new DestinationRefusedError('unresolvable')
    }
    if (!addresses.length) throw new DestinationRefusedError('unresolvable')
  }
  const allow = o.allow ?? new net.BlockList()
  // One bad answer refuses the host: which answer a connection would use is not ours to choose.
  for (const { address } of addresses) {
    const reason = addressRefusal(address) ?? (o.own && inList(address, o.own) ? 'self' : null)
    if (reason && !inList(address, allow)) throw new DestinationRefusedError(reason, address)
  }
  return addresses
}

/** Applies rules 1–5; throws DestinationRefusedError naming the first rule broken. */
export async function assertPublicUrl(input: string | URL, o: GuardOptions = {}): Promise<CheckedUrl> {
  let url: URL
  try {
    url = new URL(input)
  } catch {
    throw new DestinationRefusedError('invalid_url')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new DestinationRefusedError('scheme')
  if (url.username || url.password) throw new DestinationRefusedError('credentials')
  return { url, addresses: await checkHost(url.hostname.replace(/^\[(.*)\]$/, '$1'), o) }
}

/** Whether every address lies in the operator's allowed ranges (plain http is accepted only there). */
export function allAllowed(addresses: readonly ResolvedAddress[], allow: net.BlockList | undefined): boolean {
  return allow !== undefined && addresses.every((a) => inList(a.address, allow))
}

/**
 * This server's own addresses (rule 4) for the addresses it listens on (the API's, the call
 * engine's): each one, or every interface address for one that listens on all (0.0.0.0, ::).
 */
export function ownAddresses(
  listenHosts: string | readonly string[],
  interfaces: NodeJS.Dict<os.NetworkInterfaceInfo[]> = os.networkInterfaces(),
): net.BlockList {
  const list = new net.BlockList()
  const every = () => Object.values(interfaces).flatMap((infos) => (infos ?? []).map((i) => i.address))
  for (const listenHost of typeof listenHosts === 'string' ? [listenHosts] : listenHosts) {
    const host = listenHost.replace(/^\[(.*)\]$/, '$1')
    const wildcard = host === '' || host === '0.0.0.0' || host === '::'
    for (const address of wildcard ? every() : [host]) {
      const bare = address.split('%')[0]!
      if (net.isIP(bare)) list.addAddress(bare, familyOf(bare))
    }
  }
  return list
}

/** The guard's refusal anywhere in an error's cause chain (SDKs wrap what the connector threw). */
export function destinationRefusal(err: unknown): DestinationRefusedError | null {
  for (let e = err, depth = 0; e instanceof Error && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof DestinationRefusedError) return e
  }
  return null
}

/**
 * A `lookup` for net/http/https that answers only with the checked addresses, so the socket
 * connects where the guard looked, whatever DNS says now. TLS still verifies the URL's host name.
 */
export function pinnedLookup(checked: CheckedUrl): net.LookupFunction {
  return ((_hostname: string, options: dns.LookupOptions, callback: (...args: unknown[]) => void) => {
    const wanted = options.family === 4 || options.family === 6 ? checked.addresses.filter((a) => a.family === options.family) : checked.addresses
    if (!wanted.length) return callback(Object.assign(new Error('No checked address of the requested family'), { code: 'ENOTFOUND' }))
    if (options.all) return callback(null, wanted)
    callback(null, wanted[0]!.address, wanted[0]!.family)
  }) as net.LookupFunction
}
