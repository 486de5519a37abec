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
 * number of 20 ms frames (ptime 20, 40, 60) is split into frames, timestamps 160 apart; one of an
 * odd number of 10 ms halves (ptime 10, 30, 50: our SDP asks for 20, some gateways send these
 * anyway) is regrouped into 20 ms frames first (half-frames.ts). Anything else is dropped
 * (`packet_size`).
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
import { HalfFrameAssembler } from './half-frames.js'
import type { RemoteSource } from './remote-source.js'

/** G.711's silent sample: µ-law 0xFF, A-law 0xD5 (ITU-T G.711 tables: +0 with its even bits inverted). */
const MULAW_SILENCE = 0xff
const ALAW_SILENCE = 0xd5
/** Regrouped packets hold at most 50 ms (ptime 10, 30, 50); 20 ms multiples are split whatever their size. */
const MAX_REGROUPED_SAMPLES = 400

/** A whole number of 20 ms frames, or of 10 ms halves up to 50 ms. */
const fitsFrames = (samples: number): boolean =>
  samples > 0 && (samples % FRAME_SAMPLES_8K === 0 || (samples % (FRAME_SAMPLES_8K / 2) === 0 && samples <= MAX_REGROUPED_SAMPLES))

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
  /** Made on the first 10 ms-multiple packet: most peers never need it. */
  private halves: HalfFrameAssembler | undefined
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
    if (!isDtmf && !fitsFrames(packet.payload.length)) return this.drop('packet_size')
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
    if (packet.payload.length % FRAME_SAMPLES_8K !== 0) {
      this.halves ??= new HalfFrameAssembler()
      const silence = this.codecOf(packet.payloadType) === 'PCMA' ? ALAW_SILENCE : MULAW_SILENCE
      return this.halves.push(packet, silence, (frame) => this.jitter.push(frame, nowMs))
    }
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

  private codecOf(payloadType: number): 'PCMU' | 'PCMA' | undefined {
    const config = this.config
    return payloadType === config?.payloadType
      ? config.codec
      : payloadType === PAYLOAD_TYPE_PCMU
        ? 'PCMU'
        : payloadType === PAYLOAD_TYPE_PCMA
          ? 'PCMA'
          : undefined
  }

  private decode(payloadType: number, payload: Uint8Array, out: Int16Array): number | undefined {
    const law = this.codecOf(payloadType)
    if (law === 'PCMU') return decodeMulaw(payload, out)
    if (law === 'PCMA') return decodeAlaw(payload, out)
    return undefined
  }
}
