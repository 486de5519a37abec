/**
 * One phone call's media, the thin adapter around the pure cores: a port pair from the media io
 * (io/: the media worker's sockets, or the main thread's), its datagrams feeding the RTP session,
 * the session's packets out through it with the time each should leave, RTCP reports every
 * `rtcpIntervalMs`, and the engine's transport on top. The SIP side (the call's dialog) opens it
 * before its SDP (the port goes in the offer or answer), applies every negotiation, and closes it.
 */
import type { Logger } from '../../core/index.js'
import { type PlayoutClock, realPlayoutClock, type TimerId } from '../../engine/pipeline/playout-clock.js'
import type { JitterBufferOptions, NegotiatedMedia } from '../../sip/index.js'
import { DtmfOut, type DtmfOutOptions } from './dtmf-out.js'
import { PhoneCallTransport, type PhoneTransportOptions } from './phone-transport.js'
import type { MediaEndpoint, MediaIo } from './io/types.js'
import type { ReceiveOutput } from './rtp-receiver.js'
import { RtpSession } from './rtp-session.js'
import type { CallMedia, CallMediaStats, PhoneSignals } from './types.js'

export interface OpenCallMediaOptions {
  readonly io: MediaIo
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
  const endpoint = await options.io.allocate(options.host)
  return new UdpCallMedia(endpoint, options)
}

class UdpCallMedia implements PhoneCallMedia {
  readonly transport: PhoneCallTransport
  private readonly session: RtpSession
  private readonly dtmf: DtmfOut
  private readonly clock: PlayoutClock
  private rtcpTimer: TimerId | undefined
  private closed = false
  private warnedSend = false

  constructor(
    private readonly endpoint: MediaEndpoint,
    private readonly options: OpenCallMediaOptions,
  ) {
    this.clock = options.clock ?? realPlayoutClock
    this.session = new RtpSession((channel, bytes, address, port, sendAtMs, sequenced) => endpoint.send(channel, bytes, address, port, sendAtMs, sequenced), {
      ...(options.latch !== undefined && { latch: options.latch }),
      ...(options.random && { random: options.random }),
      ...(options.wallClockMs && { wallClockMs: options.wallClockMs }),
      ...(options.jitter && { jitter: options.jitter }),
    })
    this.dtmf = new DtmfOut(this.session.sender, this.clock, options.dtmf)
    this.transport = new PhoneCallTransport(
      { session: this.session, line: endpoint, dtmf: this.dtmf, clock: this.clock, signals: options.signals },
      options.transport,
    )
    endpoint.listen({
      datagram: (channel, bytes, address, port, atMs) => this.logLatch(this.transport.receive(bytes, channel, address, port, atMs)),
      unsent: (packets, octets) => this.session.sender.unsent(packets, octets),
      sendError: (message) => this.sendFailed(message),
      // Receive errors (ICMP unreachable on some platforms) do not end a call: the SIP side does.
      socketError: (channel, message) =>
        options.logger.warn({ err: message, channel, port: channel === 'rtp' ? endpoint.rtpPort : endpoint.rtcpPort }, 'rtp socket error'),
      lost: (reason) => {
        options.logger.warn({ port: this.localPort, reason }, 'rtp media lost')
        this.close()
      },
    })
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
    this.endpoint.close()
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

  private sendFailed(message: string): void {
    this.session.sendFailed()
    if (this.warnedSend || this.closed) return
    this.warnedSend = true // once a call: the count is in stats()
    this.options.logger.warn({ err: message, port: this.localPort }, 'rtp send failed')
  }
}
