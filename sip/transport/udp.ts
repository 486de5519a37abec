import dgram from 'node:dgram'
import net from 'node:net'
import { DEFAULT_LIMITS, parseSipMessage, type SipLimits, type SipMessage, type SipResponse } from '../message/index.js'
import type { Peer } from '../transaction/index.js'
import { admitMessage, type ListenerStats, type MessageHandler, newStats } from './inbound.js'
import { SourceLimiter, type SourceLimits } from './source-limiter.js'

export interface UdpListenerOptions {
  host: string
  /** 0 picks a free port (tests). */
  port: number
  onMessage: MessageHandler
  limits?: Partial<SipLimits>
  sourceLimits?: Partial<SourceLimits>
  now?: () => number
}

// A CRLF keep-alive (RFC 5626 §4.4.1 uses STUN over UDP; phones also send bare CRLFs): no message.
const isKeepalive = (b: Buffer) => b.length <= 4 && b.every((c) => c === 0x0d || c === 0x0a || c === 0x00)

/**
 * SIP over UDP (§18): one socket, one datagram per message. Bytes go through the source limiter
 * and the parser (never throws) before the handler sees a message; sending takes an IP literal
 * (names are resolved, and checked by the outbound guard, before a Peer is made).
 */
export class UdpSipListener {
  readonly stats: ListenerStats = newStats()
  readonly limiter: SourceLimiter
  readonly #socket: dgram.Socket
  readonly #options: UdpListenerOptions
  readonly #limits: SipLimits
  #port = 0

  private constructor(options: UdpListenerOptions) {
    this.#options = options
    this.#limits = { ...DEFAULT_LIMITS, ...options.limits }
    this.limiter = new SourceLimiter(options.sourceLimits)
    this.#socket = dgram.createSocket({ type: net.isIPv6(options.host) ? 'udp6' : 'udp4' })
    this.#socket.on('message', (bytes, rinfo) => this.#receive(bytes, rinfo))
    // A send to an unreachable port reports ICMP errors here on some systems: not fatal to the listener.
    this.#socket.on('error', () => {})
  }

  static async listen(options: UdpListenerOptions): Promise<UdpSipListener> {
    const listener = new UdpSipListener(options)
    await new Promise<void>((resolve, reject) => {
      listener.#socket.once('error', reject)
      listener.#socket.bind(options.port, options.host, () => {
        listener.#socket.off('error', reject)
        resolve()
      })
    })
    listener.#port = listener.#socket.address().port
    return listener
  }

  get port(): number {
    return this.#port
  }

  send(message: SipMessage, target: Peer): Promise<void> {
    if (net.isIP(target.host) === 0) return Promise.reject(new Error(`UDP send needs an IP address, got ${target.host}`))
    const bytes = message.serialize()
    return new Promise((resolve, reject) => this.#socket.send(bytes, target.port, target.host, (err) => (err ? reject(err) : resolve())))
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.#socket.close(() => resolve()))
  }

  #receive(bytes: Buffer, rinfo: dgram.RemoteInfo): void {
    if (isKeepalive(bytes)) return
    const source: Peer = { transport: 'UDP', host: rinfo.address, port: rinfo.port }
    admitMessage({
      parsed: parseSipMessage(bytes, { transport: 'datagram', limits: this.#limits }),
      source,
      limiter: this.limiter,
      nowMs: this.#options.now ? this.#options.now() : performance.now(),
      stats: this.stats,
      reply: (response: SipResponse) => void this.send(response, source).catch(() => {}),
      deliver: this.#options.onMessage,
    })
  }
}
