/**
 * The main thread's own sockets (`OZAN_RTP_IO=inline`): each packet leaves the moment it is
 * written (whatever its `sendAtMs`), each datagram is a 'message' event. Simpler than the media
 * worker and what it was before it; the worker keeps packets on time through the main thread's
 * pauses (docs/architecture.md, "Phone media").
 */
import type { PlayoutClock } from '../../../engine/pipeline/playout-clock.js'
import { realPlayoutClock } from '../../../engine/pipeline/playout-clock.js'
import type { RtpEndpoint, RtpPortPool } from '../port-pool.js'
import { UdpOut } from '../udp-out.js'
import type { Channel, EndpointHandlers, MediaEndpoint, MediaIo } from './types.js'

export class InlineMediaIo implements MediaIo {
  private readonly open = new Set<InlineEndpoint>()

  constructor(
    readonly pool: RtpPortPool,
    private readonly clock: PlayoutClock = realPlayoutClock,
  ) {}

  async allocate(host: string): Promise<MediaEndpoint> {
    const endpoint = new InlineEndpoint(await this.pool.allocate(host), this.pool, this.clock, (e) => this.open.delete(e))
    this.open.add(endpoint)
    return endpoint
  }

  async close(): Promise<void> {
    for (const endpoint of [...this.open]) endpoint.close()
  }
}

class InlineEndpoint implements MediaEndpoint {
  private readonly out: Record<Channel, UdpOut>
  private handlers: EndpointHandlers | undefined
  private closed = false

  constructor(
    private readonly endpoint: RtpEndpoint,
    private readonly pool: RtpPortPool,
    private readonly clock: PlayoutClock,
    private readonly onClose: (e: InlineEndpoint) => void,
  ) {
    const failed = (err: Error) => this.handlers?.sendError(err.message)
    this.out = { rtp: new UdpOut(endpoint.rtp, failed), rtcp: new UdpOut(endpoint.rtcp, failed) }
    for (const channel of ['rtp', 'rtcp'] as const) {
      const socket = endpoint[channel]
      socket.on('message', (msg, rinfo) => this.handlers?.datagram(channel, msg, rinfo.address, rinfo.port, this.clock.now()))
      socket.on('error', (err) => this.handlers?.socketError(channel, err.message))
    }
  }

  get host(): string {
    return this.endpoint.host
  }

  get rtpPort(): number {
    return this.endpoint.rtpPort
  }

  get rtcpPort(): number {
    return this.endpoint.rtcpPort
  }

  listen(handlers: EndpointHandlers): void {
    this.handlers = handlers
  }

  send(channel: Channel, bytes: Uint8Array, address: string, port: number): void {
    if (!this.closed) this.out[channel].send(bytes, address, port)
  }

  /** Nothing waits here: every packet left when it was written. */
  dropUnsent(): void {}

  /** Datagrams come as events. */
  pump(): void {}

  close(): void {
    if (this.closed) return
    this.closed = true
    this.pool.release(this.endpoint)
    this.onClose(this)
  }
}
