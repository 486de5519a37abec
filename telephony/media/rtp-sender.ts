/**
 * The send half of a call's RTP session, a pure core: the agent's 8 kHz frames in, G.711 packets
 * out through `emit`, each written into one reused buffer (writeRtpHeader, then the codec straight
 * into the payload): no allocation per packet.
 *
 * RFC 3550 §5.1: SSRC, first sequence number and first timestamp random (from the injected
 * source); the sequence number goes up by one a packet (telephone events included), the timestamp
 * follows the media clock, not the packet count: +samples per packet within a talkspurt, and
 * after a pause it jumps to where 8 kHz samples counted from the first packet would be, on the
 * 20 ms grid. The marker bit is on the first packet of each talkspurt (RFC 3551 §4.1): the first
 * frame, a frame more than `talkspurtGapMs` after the audio sent so far ends (the engine sends
 * nothing between phrases), and after clear(), hold or a DTMF event.
 *
 * Packet time: `ptimeMs` of 10 to 60 in steps of 10; samples queue in a small fixed FIFO and leave
 * a packet at a time (ptime 10 sends two packets per frame at once). Other values send 20 ms.
 * A talkspurt's last partial packet (ptime 30 and over) is dropped at the next talkspurt.
 *
 * The frames come at the line's rate: the call synthesizes and plays out at 8 kHz on a phone line
 * (engine/pipeline/call/transport.ts, `lineRate`), so nothing is resampled here.
 *
 * When to send: each packet goes out with the instant it should leave. The playout writes frames
 * up to its lead ahead of real time; a talkspurt's first packet is due when it was written, and
 * each next one a packet time after the one before (`sendAtMs`), so an io that keeps packets until
 * their time (the media worker) puts them on the wire evenly whenever the frames came.
 */
import { encodeAlaw, encodeMulaw, RTP_HEADER_BYTES, SenderStats, type DtmfPacket, writeRtpHeader } from '../../sip/index.js'
import { FRAME_SAMPLES_8K } from './rtp-receiver.js'

export interface SendConfig {
  readonly payloadType: number
  readonly codec: 'PCMU' | 'PCMA'
  readonly dtmfPayloadType: number | undefined
  readonly ptimeMs: number
  /** False on hold (the peer sendonly/inactive) or when our direction is recvonly/inactive. */
  readonly sending: boolean
}

export interface SenderInit {
  readonly ssrc: number
  readonly sequenceNumber: number
  readonly timestamp: number
  /** A frame later than this after the end of the audio sent so far starts a new talkspurt. */
  readonly talkspurtGapMs: number
}

export interface SendCounters {
  audioPackets: number
  dtmfPackets: number
  /** Agent frames not sent: on hold, before the first negotiation, or during a DTMF event. */
  framesSuppressed: number
  /** Audio packets written but dropped before they left (a barge-in while the io held them). */
  packetsUnsent: number
  talkspurts: number
}

const SAMPLES_PER_MS = 8
const MAX_PTIME_MS = 60
const FIFO_SAMPLES = MAX_PTIME_MS * SAMPLES_PER_MS + FRAME_SAMPLES_8K

export class RtpSender {
  readonly ssrc: number
  readonly stats = new SenderStats(8000)
  readonly counters: SendCounters = { audioPackets: 0, dtmfPackets: 0, framesSuppressed: 0, packetsUnsent: 0, talkspurts: 0 }
  private readonly buffer = new Uint8Array(RTP_HEADER_BYTES + MAX_PTIME_MS * SAMPLES_PER_MS)
  private readonly header = { marker: false, payloadType: 0, sequenceNumber: 0, timestamp: 0, ssrc: 0 }
  private readonly fifo = new Int16Array(FIFO_SAMPLES)
  private fifoLength = 0
  private config: SendConfig | undefined
  private packetSamples = FRAME_SAMPLES_8K
  /** Views of `buffer` for the current packet size, made once per configuration. */
  private packetView = this.buffer.subarray(0, RTP_HEADER_BYTES + FRAME_SAMPLES_8K)
  private payloadView = this.buffer.subarray(RTP_HEADER_BYTES, RTP_HEADER_BYTES + FRAME_SAMPLES_8K)
  private readonly dtmfView = this.buffer.subarray(0, RTP_HEADER_BYTES + 4)
  private sequenceNumber: number
  /** The next packet's timestamp, unwrapped (written modulo 2^32). */
  private nextTs: number
  private anchor: { ts: number; ms: number } | undefined
  /** The current talkspurt's first timestamp and when its first packet was due: later ones are due a packet time apart. */
  private spurtTs = 0
  private spurtMs = 0
  private inTalkspurt = false
  private dtmfActive = false
  /** The next audio packet starts a talkspurt (RFC 3551 §4.1 marker). */
  private markNext = false
  private readonly gapMs: number

  constructor(
    init: SenderInit,
    private readonly emit: (packet: Uint8Array, sendAtMs: number) => void,
  ) {
    this.ssrc = init.ssrc >>> 0
    this.header.ssrc = this.ssrc
    this.sequenceNumber = init.sequenceNumber & 0xffff
    this.nextTs = init.timestamp >>> 0
    this.gapMs = init.talkspurtGapMs
  }

  get sending(): boolean {
    return this.config?.sending === true
  }

  get dtmfPayloadType(): number | undefined {
    return this.config?.dtmfPayloadType
  }

  configure(config: SendConfig): void {
    const changed = config.ptimeMs !== this.config?.ptimeMs || config.codec !== this.config?.codec || !config.sending
    this.config = config
    const ptimeMs = Number.isInteger(config.ptimeMs / 10) && config.ptimeMs >= 10 && config.ptimeMs <= MAX_PTIME_MS ? config.ptimeMs : 20
    this.packetSamples = ptimeMs * SAMPLES_PER_MS
    this.packetView = this.buffer.subarray(0, RTP_HEADER_BYTES + this.packetSamples)
    this.payloadView = this.buffer.subarray(RTP_HEADER_BYTES, RTP_HEADER_BYTES + this.packetSamples)
    if (changed) this.inTalkspurt = false
  }

  /** One 20 ms frame of the agent (8 kHz, 160 samples) at `nowMs`: packets out now, if any are due. */
  writeFrame(frame8k: Int16Array, nowMs: number): void {
    if (!this.config?.sending || this.dtmfActive) {
      this.counters.framesSuppressed++
      this.inTalkspurt = false
      return
    }
    if (!this.inTalkspurt || nowMs > this.mediaMs(this.nextTs) + this.gapMs) this.startTalkspurt(nowMs)
    this.enqueue(frame8k)
    while (this.fifoLength >= this.packetSamples) this.sendAudio(nowMs)
  }

  /** Barge-in: what the FIFO holds is dropped, and the next frame starts a talkspurt. */
  clear(): void {
    this.inTalkspurt = false
  }

  /**
   * A telephone event starts now, lasting `durationMs`: audio pauses until `endDtmf()`, and the
   * event takes the timestamp the next audio would have had. Undefined when nothing may be sent.
   */
  startDtmf(nowMs: number, durationMs: number): number | undefined {
    if (!this.config?.sending || this.config.dtmfPayloadType === undefined) return undefined
    if (!this.inTalkspurt || nowMs > this.mediaMs(this.nextTs) + this.gapMs) this.moveToNow(nowMs)
    const timestamp = this.nextTs
    this.nextTs += Math.ceil(durationMs / 20) * FRAME_SAMPLES_8K
    this.inTalkspurt = false
    this.dtmfActive = true
    return timestamp >>> 0
  }

  sendDtmf(packet: DtmfPacket, nowMs: number): void {
    const config = this.config
    if (!config?.sending || config.dtmfPayloadType === undefined) return
    this.writeHeader(config.dtmfPayloadType, packet.marker, packet.timestamp)
    this.dtmfView.set(packet.payload.subarray(0, 4), RTP_HEADER_BYTES)
    this.stats.sent(4, packet.timestamp, nowMs)
    this.counters.dtmfPackets++
    this.emit(this.dtmfView, nowMs)
  }

  endDtmf(): void {
    this.dtmfActive = false
  }

  /** Audio packets the io dropped before they left (a barge-in): they were never sent. */
  unsent(packets: number, payloadBytes: number): void {
    this.counters.audioPackets -= packets
    this.counters.packetsUnsent += packets
    this.stats.unsent(packets, payloadBytes)
  }

  private startTalkspurt(nowMs: number): void {
    this.moveToNow(nowMs)
    this.counters.talkspurts++
    this.inTalkspurt = true
    this.markNext = true
    this.fifoLength = 0
    this.spurtTs = this.nextTs
    this.spurtMs = nowMs
  }

  /** After a pause, the timestamp catches up with the media clock (never goes back). */
  private moveToNow(nowMs: number): void {
    if (!this.anchor) this.anchor = { ts: this.nextTs, ms: nowMs }
    const frames = Math.ceil(((nowMs - this.anchor.ms) * SAMPLES_PER_MS) / FRAME_SAMPLES_8K)
    this.nextTs = Math.max(this.nextTs, this.anchor.ts + frames * FRAME_SAMPLES_8K)
  }

  private mediaMs(ts: number): number {
    return this.anchor ? this.anchor.ms + (ts - this.anchor.ts) / SAMPLES_PER_MS : Number.NEGATIVE_INFINITY
  }

  private enqueue(pcm: Int16Array): void {
    // The FIFO holds less than a packet between frames, so a 20 ms frame always fits; a longer
    // one would push the oldest samples out rather than grow the buffer.
    if (pcm.length > this.fifo.length) pcm = pcm.subarray(pcm.length - this.fifo.length)
    const overflow = this.fifoLength + pcm.length - this.fifo.length
    if (overflow > 0) {
      this.fifo.copyWithin(0, overflow, this.fifoLength)
      this.fifoLength -= overflow
    }
    this.fifo.set(pcm, this.fifoLength)
    this.fifoLength += pcm.length
  }

  private sendAudio(nowMs: number): void {
    const config = this.config!
    const n = this.packetSamples
    this.writeHeader(config.payloadType, this.markNext, this.nextTs)
    if (config.codec === 'PCMU') encodeMulaw(this.fifo, this.payloadView)
    else encodeAlaw(this.fifo, this.payloadView)
    this.fifo.copyWithin(0, n, this.fifoLength)
    this.fifoLength -= n
    // Never before it was written: a talkspurt's timestamp starts on the 20 ms grid, up to a frame ahead of now.
    const sendAtMs = Math.max(nowMs, this.spurtMs + (this.nextTs - this.spurtTs) / SAMPLES_PER_MS)
    this.stats.sent(n, this.nextTs, sendAtMs)
    this.nextTs += n
    this.markNext = false
    this.counters.audioPackets++
    this.emit(this.packetView, sendAtMs)
  }

  private writeHeader(payloadType: number, marker: boolean, timestamp: number): void {
    const h = this.header
    h.marker = marker
    h.payloadType = payloadType
    h.sequenceNumber = this.sequenceNumber
    h.timestamp = timestamp >>> 0
    writeRtpHeader(this.buffer, h)
    this.sequenceNumber = (this.sequenceNumber + 1) & 0xffff
  }
}
