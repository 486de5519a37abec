import type { SipLimits, SipMessage } from '../message/index.js'
import type { Peer, SipTransport } from '../transaction/index.js'
import type { ListenerStats, MessageHandler } from './inbound.js'
import type { SourceLimits } from './source-limiter.js'
import { type TcpLimits, TcpSipListener } from './tcp.js'
import { UdpSipListener } from './udp.js'

export interface SipListenerOptions {
  host: string
  /** The SIP port, the same for UDP and TCP (5060); 0 picks a free one (tests; UDP's, then TCP tries it). */
  port: number
  transports: readonly ('udp' | 'tcp')[]
  onMessage: MessageHandler
  limits?: Partial<SipLimits>
  sourceLimits?: Partial<SourceLimits>
  tcpLimits?: Partial<TcpLimits>
}

/**
 * The UDP and TCP listeners of one address behind the transaction layer's two-member transport:
 * a message goes out on the transport its Peer names.
 */
export class SipListener implements SipTransport {
  private constructor(
    readonly udp: UdpSipListener | undefined,
    readonly tcp: TcpSipListener | undefined,
  ) {}

  static async listen(o: SipListenerOptions): Promise<SipListener> {
    if (o.transports.length === 0) throw new Error('a SIP listener needs at least one transport')
    const common = { host: o.host, onMessage: o.onMessage, limits: o.limits, sourceLimits: o.sourceLimits }
    const udp = o.transports.includes('udp') ? await UdpSipListener.listen({ ...common, port: o.port }) : undefined
    let tcp: TcpSipListener | undefined
    try {
      tcp = o.transports.includes('tcp') ? await TcpSipListener.listen({ ...common, port: udp?.port ?? o.port, tcpLimits: o.tcpLimits }) : undefined
    } catch (err) {
      await udp?.close()
      throw err
    }
    return new SipListener(udp, tcp)
  }

  get port(): number {
    return (this.udp ?? this.tcp)!.port
  }

  send(message: SipMessage, target: Peer): Promise<void> {
    const via = target.transport.toUpperCase()
    const listener = via === 'UDP' ? this.udp : via === 'TCP' ? this.tcp : undefined
    if (!listener) return Promise.reject(new Error(`no ${via} listener`))
    return listener.send(message, target)
  }

  stats(): { udp?: ListenerStats; tcp?: ListenerStats } {
    return { ...(this.udp && { udp: this.udp.stats }), ...(this.tcp && { tcp: this.tcp.stats }) }
  }

  async close(): Promise<void> {
    await Promise.all([this.udp?.close(), this.tcp?.close()])
  }
}
