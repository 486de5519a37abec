/**
 * The receive half of a call's RTP session, a pure core: each datagram with its source and arrival
 * time goes in; audio lands in the jitter buffer (pulled every 20 ms), telephone events become key
 * presses, and anything not from the peer, not RTP, or of a payload type we did not agree is
 * dropped and counted by reason.
 *
 * Bounds: a datagram is parsed, checked and either decoded into the jitter buffer's fixed ring
 * (what does not fit is dropped there, `overflowDropped`) or dropped; nothing else is kept per
 * packet, so a flood from the right address costs CPU, never memory.
 *
 * Packet size: the jitter buffer plays 20 ms frames, one per packet. A packet holding a whole
 * number of 20 ms frames (ptime 20, 40, 60) is split into frames, timestamps 160 apart; a packet
 * of 10 or 30 ms is dropped (`packet_size`): our SDP asks for 20 ms (RFC 3551's default, what
 * carriers send), and regrouping half frames would need a reassembly stage of its own.
 */
import {
  decodeAlaw,
  decodeMulaw,
  DtmfReceiver,
  type DtmfDigit,
  JitterBuffer,
  type JitterBufferOptions,
  type JitterFrame,
  type JitterPacket,
  PAYLOAD_TYPE_PCMA,
  PAYLOAD_TYPE_PCMU,
  parseRtp,
  ReceiverStats,
  type RtpPacket,
} from '../../sip/index.js'
import type { RemoteSource } from './remote-source.js'

/** 20 ms at G.711's 8000 Hz: one jitter-buffer frame. */
export const FRAME_SAMPLES_8K = 160

export type ReceiveDropReason = 'no_remote' | 'wrong_address' | 'wrong_port' | 'malformed' | 'payload_type' | 'packet_size'

export interface ReceiveConfig {
  readonly source: RemoteSource
  /** The payload type the peer sends its codec with (the SDP's number for it). */
  readonly payloadType: number
  readonly codec: 'PCMU' | 'PCMA'
  readonly dtmfPayloadType: number | undefined
}

export type ReceiveOutput =
  | { readonly kind: 'dtmf'; readonly digit: DtmfDigit; readonly durationMs: number }
  | { readonly kind: 'latched'; readonly channel: 'rtp' | 'rtcp'; readonly port: number }

export interface ReceiveCounters {
  /** RTP packets taken from the peer (audio and events). */
  packets: number
  /** Audio in the G.711 law we did not negotiate (PCMA for PCMU or the reverse): decoded all the same. */
  otherCodec: number
  dtmfPresses: number
  dropped: Record<ReceiveDropReason, number>
}

const NOTHING: readonly ReceiveOutput[] = Object.freeze([])

export class RtpReceiver {
  readonly jitter: JitterBuffer
  private readonly dtmf = new DtmfReceiver()
  private config: ReceiveConfig | undefined
  private sourceStats: ReceiverStats | undefined
  readonly counters: ReceiveCounters = {
    packets: 0,
    otherCodec: 0,
    dtmfPresses: 0,
    dropped: { no_remote: 0, wrong_address: 0, wrong_port: 0, malformed: 0, payload_type: 0, packet_size: 0 },
  }

  constructor(jitter: Partial<JitterBufferOptions> = {}) {
    this.jitter = new JitterBuffer({ ...jitter, decode: (payloadType, payload, out) => this.decode(payloadType, payload, out) })
  }

  configure(config: ReceiveConfig): void {
    this.config = config
  }

  /** §A.1-§A.8 statistics of the peer's current SSRC, for our report blocks; undefined before its first packet. */
  get stats(): ReceiverStats | undefined {
    return this.sourceStats
  }

  drop(reason: ReceiveDropReason): readonly ReceiveOutput[] {
    this.counters.dropped[reason]++
    return NOTHING
  }

  /** One datagram from the RTP socket that is not RTCP. */
  receive(bytes: Uint8Array, address: string, port: number, nowMs: number): readonly ReceiveOutput[] {
    const config = this.config
    if (!config) return this.drop('no_remote')
    const verdict = config.source.check(address, port)
    if (verdict === 'wrong_address' || verdict === 'wrong_port') return this.drop(verdict)
    const parsed = parseRtp(bytes)
    if (!parsed.ok) return this.drop('malformed')
    const packet = parsed.packet
    const isDtmf = packet.payloadType === config.dtmfPayloadType
    if (!isDtmf && !this.isAudio(packet.payloadType)) return this.drop('payload_type')
    if (!isDtmf && (packet.payload.length === 0 || packet.payload.length % FRAME_SAMPLES_8K !== 0)) return this.drop('packet_size')
    this.counters.packets++
    if (packet.ssrc !== this.sourceStats?.ssrc) this.sourceStats = new ReceiverStats(packet.ssrc)
    this.sourceStats.receive(packet.sequenceNumber, packet.timestamp, nowMs)
    let out = NOTHING
    if (verdict === 'latch') {
      config.source.latchTo(port)
      out = [{ kind: 'latched', channel: 'rtp', port }]
    }
    if (isDtmf) return this.presses(this.dtmf.receive(packet, nowMs), out)
    if (packet.payloadType !== config.payloadType) this.counters.otherCodec++
    this.pushAudio(packet, nowMs)
    return out
  }

  /** The next 20 ms frame (8 kHz, 160 samples, valid until the next pull). */
  pull(nowMs: number): JitterFrame {
    return this.jitter.pull(nowMs)
  }

  /** Ends a key press whose packets stopped (RFC 4733 §2.5.2's timeout). */
  tick(nowMs: number): readonly ReceiveOutput[] {
    return this.presses(this.dtmf.tick(nowMs), NOTHING)
  }

  private presses(events: ReturnType<DtmfReceiver['tick']>, out: readonly ReceiveOutput[]): readonly ReceiveOutput[] {
    if (events.length === 0) return out
    const result = [...out]
    for (const event of events) {
      if (event.kind !== 'end') continue
      this.counters.dtmfPresses++
      result.push({ kind: 'dtmf', digit: event.digit, durationMs: event.durationMs })
    }
    return result
  }

  private pushAudio(packet: RtpPacket, nowMs: number): void {
    const frames = packet.payload.length / FRAME_SAMPLES_8K
    if (frames === 1) return this.jitter.push(packet, nowMs)
    for (let i = 0; i < frames; i++) {
      const frame: JitterPacket = {
        ssrc: packet.ssrc,
        timestamp: (packet.timestamp + i * FRAME_SAMPLES_8K) >>> 0,
        marker: packet.marker && i === 0,
        payloadType: packet.payloadType,
        payload: packet.payload.subarray(i * FRAME_SAMPLES_8K, (i + 1) * FRAME_SAMPLES_8K),
      }
      this.jitter.push(frame, nowMs)
    }
  }

  /** The negotiated number, and the static PCMU/PCMA numbers a peer may switch to (RFC 3551 Table 4). */
  private isAudio(payloadType: number): boolean {
    return payloadType === this.config?.payloadType || payloadType === PAYLOAD_TYPE_PCMU || payloadType === PAYLOAD_TYPE_PCMA
  }

  private decode(payloadType: number, payload: Uint8Array, out: Int16Array): number | undefined {
    const config = this.config
    const law =
      payloadType === config?.payloadType ? config.codec : payloadType === PAYLOAD_TYPE_PCMU ? 'PCMU' : payloadType === PAYLOAD_TYPE_PCMA ? 'PCMA' : undefined
    if (law === 'PCMU') return decodeMulaw(payload, out)
    if (law === 'PCMA') return decodeAlaw(payload, out)
    return undefined
  }
}
