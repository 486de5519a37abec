/**
 * One call's RTP session, a pure core: the receiver, the sender and RTCP, pointed by the SDP's
 * negotiation (`apply`) and sending through an injected `send(channel, bytes, address, port)`
 * (the bytes are valid during the call only). No sockets, no timers: the adapter (call-media.ts)
 * feeds it datagrams and the transport (phone-transport.ts) pulls a frame every 20 ms.
 */
import { type JitterBufferOptions, type JitterFrame, looksLikeRtcp, type NegotiatedMedia } from '../../sip/index.js'
import { isUnspecified, RemoteSource } from './remote-source.js'
import { RtcpReporter } from './rtcp-reporter.js'
import { type ReceiveOutput, RtpReceiver } from './rtp-receiver.js'
import { RtpSender } from './rtp-sender.js'
import type { CallMediaStats } from './types.js'

export type MediaChannel = 'rtp' | 'rtcp'
/**
 * A packet out: to leave at `sendAtMs` (at once when that is now or past); `sequenced` marks RTP
 * data packets, which an io holding them until their time may renumber (io/types.ts).
 */
export type MediaSend = (channel: MediaChannel, bytes: Uint8Array, address: string, port: number, sendAtMs: number, sequenced: boolean) => void

export interface RtpSessionOptions {
  /** Symmetric RTP (RFC 4961): follow the peer to another port of its negotiated address, once (remote-source.ts). */
  readonly latch: boolean
  /** Uniform in [0, 1): SSRC, first sequence number and timestamp (RFC 3550 §5.1), CNAME. */
  readonly random: () => number
  /** Unix milliseconds, for SR NTP timestamps and round-trip times only. */
  readonly wallClockMs: () => number
  /** See rtp-sender.ts: the engine's playout sends up to 60 ms ahead, so two frames of slack. */
  readonly talkspurtGapMs: number
  readonly jitter: Partial<JitterBufferOptions>
}

export const DEFAULT_RTP_SESSION: RtpSessionOptions = Object.freeze({
  latch: false,
  random: Math.random,
  wallClockMs: () => Date.now(),
  talkspurtGapMs: 40,
  jitter: Object.freeze({}),
})

const NOTHING: readonly ReceiveOutput[] = Object.freeze([])

export class RtpSession {
  readonly receiver: RtpReceiver
  readonly sender: RtpSender
  readonly rtcp: RtcpReporter
  private readonly options: RtpSessionOptions
  private media: NegotiatedMedia | undefined
  private rtpSource: RemoteSource | undefined
  private rtcpSource: RemoteSource | undefined
  private sendErrors = 0

  constructor(
    private readonly send: MediaSend,
    options: Partial<RtpSessionOptions> = {},
  ) {
    const o = { ...DEFAULT_RTP_SESSION, ...options }
    this.options = o
    const random32 = () => Math.floor(o.random() * 2 ** 32) >>> 0
    const init = { ssrc: random32(), sequenceNumber: random32() & 0xffff, timestamp: random32(), talkspurtGapMs: o.talkspurtGapMs }
    this.receiver = new RtpReceiver(o.jitter)
    this.sender = new RtpSender(init, (bytes, sendAtMs) => this.sendRtp(bytes, sendAtMs))
    // RFC 7022 §4.2: a random CNAME per call, nothing about the host.
    const cname = Array.from({ length: 4 }, () => random32().toString(16).padStart(8, '0')).join('')
    this.rtcp = new RtcpReporter(init.ssrc, cname, o.wallClockMs)
  }

  get started(): boolean {
    return this.media !== undefined
  }

  /**
   * A negotiation: the first starts the session, later ones re-point it (re-INVITE, hold, resume).
   * A new remote address or port makes new source filters (any latch is forgotten); the jitter
   * buffer follows a new SSRC by itself.
   */
  apply(media: NegotiatedMedia): void {
    if (media.remoteAddressKind === 'fqdn') throw new RangeError(`resolve the SDP's media address first: ${media.remoteAddress}`)
    const { latch } = this.options
    if (this.rtpSource?.address !== media.remoteAddress || this.rtpSource.port !== media.remotePort)
      this.rtpSource = new RemoteSource(media.remoteAddress, media.remotePort, latch)
    if (media.rtcpMux) this.rtcpSource = this.rtpSource
    else if (this.rtcpSource === this.rtpSource || this.rtcpSource?.address !== media.rtcpAddress || this.rtcpSource.port !== media.rtcpPort)
      this.rtcpSource = new RemoteSource(media.rtcpAddress, media.rtcpPort, latch)
    this.media = media
    const weSend = media.direction === 'sendrecv' || media.direction === 'sendonly'
    const { payloadType, codec, dtmfPayloadType, ptimeMs } = media
    this.receiver.configure({ source: this.rtpSource, payloadType, codec, dtmfPayloadType })
    this.sender.configure({ payloadType, codec, dtmfPayloadType, ptimeMs, sending: weSend && !media.onHold && !isUnspecified(media.remoteAddress) })
  }

  /** A datagram from our RTP or RTCP socket. RTCP on the RTP socket (RFC 5761 mux) is told by its packet type. */
  receive(bytes: Uint8Array, channel: MediaChannel, address: string, port: number, nowMs: number): readonly ReceiveOutput[] {
    if (channel === 'rtp' && !looksLikeRtcp(bytes)) return this.receiver.receive(bytes, address, port, nowMs)
    const source = channel === 'rtcp' ? this.rtcpSource : this.rtpSource
    if (!source) return this.receiver.drop('no_remote')
    const verdict = source.check(address, port)
    if (verdict === 'wrong_address' || verdict === 'wrong_port') return this.receiver.drop(verdict)
    const before = this.rtcp.counters.received
    this.rtcp.receive(bytes, nowMs, this.receiver.stats)
    if (verdict === 'latch' && this.rtcp.counters.received > before) {
      source.latchTo(port)
      return [{ kind: 'latched', channel, port }]
    }
    return NOTHING
  }

  pull(nowMs: number): JitterFrame {
    return this.receiver.pull(nowMs)
  }

  tick(nowMs: number): readonly ReceiveOutput[] {
    return this.receiver.tick(nowMs)
  }

  writeFrame(frame8k: Int16Array, nowMs: number): void {
    this.sender.writeFrame(frame8k, nowMs)
  }

  clear(): void {
    this.sender.clear()
  }

  /** An SR or RR now (call every 5 s, rtcp-reporter.ts says why). */
  report(nowMs: number): void {
    if (this.media && !isUnspecified(this.media.rtcpAddress)) this.sendRtcp(this.rtcp.report(nowMs, this.sender.stats, this.receiver.stats), nowMs)
  }

  /** RTCP BYE (§6.6): the adapter calls it once, at close. */
  bye(nowMs: number): void {
    if (this.media && !isUnspecified(this.media.rtcpAddress)) this.sendRtcp(this.rtcp.bye(nowMs, this.receiver.stats), nowMs)
  }

  /** The adapter's socket refused a datagram. */
  sendFailed(): void {
    this.sendErrors++
  }

  stats(): Omit<CallMediaStats, 'ticks' | 'framesDelivered' | 'skippedTicks'> {
    const r = this.receiver.counters
    const s = this.sender.counters
    return {
      packetsIn: r.packets,
      packetsOut: s.audioPackets + s.dtmfPackets,
      rtcpIn: this.rtcp.counters.received,
      rtcpOut: this.rtcp.counters.sent,
      dropped: { ...r.dropped, rtcp_malformed: this.rtcp.counters.malformed },
      otherCodecPackets: r.otherCodec,
      dtmfIn: r.dtmfPresses,
      dtmfPacketsOut: s.dtmfPackets,
      latched: this.rtpSource?.latched === true,
      framesSuppressed: s.framesSuppressed,
      packetsUnsent: s.packetsUnsent,
      talkspurts: s.talkspurts,
      sendErrors: this.sendErrors,
      jitter: this.receiver.jitter.stats,
      remote: this.rtcp.remote,
    }
  }

  private sendRtp(bytes: Uint8Array, sendAtMs: number): void {
    const source = this.rtpSource
    if (source) this.send('rtp', bytes, source.address, source.sendPort, sendAtMs, true)
  }

  private sendRtcp(bytes: Uint8Array, nowMs: number): void {
    const source = this.rtcpSource
    if (source) this.send(this.media?.rtcpMux ? 'rtp' : 'rtcp', bytes, source.address, source.sendPort, nowMs, false)
  }
}
