/**
 * The connect-time half of the outbound guard for undici: before a connection to an
 * organization's provider opens, its host is resolved and every address checked (core/net); the
 * socket is then opened to the checked address itself, so a DNS answer that changes after the
 * check (rebinding) is never used. TLS still presents and verifies the URL's host name.
 */
import net from 'node:net'
import type { buildConnector } from 'undici'
import { checkHost, type GuardOptions } from '../../../core/index.js'

/** A URL's hostname as undici's connect options give it: IPv6 without brackets. */
export const bareHost = (hostname: string): string => (hostname.startsWith('[') ? hostname.slice(1, -1) : hostname)

/** `connect`, with every connection first checked; a refusal is the DestinationRefusedError itself. */
export function guardedConnector(connect: buildConnector.connector, guard: GuardOptions): buildConnector.connector {
  return (opts, callback) => {
    const host = bareHost(opts.hostname)
    checkHost(host, guard).then(
      ([checked]) => {
        const servername = opts.servername || (net.isIP(host) ? undefined : host)
        connect({ ...opts, hostname: checked!.address, ...(servername ? { servername } : {}) }, callback)
      },
      (err: Error) => callback(err, null),
    )
  }
}
