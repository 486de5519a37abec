import { CSeq, SipHeaders, SipRequest, type SipResponse } from '../message/index.js'
import { uacDialog } from './create.js'
import { DEFAULT_MAX_FORWARDS } from './dialog.js'
import type { DialogResult } from './errors.js'

/**
 * The ACK for a 2xx to an initial INVITE (§13.2.2.4), from the INVITE and the 2xx alone: the
 * dialog the 2xx makes (§12.1.2) gives Request-URI, Route, From and To; CSeq is the INVITE's number
 * with ACK; the INVITE's credentials are copied. No Via: the UA sends it with a new branch. For a
 * re-INVITE use `Dialog.ack`, whose route set is fixed since the dialog began.
 */
export function ack2xx(invite: SipRequest, response: SipResponse, options: { body?: Buffer; contentType?: string } = {}): DialogResult<SipRequest> {
  const dialog = uacDialog(invite, response)
  if (!dialog.ok) return dialog
  return { ok: true, value: dialog.value.ack(invite, options) }
}

/**
 * The ACK a client transaction sends for a 3xx-6xx to its INVITE (§17.1.1.3): the INVITE's
 * Request-URI, Call-ID, From, top Via (the same branch: it belongs to that transaction) and Route,
 * the response's To (with its tag), and the INVITE's CSeq number with ACK.
 */
export function ackNon2xx(invite: SipRequest, response: SipResponse): SipRequest {
  const h = invite.headers
  const topVia = h.get('Via')
  return new SipRequest(
    'ACK',
    invite.uri,
    new SipHeaders([
      ...(topVia === undefined ? [] : [['Via', topVia] as const]),
      ...h.getAll('Route').map((r) => ['Route', r] as const),
      ['Max-Forwards', String(DEFAULT_MAX_FORWARDS)],
      ['To', response.headers.get('To') ?? h.to().serialize()],
      ['From', h.from().serialize()],
      ['Call-ID', h.callId()],
      ['CSeq', new CSeq(h.cseq().seq, 'ACK').serialize()],
    ]),
  )
}

/**
 * The CANCEL of a request (§9.1): the same Request-URI, Call-ID, To, From, CSeq number and top Via
 * (the server matches it to the INVITE's transaction by that branch) and the request's Route values;
 * the method CANCEL. Unlike the requests of a dialog it keeps the Via: it must be the INVITE's.
 */
export function cancelFor(request: SipRequest): SipRequest {
  const h = request.headers
  const topVia = h.get('Via')
  return new SipRequest(
    'CANCEL',
    request.uri,
    new SipHeaders([
      ...(topVia === undefined ? [] : [['Via', topVia] as const]),
      ...h.getAll('Route').map((r) => ['Route', r] as const),
      ['Max-Forwards', String(DEFAULT_MAX_FORWARDS)],
      ['To', h.to().serialize()],
      ['From', h.from().serialize()],
      ['Call-ID', h.callId()],
      ['CSeq', new CSeq(h.cseq().seq, 'CANCEL').serialize()],
    ]),
  )
}
