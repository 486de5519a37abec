/**
 * The RTP port pairs of this process's calls: RTP on an even port, RTCP on the next one (RFC 3550
 * §11), both bound as real UDP sockets before the port goes into an SDP, so an offer never names a
 * port another process holds. Ports come from `[minPort, maxPort]`, round-robin from a random
 * start: a restarted process does not hand a new call the ports that a carrier may still be
 * sending an old call's RTP to, and a released pair is the last to be reused.
 */
import dgram from 'node:dgram'
import net from 'node:net'
import { PortsExhausted } from './errors.js'
import { literalLookup } from './udp-out.js'

export interface RtpPortPoolOptions {
  readonly minPort: number
  readonly maxPort: number
  /** Uniform in [0, 1): the starting pair. Injected so tests can start at the first. */
  readonly random: () => number
}

/** 5,000 pairs: far more calls than one process carries. */
export const DEFAULT_RTP_PORTS: RtpPortPoolOptions = Object.freeze({ minPort: 10_000, maxPort: 20_000, random: Math.random })

/** One call's port pair, both sockets bound on `host`. */
export interface RtpEndpoint {
  readonly host: string
  readonly rtpPort: number
  readonly rtcpPort: number
  readonly rtp: dgram.Socket
  readonly rtcp: dgram.Socket
}

/** Bind errors that mean "this port, not the host": try the next pair. */
const PORT_TAKEN = new Set(['EADDRINUSE', 'EACCES'])

export class RtpPortPool {
  readonly options: RtpPortPoolOptions
  private readonly firstPort: number
  private readonly pairs: number
  /** Pair indexes held by our calls, or being bound right now. */
  private readonly held = new Set<number>()
  private cursor: number
  /** Pairs skipped because another process held one of their ports. */
  skippedBusy = 0

  constructor(options: Partial<RtpPortPoolOptions> = {}) {
    const o = { ...DEFAULT_RTP_PORTS, ...options }
    if (!(Number.isInteger(o.minPort) && Number.isInteger(o.maxPort) && o.minPort >= 1 && o.maxPort <= 65_535))
      throw new RangeError(`RTP ports must be integers in 1-65535, got ${o.minPort}-${o.maxPort}`)
    this.options = o
    this.firstPort = o.minPort + (o.minPort % 2)
    // Pair i is firstPort + 2i and firstPort + 2i + 1, both ≤ maxPort.
    this.pairs = Math.max(0, Math.floor((o.maxPort - 1 - this.firstPort) / 2) + 1)
    if (this.pairs === 0) throw new RangeError(`no even/odd port pair in ${o.minPort}-${o.maxPort}`)
    this.cursor = Math.min(this.pairs - 1, Math.floor(o.random() * this.pairs))
  }

  get capacity(): number {
    return this.pairs
  }

  get inUse(): number {
    return this.held.size
  }

  /**
   * Binds the next free pair on `host` (an IPv4 or IPv6 literal; udp6 for IPv6). Throws
   * PortsExhausted when every pair was held or busy; other bind errors (an address this host does
   * not have) are thrown as they come.
   */
  async allocate(host: string): Promise<RtpEndpoint> {
    for (let tried = 0; tried < this.pairs; tried++) {
      const pair = this.cursor
      this.cursor = (this.cursor + 1) % this.pairs
      if (this.held.has(pair)) continue
      this.held.add(pair)
      const rtpPort = this.firstPort + 2 * pair
      try {
        const rtp = await bindUdp(host, rtpPort)
        try {
          const rtcp = await bindUdp(host, rtpPort + 1)
          return { host, rtpPort, rtcpPort: rtpPort + 1, rtp, rtcp }
        } catch (err) {
          rtp.close()
          throw err
        }
      } catch (err) {
        this.held.delete(pair)
        if (!PORT_TAKEN.has((err as NodeJS.ErrnoException).code ?? '')) throw err
        this.skippedBusy++
      }
    }
    throw new PortsExhausted(this.options.minPort, this.options.maxPort)
  }

  /** Closes both sockets and frees the pair. Idempotent. */
  release(endpoint: RtpEndpoint): void {
    const pair = (endpoint.rtpPort - this.firstPort) / 2
    if (!this.held.delete(pair)) return
    for (const socket of [endpoint.rtp, endpoint.rtcp]) {
      try {
        socket.close()
      } catch {
        // Already closed (ERR_SOCKET_DGRAM_NOT_RUNNING): nothing to free.
      }
    }
  }
}

function bindUdp(host: string, port: number): Promise<dgram.Socket> {
  return new Promise((resolve, reject) => {
    const socket = dgram.createSocket({ type: net.isIPv6(host) ? 'udp6' : 'udp4', lookup: literalLookup })
    const failed = (err: Error) => {
      socket.close()
      reject(err)
    }
    socket.once('error', failed)
    // exclusive: a cluster worker must not share a port another worker bound.
    socket.bind({ port, address: host, exclusive: true }, () => {
      socket.off('error', failed)
      resolve(socket)
    })
  })
}
