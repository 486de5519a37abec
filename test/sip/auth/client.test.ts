// Answering challenges as a UAC (RFC 3261 §22.2-22.3, RFC 2617 §3.2.2, RFC 8760).
import { createHash } from 'node:crypto'
import t from 'tap'
import { DigestClient } from '../../../sip/auth/index.js'
import { AuthHeader, digestCredentials } from '../../../sip/message/index.js'
import { fixedRandom, unauthorized } from './helpers.js'

const H = (algorithm: string, data: string) => createHash(algorithm).update(data).digest('hex')
const RFC2617_CHALLENGE =
  'Digest realm="testrealm@host.com", qop="auth,auth-int", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", opaque="5ccc069c403ebaf9f0171e9517f40e41"'
const GET = { method: 'GET', uri: '/dir/index.html' }
const REGISTER = { method: 'REGISTER', uri: 'sip:biloxi.com' }

function challenge(text: string): AuthHeader {
  const header = AuthHeader.parse(text)
  if (!header) throw new Error('unparsable challenge')
  return header
}

function mufasa(extra: Partial<ConstructorParameters<typeof DigestClient>[0]> = {}): DigestClient {
  return new DigestClient({ accounts: [{ username: 'Mufasa', password: 'Circle Of Life' }], random: fixedRandom('0a4f113b'), cnonceBytes: 4, ...extra })
}

t.test('the credentials MUST reproduce RFC 2617 §3.5: qop=auth chosen when offered, opaque echoed', async (t) => {
  const answered = mufasa().answer(challenge(RFC2617_CHALLENGE), false, GET)
  if (!answered.ok) throw answered.error
  t.equal(answered.value.name, 'Authorization')
  t.equal(
    answered.value.header.serialize(),
    'Digest username="Mufasa", realm="testrealm@host.com", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", uri="/dir/index.html", ' +
      'response="6629fae49393a05397450978507c4ef1", cnonce="0a4f113b", qop=auth, nc=00000001, opaque="5ccc069c403ebaf9f0171e9517f40e41"',
  )
  const reparsed = digestCredentials(AuthHeader.parse(answered.value.header.serialize())!)
  t.equal(reparsed?.response, '6629fae49393a05397450978507c4ef1', 'what we write parses back')
})

t.test('a 407 MUST be answered in Proxy-Authorization (§22.3)', async (t) => {
  const answered = mufasa().answer(challenge(RFC2617_CHALLENGE), true, GET)
  t.equal(answered.ok && answered.value.name, 'Proxy-Authorization')
})

t.test('auth-int MUST be used only when it is the only qop offered, hashing the body', async (t) => {
  const body = Buffer.from('v=0\r\n')
  const answered = mufasa().answer(challenge('Digest realm="r", nonce="n", qop="auth-int"'), false, { method: 'INVITE', uri: 'sip:a@b.com', body })
  if (!answered.ok) throw answered.error
  t.equal(answered.value.header.param('qop'), 'auth-int')
  const ha1 = H('md5', 'Mufasa:r:Circle Of Life')
  const ha2 = H('md5', `INVITE:sip:a@b.com:${H('md5', 'v=0\r\n')}`)
  t.equal(answered.value.header.param('response'), H('md5', `${ha1}:n:00000001:0a4f113b:auth-int:${ha2}`))
})

t.test('without qop the client MUST send neither cnonce nor nc (RFC 2617 §3.2.2)', async (t) => {
  const answered = mufasa().answer(challenge('Digest realm="r", nonce="n"'), false, REGISTER)
  if (!answered.ok) throw answered.error
  const h = answered.value.header
  t.same([h.param('cnonce'), h.param('nc'), h.param('qop'), h.param('algorithm')], [undefined, undefined, undefined, undefined])
  t.equal(h.param('response'), H('md5', `${H('md5', 'Mufasa:r:Circle Of Life')}:n:${H('md5', 'REGISTER:sip:biloxi.com')}`))
})

t.test('the algorithm MUST be echoed as the challenge named it, and SHA-256 used (RFC 8760)', async (t) => {
  const answered = mufasa().answer(challenge('Digest realm="r", nonce="n", algorithm=sha-256, qop="auth"'), false, REGISTER)
  if (!answered.ok) throw answered.error
  t.equal(answered.value.header.param('algorithm'), 'SHA-256')
  const ha1 = H('sha256', 'Mufasa:r:Circle Of Life')
  t.equal(answered.value.header.param('response'), H('sha256', `${ha1}:n:00000001:0a4f113b:auth:${H('sha256', 'REGISTER:sip:biloxi.com')}`))
})

t.test('nc MUST count the requests sent with one nonce, pre-emptively per realm (RFC 2617 §3.2.2, §22.3)', async (t) => {
  let counter = 0
  const client = mufasa({ random: (size) => Buffer.alloc(size, ++counter) })
  const first = client.answer(challenge('Digest realm="r", nonce="n1", qop="auth"'), false, REGISTER)
  t.equal(first.ok && first.value.header.param('nc'), '00000001')
  const second = client.preemptive('r', REGISTER)
  const third = client.preemptive('r', { method: 'INVITE', uri: 'sip:alice@atlanta.com' })
  t.equal(second?.header.param('nc'), '00000002')
  t.equal(third?.header.param('nc'), '00000003')
  t.not(second?.header.param('cnonce'), third?.header.param('cnonce'), 'a fresh cnonce per request')
  t.equal(client.preemptive('other', REGISTER), undefined, 'no nonce for a realm never seen')
  const sameNonce = client.answer(challenge('Digest realm="r", nonce="n1", algorithm=MD5, qop="auth"'), false, REGISTER)
  t.equal(sameNonce.ok && sameNonce.value.header.param('nc'), '00000004', 'the same nonce challenged again keeps counting')
  const renewed = client.answer(challenge('Digest realm="r", nonce="n2", qop="auth", stale=true'), false, REGISTER)
  t.equal(renewed.ok && renewed.value.header.param('nc'), '00000001', 'a new nonce starts at 1')
  t.equal(client.preemptive('r', REGISTER)?.header.param('nonce'), 'n2')
  client.forget('r')
  t.equal(client.preemptive('r', REGISTER), undefined, 'forgotten')
})

t.test('a -sess nonce MUST keep its first cnonce so H(A1) stays the session key (RFC 2617 §3.2.2.2)', async (t) => {
  let counter = 0
  const client = mufasa({ random: (size) => Buffer.alloc(size, ++counter) })
  const first = client.answer(challenge('Digest realm="r", nonce="n", algorithm=MD5-sess, qop="auth"'), false, REGISTER)
  const second = client.preemptive('r', REGISTER)
  t.equal(first.ok && first.value.header.param('cnonce'), second?.header.param('cnonce'))
  t.equal(second?.header.param('algorithm'), 'MD5-sess')
})

t.test('the nonce cache MUST stay within maxRealms, dropping the least recently used', async (t) => {
  const client = mufasa({ maxRealms: 2 })
  for (const realm of ['a', 'b']) client.answer(challenge(`Digest realm="${realm}", nonce="n", qop="auth"`), false, REGISTER)
  client.preemptive('a', REGISTER)
  client.answer(challenge('Digest realm="c", nonce="n", qop="auth"'), false, REGISTER)
  t.ok(client.preemptive('a', REGISTER), 'recently used: kept')
  t.equal(client.preemptive('b', REGISTER), undefined, 'least recently used: dropped')
  t.ok(client.preemptive('c', REGISTER))
})

t.test('an account for one realm MUST NOT answer another; one without a realm answers any', async (t) => {
  const client = new DigestClient({ accounts: [{ username: 'bob', password: 'zanzibar', realm: 'biloxi.com' }] })
  const other = client.answer(challenge('Digest realm="evil.example", nonce="n"'), false, REGISTER)
  t.same(!other.ok && [other.error.code, other.error.realm], ['no_credentials', 'evil.example'])
  const ok = client.answer(challenge('Digest realm="biloxi.com", nonce="n"'), false, REGISTER)
  t.equal(ok.ok && ok.value.header.param('username'), 'bob')
  const both = new DigestClient({
    accounts: [
      { username: 'any', password: 'x' },
      { username: 'bob', password: 'zanzibar', realm: 'biloxi.com' },
    ],
  })
  const chosen = both.answer(challenge('Digest realm="biloxi.com", nonce="n"'), false, REGISTER)
  t.equal(chosen.ok && chosen.value.header.param('username'), 'bob', 'the realm-specific account wins')
  const empty = new DigestClient({ accounts: [] }).answer(challenge('Digest realm="r", nonce="n"'), false, REGISTER)
  t.equal(!empty.ok && empty.error.code, 'no_credentials')
})

t.test('an unreadable challenge MUST come back as a typed error, never a throw', async (t) => {
  const client = mufasa()
  const cases: Array<[string, string]> = [
    ['Digest nonce="n"', 'malformed_challenge'],
    ['Digest realm="r"', 'malformed_challenge'],
    ['Basic realm="r", nonce="n"', 'malformed_challenge'],
    ['Digest realm="r", nonce="n", algorithm=SHA-1', 'unsupported_algorithm'],
    ['Digest realm="r", nonce="n", algorithm=AKAv1-MD5', 'unsupported_algorithm'],
    ['Digest realm="r", nonce="n", qop="auth-conf"', 'unsupported_qop'],
    ['Digest realm="r", nonce="n", algorithm=MD5-sess', 'unsupported_qop'],
    [`Digest realm="r", nonce="${'x'.repeat(1025)}"`, 'oversize'],
    [`Digest realm="${'r'.repeat(2000)}", nonce="n"`, 'oversize'],
  ]
  for (const [text, code] of cases) {
    const answered = client.answer(challenge(text), false, REGISTER)
    t.equal(!answered.ok && answered.error.code, code, text.slice(0, 60))
  }
  t.equal(client.preemptive('r', REGISTER), undefined, 'a refused challenge caches nothing')
})

t.test('answerResponse MUST answer each realm once, from its topmost supported challenge (§22.3, RFC 8760 §2.4)', async (t) => {
  const client = mufasa()
  const response = unauthorized([
    'Digest realm="a", nonce="na1", algorithm=SHA-1, qop="auth"',
    'Digest realm="a", nonce="na2", algorithm=SHA-256, qop="auth"',
    'Digest realm="a", nonce="na3", algorithm=MD5, qop="auth"',
    'Digest realm="b", nonce="nb", qop="auth"',
  ])
  const answered = client.answerResponse(response, REGISTER)
  if (!answered.ok) throw answered.error
  t.same(
    answered.value.map((f) => [f.realm, f.header.param('nonce'), f.header.param('algorithm')]),
    [
      ['a', 'na2', 'SHA-256'],
      ['b', 'nb', undefined],
    ],
  )
  const unanswerable = client.answerResponse(
    unauthorized(['Digest realm="a", nonce="n", qop="auth"', 'Digest realm="z", nonce="n", algorithm=SHA-1']),
    REGISTER,
  )
  t.same(!unanswerable.ok && [unanswerable.error.code, unanswerable.error.realm], ['unsupported_algorithm', 'z'])
  const none = client.answerResponse(unauthorized(['Basic realm="a"']), REGISTER)
  t.equal(!none.ok && none.error.code, 'no_challenge')
  const proxy = client.answerResponse(unauthorized(['Digest realm="p", nonce="n"'], 407), REGISTER)
  t.equal(proxy.ok && proxy.value[0]?.name, 'Proxy-Authorization', 'a 407 reads Proxy-Authenticate')
})

t.test('options MUST be validated when the client is built', async (t) => {
  t.throws(() => new DigestClient({ accounts: [], maxRealms: 0 }), RangeError)
  t.throws(() => new DigestClient({ accounts: [], maxParamChars: -1 }), RangeError)
  t.throws(() => new DigestClient({ accounts: [], cnonceBytes: 2 }), RangeError)
})
