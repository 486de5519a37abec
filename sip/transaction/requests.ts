import { randomBytes } from 'node:crypto'
import { BRANCH_COOKIE, SipHeaders, SipRequest, SipResponse } from '../message/index.js'

/** A branch unique across space and time (§8.1.1.7): the magic cookie and 80 random bits. */
export function newBranch(): string {
  return `${BRANCH_COOKIE}${randomBytes(10).toString('hex')}`
}

/**
 * Fields every request the transaction layer derives from another carries as they were (§9.1,
 * §17.1.1.3): the top Via alone (same branch, so it matches the same server transaction), From,
 * Call-ID, Route, and Max-Forwards (every request has one, §8.1.1.6).
 */
function derivedHeaders(request: SipRequest, to: string, method: string): SipHeaders {
  const headers = request.headers
  return new SipHeaders([
    ['Via', headers.getAll('Via')[0] ?? ''],
    ...headers.getAll('Route').map((value) => ['Route', value] as const),
    ['Max-Forwards', headers.get('Max-Forwards') ?? '70'],
    ['From', headers.get('From') ?? ''],
    ['To', to],
    ['Call-ID', headers.get('Call-ID') ?? ''],
    ['CSeq', `${headers.cseq().seq} ${method}`],
  ])
}

/**
 * The ACK an INVITE client transaction sends for a 300-699 response (§17.1.1.3): the INVITE's
 * Request-URI, top Via, From, Call-ID, CSeq number and Route, and the response's To (its tag).
 * An ACK for a 2xx is the TU's, in its own transaction-less way (§13.2.2.4).
 */
export function ackFor(invite: SipRequest, response: SipResponse): SipRequest {
  return new SipRequest('ACK', invite.uri, derivedHeaders(invite, response.headers.get('To') ?? '', 'ACK'))
}

/**
 * A CANCEL for a request (§9.1): the same Request-URI, top Via, From, To, Call-ID, CSeq number and
 * Route; no Require or Proxy-Require. Send it with `TransactionLayer.cancel`, which waits for a
 * provisional response first as §9.1 requires.
 */
export function cancelFor(request: SipRequest): SipRequest {
  return new SipRequest('CANCEL', request.uri, derivedHeaders(request, request.headers.get('To') ?? '', 'CANCEL'))
}

export interface ResponseOptions {
  /** Added to To when it has no tag (§8.2.6.2); a 100 Trying may go without (§8.2.6.1). */
  readonly toTag?: string
  /** Fields after the copied ones (Contact, Content-Type, …). */
  readonly headers?: Iterable<readonly [string, string]>
  readonly body?: Buffer
}

/**
 * A response to `request` built as §8.2.6 says: every Via in order, From, To, Call-ID and CSeq
 * copied, a To tag added when the request's To had none and one is given, and for a 100 the
 * Timestamp copied (§8.2.6.1).
 */
export function responseTo(request: SipRequest, status: number, reason: string, options: ResponseOptions = {}): SipResponse {
  const headers = request.headers
  let to = headers.get('To') ?? ''
  if (options.toTag !== undefined && headers.to().tag === undefined) to = `${to};tag=${options.toTag}`
  const timestamp = status === 100 ? headers.get('Timestamp') : undefined
  return new SipResponse(
    status,
    reason,
    new SipHeaders([
      ...headers.getAll('Via').map((value) => ['Via', value] as const),
      ['From', headers.get('From') ?? ''],
      ['To', to],
      ['Call-ID', headers.get('Call-ID') ?? ''],
      ['CSeq', headers.get('CSeq') ?? ''],
      ...(timestamp === undefined ? [] : [['Timestamp', timestamp] as const]),
      ...(options.headers ?? []),
    ]),
    options.body,
  )
}
