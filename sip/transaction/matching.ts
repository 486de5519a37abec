import { BRANCH_COOKIE, redactUri, type SipRequest, type SipResponse } from '../message/index.js'
import type { TransactionId } from './transaction.js'

// Transaction keys. Client and server keys share one namespace (prefixes `c`, `s`, `l`), and SP
// separates the parts: no branch, host, tag, Call-ID or method holds one.

/** §17.1.3: a response matches the client transaction of its top Via's branch and its CSeq method. */
export function clientKey(branch: string, method: string): TransactionId {
  return `c ${branch} ${method}`
}

/** The client transaction a response belongs to; undefined when its top Via has no branch. */
export function responseKey(response: SipResponse): TransactionId | undefined {
  const branch = response.headers.topVia()?.branch
  return branch === undefined ? undefined : clientKey(branch, response.headers.cseq().method)
}

/** True when the branch was made by an RFC 3261 element (§8.1.1.7), so it alone identifies the transaction. */
export function isRfc3261Branch(branch: string | undefined): branch is string {
  return branch?.startsWith(BRANCH_COOKIE) === true && branch.length > BRANCH_COOKIE.length
}

/**
 * The server transaction a request belongs to (§17.2.3), as if its method were `method` (INVITE
 * for an ACK, and for a CANCEL looking for the request it cancels, §9.2).
 *
 * With an RFC 3261 branch: the branch, the top Via's sent-by and the method. Without one (an RFC
 * 2543 client): Request-URI, From tag, Call-ID, CSeq, the top Via as written and the To tag — for
 * an ACK the To tag is the one of the INVITE, which the layer looks up with the ACK's tag or none,
 * and then checks against the response's (legacyAckMatches).
 */
export function serverKey(request: SipRequest, method: string, toTag: string | null = request.headers.to().tag ?? null): TransactionId | undefined {
  const headers = request.headers
  const via = headers.topVia()
  if (!via) return undefined
  if (isRfc3261Branch(via.branch)) return `s ${via.branch} ${via.host.toLowerCase()}:${via.port ?? ''} ${method}`
  const topVia = headers.getAll('Via')[0]!.replace(/\s+/g, '')
  // The Request-URI without its password, if any: a key is an id the TU may log.
  return `l ${redactUri(request.uri)} ${headers.from().tag ?? ''} ${headers.callId()} ${headers.cseq().seq} ${method} ${topVia} ${toTag ?? ''}`
}

/** The INVITE server transactions an ACK may match, most likely first (§17.2.3). */
export function ackKeys(ack: SipRequest): TransactionId[] {
  const keys = [serverKey(ack, 'INVITE'), serverKey(ack, 'INVITE', null)]
  return [...new Set(keys.filter((key): key is TransactionId => key !== undefined))]
}
