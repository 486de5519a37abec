import type { Via } from '../message/index.js'
import { isReliable } from './timers.js'

/**
 * Where a message came from or goes to. `transport` is spelled as in Via (UDP, TCP, TLS, WS, …).
 * Resolving a URI to a peer (RFC 3263) is the caller's; the transaction layer only keeps it.
 */
export interface Peer {
  readonly transport: string
  readonly host: string
  readonly port: number
  /** The connection a message arrived on over a stream transport: responses go back on it while it is open (§18.2.2). */
  readonly connectionId?: string
}

/** §18.2.2: 5060 for UDP and TCP (and others), 5061 for TLS. */
function defaultPort(transport: string): number {
  return transport.toUpperCase() === 'TLS' ? 5061 : 5060
}

/**
 * Where a response to a request from `source`, whose top Via is `via`, is sent (§18.2.2, RFC 3581 §4):
 * - over a reliable transport, on the connection the request came on; if it has closed, the transport
 *   opens one to the source address and the sent-by port;
 * - otherwise to `maddr` when the Via names one, to the source address and port when the client asked
 *   for `rport`, else to the source address (the `received` address, §18.2.1) and the sent-by port.
 */
export function responseTarget(via: Via, source: Peer): Peer {
  const transport = source.transport
  const sentByPort = via.port ?? defaultPort(transport)
  if (isReliable(transport)) {
    const port = via.rport === undefined ? sentByPort : source.port
    return source.connectionId === undefined
      ? { transport, host: source.host, port }
      : { transport, host: source.host, port, connectionId: source.connectionId }
  }
  if (via.maddr !== undefined) return { transport, host: via.maddr, port: sentByPort }
  if (via.rport !== undefined) return { transport, host: source.host, port: source.port }
  return { transport, host: source.host, port: sentByPort }
}
