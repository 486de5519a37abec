/**
 * The engine's CallTransport over one call's RTP session: what the call hears and says on a phone
 * line. The call runs at the line's 8 kHz both ways (`lineRate`), with no resampler on the line.
 * Caller audio: a 20 ms tick on the injected clock pulls one frame from the jitter buffer and hands
 * it to the call: its VAD and STT run at 8 kHz (engine/vad/types.ts says why). Agent audio: the
 * call synthesizes and plays out at 8 kHz (the TTS audio filtered to the telephone band once,
 * engine/audio/resample.ts), and each frame is encoded and sent at once; the engine's playout
 * paces the frames already, so writeAudio resolves at once (a UDP send does not block). Key
 * presses both ways as RFC 4733 events; hang-up and transfer go to the SIP side (PhoneSignals).
 *
 * The tick keeps to the media clock: tick n is due at attach + 20n ms, whatever time the timers
 * lose, so no drift; after a stall it catches up at most `maxCatchUpTicks` frames and skips the
 * rest (counted) rather than burst seconds of audio into the call's VAD and STT. Calls ticking in
 * the same millisecond of the period share one timer (tick-groups.ts).
 */
import { slabInt16 } from '../../engine/audio/index.js'
import type { CallerEvent, TransportInput } from '../../engine/index.js'
import type { PlayoutClock } from '../../engine/pipeline/playout-clock.js'
import { DTMF_DIGITS } from '../../sip/index.js'
import type { DtmfOut } from './dtmf-out.js'
import type { ReceiveOutput } from './rtp-receiver.js'
import type { MediaChannel, RtpSession } from './rtp-session.js'
import { type TickGroups, tickGroupsFor, type TickMember } from './tick-groups.js'
import type { PhoneSignals, PhoneTransport } from './types.js'

export interface PhoneTransportOptions {
  readonly tickMs: number
  readonly maxCatchUpTicks: number
}

export const DEFAULT_PHONE_TRANSPORT: PhoneTransportOptions = Object.freeze({ tickMs: 20, maxCatchUpTicks: 3 })

/** The io under the session, where it holds packets or datagrams (io/types.ts). */
export interface PhoneLine {
  /** Delivers the datagrams that have come in, before a tick pulls a frame. */
  pump(): void
  /** Drops the agent's packets written ahead and not yet left (barge-in). */
  dropUnsent(): void
}

export interface PhoneTransportDeps {
  readonly session: RtpSession
  readonly line?: PhoneLine
  readonly dtmf: DtmfOut
  readonly clock: PlayoutClock
  readonly signals: PhoneSignals
  /** Default: the process's groups on `clock`. */
  readonly ticks?: TickGroups
}

type EndReason = Parameters<PhoneTransport['end']>[0]

const RESOLVED = Promise.resolve(true)

export class PhoneCallTransport implements PhoneTransport, TickMember {
  readonly name = 'sip'
  /** A transfer is a REFER the SIP side sends; its outcome comes back through transferResult. */
  readonly transferWaits = true
  /** The call hears and speaks at the line's own 8 kHz. */
  readonly lineRate = 8000
  /** writeAudio encodes the frame into the sender's FIFO at once and keeps nothing of it (the playout may refill one array). */
  readonly writesAudioAtOnce = true
  private readonly options: PhoneTransportOptions
  private input: TransportInput | undefined
  /** Leaves the tick group; set while ticking. */
  private leave: (() => void) | undefined
  private anchorMs = 0
  private tickIndex = 0
  private gone: 'ended' | 'hangup' | 'dropped' | undefined
  private leftDelivered = false
  ticks = 0
  framesDelivered = 0
  skippedTicks = 0
  /** Key presses that came before the call attached (dropped: nobody to hear them). */
  digitsBeforeAttach = 0

  constructor(
    private readonly deps: PhoneTransportDeps,
    options: Partial<PhoneTransportOptions> = {},
  ) {
    this.options = { ...DEFAULT_PHONE_TRANSPORT, ...options }
  }

  get closed(): boolean {
    return this.gone !== undefined
  }

  attach(input: TransportInput): void {
    this.input = input
    if (this.gone === 'hangup' || this.gone === 'dropped') return this.deliverLeft(this.gone)
    if (this.gone || this.leave !== undefined) return
    this.anchorMs = this.deps.clock.now()
    this.tickIndex = 0
    this.leave = (this.deps.ticks ?? tickGroupsFor(this.deps.clock)).add(this, this.anchorMs + this.options.tickMs)
  }

  /** The tick group's call: the frames due by `nowMs`; when the next is due (undefined once closed). */
  run(nowMs: number): number | undefined {
    const { tickMs, maxCatchUpTicks } = this.options
    this.deps.line?.pump()
    // The epsilon: anchor + 20n − anchor may come out a hair under 20n in floating point, and a
    // tick found not due at its own due time would be asked for again at once, forever.
    const due = Math.floor((nowMs - this.anchorMs) / tickMs + 1e-9)
    if (due - this.tickIndex > maxCatchUpTicks) {
      this.skippedTicks += due - this.tickIndex - maxCatchUpTicks
      this.tickIndex = due - maxCatchUpTicks
    }
    while (this.tickIndex < due && !this.gone) {
      this.tickIndex++
      this.tick(this.anchorMs + this.tickIndex * tickMs)
    }
    return this.gone ? undefined : this.anchorMs + (this.tickIndex + 1) * tickMs
  }

  writeAudio(frame: Int16Array): Promise<unknown> {
    if (!this.gone) this.deps.session.writeFrame(frame, this.deps.clock.now())
    return RESOLVED
  }

  clearAudio(): void {
    this.deps.session.clear()
    this.deps.line?.dropUnsent()
  }

  /** A phone line has no transcript or status channel: only a transfer and the agent's keys mean something to it. */
  emit(event: CallerEvent): void {
    if (this.gone) return
    if (event.type === 'transfer') this.deps.signals.transfer(event.target)
    // A send that cannot happen (the line closes meanwhile) is nothing to report: the call is ending.
    else if (event.type === 'send_dtmf') void this.sendDtmf(event.digits).catch(() => {})
  }

  end(reason: EndReason): void {
    if (this.gone) return
    this.stop('ended')
    this.deps.signals.ended(reason)
  }

  callerLeft(how: 'hangup' | 'dropped'): void {
    if (this.gone) return
    this.stop(how)
    if (this.input) this.deliverLeft(how)
  }

  sendDtmf(digits: string): Promise<void> {
    return this.deps.dtmf.send(digits)
  }

  /** A datagram from the call's RTP or RTCP socket, come at `atMs` (default now); key presses in it reach the call. Returns the session's outputs (latching, for the log). */
  receive(bytes: Uint8Array, channel: MediaChannel, address: string, port: number, atMs = this.deps.clock.now()): readonly ReceiveOutput[] {
    const outputs = this.deps.session.receive(bytes, channel, address, port, atMs)
    for (const output of outputs) if (output.kind === 'dtmf') this.dtmfReceived(output.digit)
    return outputs
  }

  /** A key press from the caller: an RFC 4733 event, or SIP INFO (RFC 2976) through the SIP side. Not a digit: ignored. */
  transferResult(ok: boolean, reason?: string): void {
    if (!this.closed) this.input?.frame({ type: 'transfer_result', ok, ...(reason !== undefined && { reason }) })
  }

  dtmfReceived(digit: string): void {
    const upper = digit.toUpperCase()
    if (this.gone || upper.length !== 1 || !DTMF_DIGITS.includes(upper)) return
    if (this.input) this.input.frame({ type: 'dtmf', digits: upper })
    else this.digitsBeforeAttach++
  }

  private deliverLeft(how: 'hangup' | 'dropped'): void {
    if (this.leftDelivered) return
    this.leftDelivered = true
    this.input?.frame({ type: 'caller_left', how })
  }

  private stop(how: 'ended' | 'hangup' | 'dropped'): void {
    this.gone = how
    this.leave?.()
    this.leave = undefined
    this.deps.dtmf.close()
  }

  private tick(atMs: number): void {
    this.ticks++
    const frame = this.deps.session.pull(atMs)
    // A copy: the jitter buffer reuses its frame at the next pull, and the call may hold what it
    // is given (the STT queues frames while it connects).
    if (this.input) {
      const pcm = slabInt16(frame.pcm.length)
      pcm.set(frame.pcm)
      this.input.audio(pcm, this.lineRate)
    }
    this.framesDelivered++
    for (const output of this.deps.session.tick(atMs)) if (output.kind === 'dtmf') this.dtmfReceived(output.digit)
  }
}
