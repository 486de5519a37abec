import type { CallTransport, TransportInput } from '../../engine/index.js'
import type { JitterStats, NegotiatedMedia } from '../../sip/index.js'
import type { RemoteReport } from './rtcp-reporter.js'

/**
 * One phone call's media: an RTP port pair (RTP even, RTCP + 1) and the engine's transport over it.
 * The SIP side (the call's dialog) owns it: it puts `localPort` in its SDP, applies each
 * negotiation (answer, re-INVITE, hold), tells the transport when the caller hangs up, and closes
 * it when the dialog ends. The transport never speaks SIP: what only SIP can do (hang up with BYE,
 * transfer with REFER) it hands back through `PhoneSignals`.
 */
export interface CallMedia {
  /** Our RTP port (RTCP on localPort + 1), for the SDP. */
  readonly localPort: number
  /** What the engine's CallSession runs over, at the line's 8 kHz both ways: caller audio in, the agent's frames out. */
  readonly transport: PhoneTransport
  /** The negotiated remote media (first answer, re-INVITE, hold/resume): where RTP goes and comes from. */
  apply(media: NegotiatedMedia): void
  /** Stops RTP and RTCP and releases the ports. Idempotent. */
  close(): void
  /** Counters for the call's log line and the bench. */
  stats(): CallMediaStats
}

/** Why a datagram from the network was not taken. */
export type MediaDropReason = 'no_remote' | 'wrong_address' | 'wrong_port' | 'malformed' | 'payload_type' | 'packet_size' | 'rtcp_malformed'

export interface CallMediaStats {
  /** RTP packets taken from the peer (audio and telephone events). */
  readonly packetsIn: number
  /** RTP packets sent (audio and telephone events). */
  readonly packetsOut: number
  readonly rtcpIn: number
  readonly rtcpOut: number
  readonly dropped: Readonly<Record<MediaDropReason, number>>
  /** Audio packets in the other G.711 law than negotiated (decoded all the same). */
  readonly otherCodecPackets: number
  /** Key presses received (one per RFC 4733 event). */
  readonly dtmfIn: number
  readonly dtmfPacketsOut: number
  readonly latched: boolean
  /** Agent frames not sent: on hold, before the first negotiation, during a DTMF event. */
  readonly framesSuppressed: number
  /** Audio packets written but dropped before they left (a barge-in while the media worker held them). */
  readonly packetsUnsent: number
  readonly talkspurts: number
  readonly sendErrors: number
  /** 20 ms receive ticks run, frames handed to the call (equal, unless the call is not attached), ticks skipped after a stall. */
  readonly ticks: number
  readonly framesDelivered: number
  readonly skippedTicks: number
  readonly jitter: JitterStats
  /** What the peer's RTCP says of our stream. */
  readonly remote: RemoteReport | undefined
}

export interface PhoneTransport extends CallTransport {
  /** The caller hung up (BYE) or the dialog failed: the call hears caller_left. */
  callerLeft(how: 'hangup' | 'dropped'): void
  /** A digit the SIP side received (INFO, RFC 2976 with application/dtmf-relay): the graph hears it like an RFC 4733 one. */
  dtmfReceived(digit: string): void
  /** How a transfer the agent asked for (PhoneSignals.transfer) went: the call ends, or the agent says it failed and goes on. */
  transferResult(ok: boolean, reason?: string): void
  /** Sends digits as RFC 4733 events (each ~100 ms plus a pause); resolves when sent. */
  sendDtmf(digits: string): Promise<void>
}

/** What the transport asks of the SIP side. */
export interface PhoneSignals {
  /** The call is over (agent hung up, limits, errors, shutdown): send BYE. Called once. */
  ended(reason: Parameters<CallTransport['end']>[0]): void
  /** The agent asked for a blind transfer (REFER, RFC 3515). */
  transfer(target: string): void
}

export type { TransportInput }
