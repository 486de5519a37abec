// Verifying credentials as a UAS (RFC 3261 §22.1, §22.4; RFC 2617 §3.2-3.3; RFC 7616 §3.3-3.4; RFC 8760).
import { createHash } from 'node:crypto'
import t from 'tap'
import { ManualClock } from '../../../core/index.js'
import { DigestClient, DigestVerifier, type DigestVerifierOptions, issueNonce, readNonce } from '../../../sip/auth/index.js'
import { AuthHeader, type SipRequest } from '../../../sip/message/index.js'
import { request } from './helpers.js'

const SECRET = Buffer.alloc(32, 7)
const REALM = 'ozan.example'
const INVITE = [
  'INVITE sip:agent@ozan.example SIP/2.0',
  'Via: SIP/2.0/UDP trunk.example.net;branch=z9hG4bK1',
  'Max-Forwards: 70',
  'To: <sip:agent@ozan.example>',
  'From: <sip:+15551230000@trunk.example.net>;tag=abc',
  'Call-ID: call-1@trunk.example.net',
  'CSeq: 1 INVITE',
  'Contact: <sip:trunk.example.net>',
]

function setup(extra: Partial<DigestVerifierOptions> = {}) {
  const clock = new ManualClock(1_700_000_000_000)
  let salt = 0
  const verifier = new DigestVerifier({
    realm: REALM,
    secret: SECRET,
    clock,
    lookup: (username) => (username === 'trunk' ? { password: 'pa55' } : undefined),
    random: (size) => Buffer.alloc(size, ++salt),
    ...extra,
  })
  const client = new DigestClient({ accounts: [{ username: 'trunk', password: 'pa55' }] })
  return { clock, verifier, client }
}

/** The INVITE with `credentials` as its Authorization values. */
function withAuthorization(...credentials: string[]): SipRequest {
  return request([...INVITE, ...credentials.map((c) => `Authorization: ${c}`)])
}

/** The client's answer to the verifier's first (SHA-256) challenge, as an Authorization value. */
function answer(client: DigestClient, challenge: AuthHeader, method = 'INVITE', uri = 'sip:agent@ozan.example'): string {
  const answered = client.answer(challenge, false, { method, uri })
  if (!answered.ok) throw answered.error
  return answered.value.header.serialize()
}

/** The credentials with one parameter replaced. */
function tamper(credentials: string, name: string, value: string): string {
  const header = AuthHeader.parse(credentials)!
  return new AuthHeader('Digest', new Map([...header.params].map(([k, v]) => [k, k === name ? value : v]))).serialize()
}

t.test('a request without credentials MUST be challenged: SHA-256 first, then MD5, qop=auth (§22.1, RFC 8760 §2.3)', async (t) => {
  const { verifier } = setup()
  const result = verifier.verify(request(INVITE))
  if (result.ok) throw new Error('accepted without credentials')
  t.equal(result.reason, 'no_credentials')
  t.same(
    result.challenge.map((c) => [c.param('realm'), c.param('algorithm'), c.param('qop'), c.param('stale')]),
    [
      [REALM, 'SHA-256', 'auth', undefined],
      [REALM, 'MD5', 'auth', undefined],
    ],
  )
  t.equal(result.challenge[0]?.param('nonce'), result.challenge[1]?.param('nonce'), 'one nonce for both')
  t.match(result.challenge[0]!.serialize(), /^Digest realm="ozan\.example", nonce="[A-Za-z0-9_-]{43}", algorithm=SHA-256, qop="auth"$/)
})

t.test('the client and the verifier MUST agree (round trip, SHA-256 and MD5)', async (t) => {
  const { verifier, client } = setup()
  const [sha, md5] = verifier.challenge()
  t.same(verifier.verify(withAuthorization(answer(client, sha!))), { ok: true, username: 'trunk' })
  t.same(verifier.verify(withAuthorization(answer(client, md5!))), { ok: true, username: 'trunk' })
})

t.test('a verifier storing H(A1) instead of the password MUST verify the same (RFC 2617 §3.2.2.2)', async (t) => {
  const ha1 = createHash('sha256').update(`trunk:${REALM}:pa55`).digest('hex')
  const { verifier, client } = setup({ lookup: (u) => (u === 'trunk' ? { ha1: { 'SHA-256': ha1.toUpperCase() } } : undefined) })
  const [sha, md5] = verifier.challenge()
  t.same(verifier.verify(withAuthorization(answer(client, sha!))), { ok: true, username: 'trunk' })
  const noMd5 = verifier.verify(withAuthorization(answer(client, md5!)))
  t.equal(!noMd5.ok && noMd5.reason, 'unknown_user', 'no MD5 H(A1) stored: nothing to verify against')
})

t.test('pre-emptive credentials with the next nc MUST be accepted; a replayed (nonce, nc) MUST NOT (RFC 7616 §3.4)', async (t) => {
  const { verifier, client } = setup()
  const first = answer(client, verifier.challenge()[0]!)
  t.ok(verifier.verify(withAuthorization(first)).ok)
  const replay = verifier.verify(withAuthorization(first))
  t.same(!replay.ok && [replay.reason, replay.challenge.length], ['replayed', 2])
  const next = client.preemptive(REALM, { method: 'INVITE', uri: 'sip:agent@ozan.example' })!
  t.equal(next.header.param('nc'), '00000002')
  t.ok(verifier.verify(withAuthorization(next.header.serialize())).ok)
  const upper = tamper(first, 'nc', '0000000A')
  t.equal(verifier.verify(withAuthorization(upper)).ok, false, 'another nc with the old response does not verify')
})

t.test('the replay memory MUST stay bounded (LRU of maxSeenNonceCounts pairs)', async (t) => {
  const { verifier, client } = setup({ maxSeenNonceCounts: 2 })
  const first = answer(client, verifier.challenge()[0]!)
  t.ok(verifier.verify(withAuthorization(first)).ok)
  for (let i = 0; i < 2; i++)
    t.ok(verifier.verify(withAuthorization(client.preemptive(REALM, { method: 'INVITE', uri: 'sip:agent@ozan.example' })!.header.serialize())).ok)
  t.ok(verifier.verify(withAuthorization(first)).ok, 'evicted past the bound: the documented trade-off')
})

t.test('an expired nonce with a correct response MUST be challenged again with stale=true (RFC 7616 §3.3)', async (t) => {
  const { verifier, client, clock } = setup()
  const credentials = answer(client, verifier.challenge()[0]!)
  clock.advance(32_000)
  t.ok(verifier.verify(withAuthorization(answer(client, verifier.challenge()[0]!))).ok, 'at the TTL: still fresh')
  clock.advance(1)
  const stale = verifier.verify(withAuthorization(credentials))
  if (stale.ok) throw new Error('stale nonce accepted')
  t.equal(stale.reason, 'stale')
  t.equal(stale.challenge[0]?.param('stale'), 'true')
  t.not(stale.challenge[0]?.param('nonce'), AuthHeader.parse(credentials)?.param('nonce'), 'a fresh nonce')
  const wrong = verifier.verify(withAuthorization(tamper(credentials, 'response', '0'.repeat(64))))
  t.same(!wrong.ok && [wrong.reason, wrong.challenge[0]?.param('stale')], ['bad_response', undefined], 'stale only with a correct response')
})

t.test('a tampered, foreign or future nonce MUST be refused without stale (bad_nonce)', async (t) => {
  const { verifier, client, clock } = setup()
  const credentials = answer(client, verifier.challenge()[0]!)
  const nonce = AuthHeader.parse(credentials)!.param('nonce')!
  const flipped = (nonce[0] === 'A' ? 'B' : 'A') + nonce.slice(1)
  for (const bad of [flipped, `${nonce}x`, 'short', '', issueNonce(Buffer.alloc(32, 9), REALM, clock.now(), Buffer.alloc(8))]) {
    const result = verifier.verify(withAuthorization(tamper(credentials, 'nonce', bad)))
    t.equal(!result.ok && result.reason, 'bad_nonce', JSON.stringify(bad.slice(0, 12)))
  }
  const future = issueNonce(SECRET, REALM, clock.now() + 60_000, Buffer.alloc(8))
  const fromFuture = verifier.verify(withAuthorization(tamper(credentials, 'nonce', future)))
  t.equal(!fromFuture.ok && fromFuture.reason, 'bad_nonce', 'issued after now: forged or another clock')
  t.equal(readNonce(SECRET, 'another realm', nonce), undefined, 'a nonce is bound to its realm')
  t.equal(readNonce(SECRET, REALM, nonce), clock.now())
})

t.test('a wrong password, unknown user, or wrong response MUST be refused', async (t) => {
  const { verifier } = setup()
  const challenge = verifier.challenge()[0]!
  const intruder = new DigestClient({ accounts: [{ username: 'trunk', password: 'guess' }] })
  t.equal((verifier.verify(withAuthorization(answer(intruder, challenge))) as { reason: string }).reason, 'bad_response')
  const stranger = new DigestClient({ accounts: [{ username: 'nobody', password: 'pa55' }] })
  t.equal((verifier.verify(withAuthorization(answer(stranger, challenge))) as { reason: string }).reason, 'unknown_user')
})

t.test('credentials for another URI, realm, algorithm or qop MUST be refused', async (t) => {
  const { verifier, client } = setup()
  const challenge = verifier.challenge()[0]!
  const reason = (credentials: string) => {
    const result = verifier.verify(withAuthorization(credentials))
    return result.ok ? 'accepted' : result.reason
  }
  t.equal(reason(answer(client, challenge, 'INVITE', 'sip:other@ozan.example')), 'uri_mismatch', 'RFC 2617 §3.2.2.5')
  t.equal(reason(answer(client, challenge, 'INVITE', 'sip:agent@OZAN.example;x=1')), 'uri_mismatch')
  t.equal(reason(answer(client, challenge, 'BYE')), 'bad_response', 'the method is in A2')
  const good = answer(client, challenge)
  t.equal(reason(tamper(good, 'realm', 'elsewhere')), 'wrong_realm')
  t.equal(reason(tamper(good, 'algorithm', 'SHA-512-256')), 'unsupported_algorithm', 'not offered')
  t.equal(reason(tamper(good, 'algorithm', 'SHA-256-sess')), 'unsupported_algorithm')
  t.equal(reason(tamper(good, 'algorithm', 'SHA-1')), 'unsupported_algorithm')
  t.equal(reason(tamper(good, 'qop', 'auth-int')), 'qop_required')
  t.equal(reason(tamper(good, 'nc', '1')), 'malformed')
  t.equal(reason(tamper(good, 'cnonce', '')), 'malformed')
  const noQop = new AuthHeader('Digest', new Map([...AuthHeader.parse(good)!.params].filter(([k]) => !['qop', 'nc', 'cnonce'].includes(k)))).serialize()
  t.equal(reason(noQop), 'qop_required', 'RFC 2069 answers are not taken')
})

t.test('missing fields, other schemes and oversize values MUST be refused, never thrown', async (t) => {
  const { verifier, client } = setup()
  const good = answer(client, verifier.challenge()[0]!)
  const reason = (...credentials: string[]) => {
    const result = verifier.verify(withAuthorization(...credentials))
    return result.ok ? 'accepted' : result.reason
  }
  t.equal(reason('Digest username="trunk", realm="ozan.example", nonce="n", uri="sip:agent@ozan.example"'), 'malformed', 'no response')
  t.equal(reason('Bearer abc.def'), 'no_credentials')
  t.equal(reason(tamper(good, 'cnonce', 'c'.repeat(1025))), 'oversize')
  t.equal(reason(tamper(good, 'username', 'u'.repeat(5000))), 'oversize')
  t.equal(reason('Digest realm="other", nonce="n", username="u", uri="sip:a@b", response="r"', good), 'accepted', 'our realm found among several')
})

t.test('options MUST be validated when the verifier is built', async (t) => {
  const lookup = () => undefined
  t.throws(() => new DigestVerifier({ realm: REALM, secret: Buffer.alloc(16), lookup }), RangeError, 'a short secret')
  t.throws(() => new DigestVerifier({ realm: REALM, secret: SECRET, lookup, nonceTtlMs: 0 }), RangeError)
  t.throws(() => new DigestVerifier({ realm: REALM, secret: SECRET, lookup, algorithms: [] }), RangeError)
  t.throws(() => new DigestVerifier({ realm: REALM, secret: SECRET, lookup, maxSeenNonceCounts: 0 }), RangeError)
})
