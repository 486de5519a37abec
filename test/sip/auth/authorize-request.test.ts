// Re-sending a challenged request with credentials (RFC 3261 §22.2, §8.1.3.5).
import t from 'tap'
import { authorizeRequest, DigestClient } from '../../../sip/auth/index.js'
import { AuthHeader, SipHeaders, SipRequest, SipResponse } from '../../../sip/message/index.js'
import { fixedRandom, REGISTER, request, unauthorized } from './helpers.js'

const client = () => new DigestClient({ accounts: [{ username: 'bob', password: 'zanzibar' }], random: fixedRandom('0123456789abcdef') })

t.test('the re-sent request MUST keep Call-ID, From, To and Request-URI, and increment CSeq (§22.2)', async (t) => {
  const original = request(REGISTER)
  const resent = authorizeRequest(original, unauthorized(['Digest realm="biloxi.com", nonce="n1", qop="auth"']), client())
  if (!resent.ok) throw resent.error
  const h = resent.value.headers
  t.equal(h.callId(), '843817637684230@998sdasdh09')
  t.equal(h.from().serialize(), original.headers.from().serialize())
  t.equal(h.to().serialize(), original.headers.to().serialize(), 'To keeps no tag of the 401')
  t.same([h.cseq().seq, h.cseq().method], [1827, 'REGISTER'])
  t.equal(resent.value.uri.serialize(), 'sip:registrar.biloxi.com')
  t.equal(h.get('Contact'), '<sip:bob@192.0.2.4>')
  const auth = h.authorization()
  t.equal(auth.length, 1)
  t.same([auth[0]?.param('uri'), auth[0]?.param('nc'), auth[0]?.param('username')], ['sip:registrar.biloxi.com', '00000001', 'bob'])
})

t.test('the re-sent request MUST carry no Via: the transaction layer prepends one with a new branch (§8.1.1.7)', async (t) => {
  const resent = authorizeRequest(request(REGISTER), unauthorized(['Digest realm="biloxi.com", nonce="n1"']), client())
  t.same(resent.ok && resent.value.headers.via(), [])
})

t.test('an in-dialog request MAY take its CSeq from the dialog', async (t) => {
  const resent = authorizeRequest(request(REGISTER), unauthorized(['Digest realm="biloxi.com", nonce="n1"']), client(), { cseq: 4000 })
  t.equal(resent.ok && resent.value.headers.cseq().seq, 4000)
})

t.test('credentials MUST replace an older value of the same realm and keep other realms (§22.3)', async (t) => {
  const c = client()
  const first = authorizeRequest(request(REGISTER), unauthorized(['Digest realm="proxy-a", nonce="a1"', 'Digest realm="proxy-b", nonce="b1"'], 407), c)
  if (!first.ok) throw first.error
  t.same(
    first.value.headers.proxyAuthorization().map((h) => h.param('realm')),
    ['proxy-a', 'proxy-b'],
  )
  const again = authorizeRequest(first.value, unauthorized(['Digest realm="proxy-b", nonce="b2", stale=true'], 407), c)
  if (!again.ok) throw again.error
  t.same(
    again.value.headers.proxyAuthorization().map((h) => [h.param('realm'), h.param('nonce')]),
    [
      ['proxy-a', 'a1'],
      ['proxy-b', 'b2'],
    ],
  )
  t.equal(again.value.headers.cseq().seq, 1828)
})

t.test('credentials refused by a challenge that is not stale MUST NOT be retried (§22.2)', async (t) => {
  const c = client()
  const first = authorizeRequest(request(REGISTER), unauthorized(['Digest realm="biloxi.com", nonce="n1", qop="auth"']), c)
  if (!first.ok) throw first.error
  const refused = authorizeRequest(first.value, unauthorized(['Digest realm="biloxi.com", nonce="n2", qop="auth"']), c)
  t.same(!refused.ok && [refused.error.code, refused.error.realm], ['credentials_rejected', 'biloxi.com'])
  t.equal(c.preemptive('biloxi.com', { method: 'REGISTER', uri: 'sip:registrar.biloxi.com' }), undefined, 'the nonce is forgotten')
  const stale = authorizeRequest(first.value, unauthorized(['Digest realm="biloxi.com", nonce="n3", qop="auth", stale=TRUE']), c)
  t.ok(stale.ok, 'stale=true: retry with the new nonce without asking anyone (RFC 2617 §3.2.1)')
})

t.test('a response that is no challenge MUST come back as a typed error', async (t) => {
  const ok = new SipResponse(200, 'OK', new SipHeaders())
  const result = authorizeRequest(request(REGISTER), ok, client())
  t.equal(!result.ok && result.error.code, 'no_challenge')
  const built = new SipResponse(401, 'Unauthorized', new SipHeaders([['WWW-Authenticate', 'Digest realm=']]))
  const malformed = authorizeRequest(request(REGISTER), built, client())
  t.equal(!malformed.ok && malformed.error.code, 'malformed_challenge', 'an unreadable field built in code')
  const noAccount = authorizeRequest(
    request(REGISTER),
    unauthorized(['Digest realm="x", nonce="n"']),
    new DigestClient({ accounts: [{ username: 'u', password: 'p', realm: 'y' }] }),
  )
  t.equal(!noAccount.ok && noAccount.error.code, 'no_credentials')
})

t.test('the body MUST be kept and the request MUST serialize and parse again', async (t) => {
  const invite = new SipRequest(
    request(REGISTER).method,
    request(REGISTER).uri,
    request(REGISTER).headers.with('Authorization', new AuthHeader('Digest', new Map([['realm', 'other']])).serialize()),
    Buffer.from('hello'),
  )
  const resent = authorizeRequest(invite, unauthorized(['Digest realm="biloxi.com", nonce="n", qop="auth-int"']), client())
  if (!resent.ok) throw resent.error
  t.equal(resent.value.body.toString(), 'hello')
  t.same(
    resent.value.headers.getAll('Authorization').map((v) => AuthHeader.parse(v)?.param('realm')),
    ['other', 'biloxi.com'],
  )
})
