import { AuthHeader, CSeq, SipHeaders, SipRequest, type SipResponse } from '../message/index.js'
import { challengesOf, type DigestClient } from './client.js'
import { type DigestResult, fail } from './errors.js'

export interface AuthorizeOptions {
  /**
   * The CSeq number of the re-sent request; default the challenged one's plus one (§22.2). An
   * in-dialog request passes the dialog's next local CSeq so the dialog and the wire agree.
   */
  readonly cseq?: number
}

/**
 * The request to send again after a 401 or 407 (§22.2, §8.1.3.5): the same Call-ID, From, To,
 * Request-URI and body, CSeq plus one, and the credentials for each realm challenged — replacing
 * an earlier Authorization (Proxy-Authorization) of the same realm and keeping others'.
 *
 * The Via fields are removed: a re-sent request is a new transaction, so the transaction layer
 * prepends its own Via with a fresh branch (§8.1.1.7), as it does for every request we build.
 *
 * Credentials of ours for a realm answered again with a challenge that is not stale were wrong:
 * that is `credentials_rejected` and the realm's nonce is forgotten, so the UA never loops (§22.2).
 */
export function authorizeRequest(request: SipRequest, response: SipResponse, client: DigestClient, options: AuthorizeOptions = {}): DigestResult<SipRequest> {
  const challenges = challengesOf(response)
  if (!challenges.ok) return challenges
  const name = response.status === 407 ? 'Proxy-Authorization' : 'Authorization'
  const sentRealms = new Set(
    request.headers
      .getAll(name)
      .map((v) => AuthHeader.parse(v))
      .filter((h) => h?.isDigest)
      .map((h) => h!.param('realm')),
  )
  for (const challenge of challenges.value) {
    const realm = challenge.param('realm')
    if (realm !== undefined && sentRealms.has(realm) && challenge.param('stale')?.toLowerCase() !== 'true') {
      client.forget(realm)
      return fail('credentials_rejected', 'the credentials sent for this realm were refused', realm)
    }
  }
  const answered = client.answerResponse(response, { method: request.method, uri: request.uri.serialize(), body: request.body })
  if (!answered.ok) return answered
  const replaced = new Set(answered.value.map((f) => f.realm))
  const kept = request.headers.toArray().filter((field) => {
    if (field.name === 'Via') return false
    if (field.name !== name) return true
    const realm = AuthHeader.parse(field.value)?.param('realm')
    return realm === undefined || !replaced.has(realm)
  })
  const cseq = request.headers.cseq()
  let headers = new SipHeaders(kept).set('CSeq', new CSeq(options.cseq ?? cseq.seq + 1, cseq.method).serialize())
  for (const field of answered.value) headers = headers.with(field.name, field.header.serialize())
  return { ok: true, value: new SipRequest(request.method, request.uri, headers, request.body) }
}
