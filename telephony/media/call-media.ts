/**
 * One phone call's media, the thin adapter around the pure cores: a port pair from the pool, its
 * two sockets feeding the RTP session, the session's packets out through them, RTCP reports every
 * `rtcpIntervalMs`, and the engine's transport on top. The SIP side (the call's dialog) opens it
 * before its SDP (the port goes in the offer or answer), applies every negotiation, and closes it.
 */
import type { Logger } from '../../core/index.js'
import { type PlayoutClock, realPlayoutClock, type TimerId } from '../../engine/pipeline/playout-clock.js'
import type { JitterBufferOptions, NegotiatedMedia } from '../../sip/index.js'
import { DtmfOut, type DtmfOutOptions } from './dtmf-out.js'
import { PhoneCallTransport, type PhoneTransportOptions } from './phone-transport.js'
import type { RtpEndpoint, RtpPortPool } from './port-pool.js'
import type { ReceiveOutput } from './rtp-receiver.js'
import { type MediaChannel, RtpSession } from './rtp-session.js'
import type { CallMedia, CallMediaStats, PhoneSignals } from './types.js'
import { UdpOut } from './udp-out.js'

export interface OpenCallMediaOptions {
  readonly pool: RtpPortPool
  /** The local address to bind (an IP literal; IPv6 binds udp6). */
  readonly host: string
  readonly signals: PhoneSignals
  readonly logger: Pick<Logger, 'info' | 'warn' | 'debug'>
  readonly clock?: PlayoutClock
  /** Symmetric RTP latching (remote-source.ts): off unless the trunk is known to sit behind a NAT. */
  readonly latch?: boolean
  readonly random?: () => number
  readonly wallClockMs?: () => number
  /** RTCP report interval (rtcp-reporter.ts says why fixed). */
  readonly rtcpIntervalMs?: number
  readonly jitter?: Partial<JitterBufferOptions>
  readonly dtmf?: Partial<DtmfOutOptions>
  readonly transport?: Partial<PhoneTransportOptions>
}

export const DEFAULT_RTCP_INTERVAL_MS = 5000

export interface PhoneCallMedia extends CallMedia {
  readonly transport: PhoneCallTransport
}

/** Binds a port pair (PortsExhausted when none is left) and returns the call's media, not yet started. */
export async function openCallMedia(options: OpenCallMediaOptions): Promise<PhoneCallMedia> {
  const endpoint = await options.pool.allocate(options.host)
  return new UdpCallMedia(endpoint, options)
}

class UdpCallMedia implements PhoneCallMedia {
  readonly transport: PhoneCallTransport
  private readonly session: RtpSession
  private readonly dtmf: DtmfOut
  private readonly clock: PlayoutClock
  private readonly out: Record<MediaChannel, UdpOut>
  private rtcpTimer: TimerId | undefined
  private closed = false
  private warnedSend = false

  constructor(
    private readonly endpoint: RtpEndpoint,
    private readonly options: OpenCallMediaOptions,
  ) {
    this.clock = options.clock ?? realPlayoutClock
    const failed = (err: Error) => this.sendFailed(err)
    this.out = { rtp: new UdpOut(endpoint.rtp, failed), rtcp: new UdpOut(endpoint.rtcp, failed) }
    this.session = new RtpSession((channel, bytes, address, port) => this.out[channel].send(bytes, address, port), {
      ...(options.latch !== undefined && { latch: options.latch }),
      ...(options.random && { random: options.random }),
      ...(options.wallClockMs && { wallClockMs: options.wallClockMs }),
      ...(options.jitter && { jitter: options.jitter }),
    })
    this.dtmf = new DtmfOut(this.session.sender, this.clock, options.dtmf)
    this.transport = new PhoneCallTransport({ session: this.session, dtmf: this.dtmf, clock: this.clock, signals: options.signals }, options.transport)
    for (const channel of ['rtp', 'rtcp'] as const) {
      const socket = channel === 'rtp' ? endpoint.rtp : endpoint.rtcp
      socket.on('message', (msg, rinfo) => this.logLatch(this.transport.receive(msg, channel, rinfo.address, rinfo.port)))
      // Receive errors (ICMP unreachable on some platforms) do not end a call: the SIP side does.
      socket.on('error', (err) =>
        options.logger.warn({ err: err.message, channel, port: socket === endpoint.rtp ? endpoint.rtpPort : endpoint.rtcpPort }, 'rtp socket error'),
      )
    }
  }

  get localPort(): number {
    return this.endpoint.rtpPort
  }

  apply(media: NegotiatedMedia): void {
    if (this.closed) return
    this.session.apply(media)
    this.options.logger.debug(
      { port: this.localPort, remote: `${media.remoteAddress}:${media.remotePort}`, codec: media.codec, ptimeMs: media.ptimeMs, onHold: media.onHold },
      'rtp media applied',
    )
    if (this.rtcpTimer === undefined) this.scheduleReport()
  }

  /**
   * RTCP BYE, then the sockets go back to the pool and the tick stops. A transport still open
   * hears caller_left 'dropped': without media the call cannot go on. Idempotent.
   */
  close(): void {
    if (this.closed) return
    this.closed = true
    if (this.rtcpTimer !== undefined) this.clock.clearTimer(this.rtcpTimer)
    this.rtcpTimer = undefined
    this.transport.callerLeft('dropped')
    this.dtmf.close()
    this.session.bye(this.clock.now())
    this.options.pool.release(this.endpoint)
  }

  stats(): CallMediaStats {
    const t = this.transport
    return { ...this.session.stats(), ticks: t.ticks, framesDelivered: t.framesDelivered, skippedTicks: t.skippedTicks }
  }

  private logLatch(outputs: readonly ReceiveOutput[]): void {
    for (const output of outputs) {
      if (output.kind === 'latched')
        this.options.logger.info({ port: this.localPort, channel: output.channel, remotePort: output.port }, 'rtp latched to the peer port')
    }
  }

  private scheduleReport(): void {
    const intervalMs = this.options.rtcpIntervalMs ?? DEFAULT_RTCP_INTERVAL_MS
    this.rtcpTimer = this.clock.setTimer(() => {
      this.session.report(this.clock.now())
      this.scheduleReport()
    }, intervalMs)
  }

  private sendFailed(err: Error): void {
    this.session.sendFailed()
    if (this.warnedSend || this.closed) return
    this.warnedSend = true // once a call: the count is in stats()
    this.options.logger.warn({ err: err.message, port: this.localPort }, 'rtp send failed')
  }
}
