import { badRequestResponse, type SipMessage, type SipParseError, SipRequest, type SipResponse } from '../message/index.js'
import { type Peer, responseTo } from '../transaction/index.js'
import type { SourceLimiter } from './source-limiter.js'

/** What a listener hands its user: one parsed message and where it came from. */
export type MessageHandler = (message: SipMessage, source: Peer) => void

/** Counters a listener keeps, for logs and the bench. */
export interface ListenerStats {
  received: number
  malformed: number
  refused: number
  dropped: number
}

export const newStats = (): ListenerStats => ({ received: 0, malformed: 0, refused: 0, dropped: 0 })

/**
 * The steps every listener takes with bytes that arrived, before the transaction layer sees them:
 * rate-limit the source, answer a malformed request 400 (§21.4.1; responses and ACKs are dropped,
 * §18.1.2 and §8.2.7), and refuse a source over its budget with 503 and Retry-After (RFC 3261
 * §21.5.4), sent only for parsable requests and at most once a second per source.
 */
export function admitMessage(o: {
  parsed: { ok: true; message: SipMessage } | { ok: false; error: SipParseError }
  source: Peer
  limiter: SourceLimiter
  nowMs: number
  stats: ListenerStats
  reply: (response: SipResponse) => void
  deliver: MessageHandler
}): void {
  const admission = o.limiter.admit(o.source.host, o.nowMs)
  if (admission === 'drop') {
    o.stats.dropped++
    return
  }
  if (!o.parsed.ok) {
    o.stats.malformed++
    if (admission === 'accept') {
      const answer = badRequestResponse(o.parsed.error)
      if (answer) o.reply(answer)
    }
    return
  }
  const message = o.parsed.message
  if (admission === 'refuse') {
    o.stats.refused++
    if (message instanceof SipRequest && message.method !== 'ACK') {
      o.reply(responseTo(message, 503, 'Service Unavailable', { headers: [['Retry-After', String(o.limiter.retryAfterS(o.source.host))]] }))
    }
    return
  }
  o.stats.received++
  o.deliver(message, o.source)
}
