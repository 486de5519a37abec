/**
 * A node:http(s) Agent that opens every connection through the outbound guard (ssrf.ts): the
 * host is resolved, every address checked, and the socket opened to a checked address, so a DNS
 * answer that changes after a check (rebinding) is never used. TLS still verifies the host name.
 * For clients that accept an Agent but check no URL themselves (the Deepgram SDK's WebSocket).
 */
import http from 'node:http'
import https from 'node:https'
import net from 'node:net'
import type { Duplex } from 'node:stream'
import tls from 'node:tls'
import { checkHost, DestinationRefusedError, type GuardOptions } from './ssrf.js'

type Created = (err: Error | null, socket?: Duplex) => void

/**
 * `protocol` picks the Agent's kind (node refuses an http Agent for an https request and back).
 * `onRefused` hears of a refusal before the request fails with it, for clients that pass on only
 * an error's message.
 */
export function guardedAgent(protocol: string, guard: GuardOptions, onRefused?: (err: DestinationRefusedError) => void): http.Agent {
  const secure = protocol === 'https:' || protocol === 'wss:'
  const connect = (options: http.ClientRequestArgs & tls.ConnectionOptions, created: Created): undefined => {
    const host = String(options.host ?? options.hostname ?? 'localhost').replace(/^\[(.*)\]$/, '$1')
    checkHost(host, guard).then(
      ([first]) => {
        // The agent computed servername from the name (empty for an IP literal); kept as it was.
        const target = { ...options, host: first!.address, hostname: first!.address, lookup: undefined }
        let socket: Duplex
        try {
          socket = secure ? tls.connect(target as tls.ConnectionOptions) : net.connect(target as net.NetConnectOpts)
        } catch (err) {
          return created(err as Error)
        }
        created(null, socket)
      },
      (err: Error) => {
        if (err instanceof DestinationRefusedError) onRefused?.(err)
        created(err)
      },
    )
    // node's Agent waits for `created` when nothing is returned.
    return undefined
  }
  const agent = secure ? new https.Agent() : new http.Agent()
  ;(agent as unknown as { createConnection: typeof connect }).createConnection = connect
  return agent
}
