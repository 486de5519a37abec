import net from 'node:net'
import { checkHost, type GuardOptions } from '../../core/index.js'
import { type NameAddr, type Peer, requestTarget, SipUri, type Uri } from '../../sip/index.js'

/**
 * Where a request for `uri` goes (RFC 3263 reduced to what trunks use: the URI's host, its port
 * or 5060, its `transport` parameter or the given default; no NAPTR/SRV). The host passes the
 * outbound guard: a name is resolved and every answer checked; a private, loopback or metadata
 * address is refused unless the operator allows its range. Throws DestinationRefusedError.
 */
export async function peerForUri(uri: Uri, defaultTransport: string, guard: GuardOptions): Promise<Peer> {
  if (!(uri instanceof SipUri)) throw new TypeError(`cannot route to a ${uri.scheme}: URI`)
  const host = uri.host.replace(/^\[(.*)\]$/, '$1')
  const [first] = await checkHost(host, guard)
  const transport = (uri.params.get('transport') ?? defaultTransport).toUpperCase()
  return { transport, host: first!.address, port: uri.port ?? 5060 }
}

/** The next hop of an in-dialog request (§12.2.1.1): the first loose route, else the remote target. */
export function nextHopUri(remoteTarget: Uri, routeSet: readonly NameAddr[]): Uri {
  const { uri, route } = requestTarget(remoteTarget, routeSet)
  return route[0]?.uri ?? uri
}

/** A host for a URI or Via: IPv6 in brackets. */
export const uriHost = (host: string): string => (net.isIPv6(host) ? `[${host}]` : host)
