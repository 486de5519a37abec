import { createHash } from 'node:crypto'
import type { SipParseError } from './errors.js'
import { SipHeaders } from './headers.js'
import { SipResponse } from './message.js'
import { NameAddr } from './name-addr.js'

/**
 * The response a server sends to a request it could not parse (§8.2, §16.3, §21.4.1): 400 with a
 * Reason-Phrase naming the problem, or 505 for another SIP version (§21.5.6). It copies Via, From,
 * To, Call-ID and CSeq (§8.2.6.2) and adds a To tag when the request had none.
 *
 * Undefined when no response can be built: a malformed response (dropped, §18.1.2), a request
 * whose Via, From, To, Call-ID or CSeq was not found, or an ACK, which a UAS answering without
 * transaction state ignores (§8.2.7).
 *
 * The tag is derived from the request unless given: §8.2.7 asks a stateless UAS for the same tag
 * for the same request, so a retransmission gets the same response; a 400 creates no dialog.
 */
export function badRequestResponse(error: SipParseError, options: { toTag?: string } = {}): SipResponse | undefined {
  const reply = error.reply
  if (!reply || error.kind !== 'request' || reply.method === 'ACK') return undefined
  const to = NameAddr.parse(reply.to)
  const tag = options.toTag ?? createHash('sha256').update(`${reply.callId}\n${reply.cseq}\n${reply.via[0]}`).digest('hex').slice(0, 16)
  const toValue = to && to.tag === undefined ? `${reply.to};tag=${tag}` : reply.to
  const headers = new SipHeaders([
    ...reply.via.map((value) => ['Via', value] as const),
    ['From', reply.from],
    ['To', toValue],
    ['Call-ID', reply.callId],
    ['CSeq', reply.cseq],
  ])
  return new SipResponse(error.status, error.reason, headers)
}
