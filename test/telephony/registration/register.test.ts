// RFC 3261 §10.2 REGISTER as the registration core builds it, and how it answers 401/407 (§22.2)
// and 423 (§10.2.8). The registrar's side is sip/auth's DigestVerifier.
import t from 'tap'
import type { SipRequest } from '../../../sip/index.js'
import { CALL_ID, CONTACT, newCore, publishes, Registrar, records, reply, sends, sent } from './fixtures.js'

const header = (r: SipRequest, name: string) => r.headers.get(name)

t.test('the first REGISTER carries the §10.2.1 fields: Request-URI the domain, To/From the AOR, one Call-ID, CSeq 1, Contact, Expires', async (t) => {
  const core = newCore()
  const actions = core.handle({ type: 'start' }, 1_000)
  t.same(records(actions), [{ type: 'record', state: 'registering', error: null, changedAt: 1_000, registeredUntil: null }], 'recorded as registering')
  const { request, cseq } = sent(actions)
  t.equal(request.method, 'REGISTER')
  t.equal(request.uri.serialize(), 'sip:carrier.example', 'Request-URI: the domain, no user part')
  t.equal(header(request, 'To'), '<sip:ozan-trunk@carrier.example>')
  t.equal(request.headers.from().uri.serialize(), 'sip:ozan-trunk@carrier.example')
  t.equal(request.headers.from().tag, 'from1', 'From carries a tag (§8.1.1.3)')
  t.equal(request.headers.to().tag, undefined, 'To carries none')
  t.equal(header(request, 'Call-ID'), CALL_ID)
  t.equal(header(request, 'CSeq'), '1 REGISTER')
  t.equal(cseq, 1)
  t.equal(header(request, 'Contact'), CONTACT)
  t.equal(header(request, 'Expires'), '600', 'the trunk’s register_expires_s')
  t.equal(header(request, 'Max-Forwards'), '70')
  t.equal(header(request, 'User-Agent'), 'Ozan')
  t.notOk(request.headers.has('Via'), 'no Via: the user agent adds it with a fresh branch')
  t.notOk(request.headers.has('Authorization'), 'no credentials before a challenge')
  t.equal(core.state, 'registering')
})

t.test('without a domain the Request-URI is the registrar host (and its port); an outbound proxy becomes a loose Route', async (t) => {
  const plain = sent(newCore({ row: { domain: null, port: 5080 } }).handle({ type: 'start' }, 0)).request
  t.equal(plain.uri.serialize(), 'sip:203.0.113.10:5080')
  t.equal(header(plain, 'To'), '<sip:ozan-trunk@203.0.113.10>', 'the AOR has no port')
  t.notOk(plain.headers.has('Route'))
  const proxied = sent(newCore({ row: { outbound_proxy: 'edge.carrier.example:5061', transport: 'tcp' } }).handle({ type: 'start' }, 0)).request
  t.equal(header(proxied, 'Route'), '<sip:edge.carrier.example:5061;transport=tcp;lr>', '§8.1.2: the proxy first, loose routing')
  t.equal(proxied.uri.serialize(), 'sip:carrier.example', 'the Request-URI still names the registrar')
})

t.test('a 401 MUST be answered once with Digest credentials: same Call-ID, CSeq plus one (§22.2), accepted by the registrar', async (t) => {
  let now = 0
  const registrar = new Registrar({ now: () => now })
  const core = newCore()
  const first = sent(core.handle({ type: 'start' }, now))
  const challenge = registrar.answer(first.request)
  t.equal(challenge.status, 401)
  const second = sent(core.handle({ type: 'response', cseq: first.cseq, response: challenge }, (now += 40)))
  t.equal(second.cseq, 2)
  t.equal(header(second.request, 'CSeq'), '2 REGISTER')
  t.equal(header(second.request, 'Call-ID'), CALL_ID)
  t.match(header(second.request, 'Authorization'), /^Digest username="ozan-trunk", realm="carrier.example"/)
  const ok = registrar.answer(second.request)
  t.equal(ok.status, 200, 'the registrar verified the credentials')
  const done = core.handle({ type: 'response', cseq: second.cseq, response: ok }, (now += 40))
  t.equal(core.state, 'registered')
  t.same(publishes(done), [{ type: 'publish', event: 'sip.trunk.registered' }])
})

t.test('the digest user is auth_username when the trunk sets one; From keeps the username', async (t) => {
  const registrar = new Registrar({ now: () => 0 }, { username: 'auth-id-77' })
  const core = newCore({ row: { auth_username: 'auth-id-77' } })
  const first = sent(core.handle({ type: 'start' }, 0))
  const second = sent(core.handle({ type: 'response', cseq: first.cseq, response: registrar.answer(first.request) }, 0))
  t.match(header(second.request, 'Authorization'), /username="auth-id-77"/)
  t.equal(second.request.headers.from().uri.serialize(), 'sip:ozan-trunk@carrier.example')
  t.equal(registrar.answer(second.request).status, 200)
})

t.test('a second 401 to the answered REGISTER (not stale) is a failure: "credentials refused", and nothing is re-sent', async (t) => {
  const registrar = new Registrar({ now: () => 0 }, { password: 'not the trunk password' })
  const core = newCore()
  const first = sent(core.handle({ type: 'start' }, 0))
  const second = sent(core.handle({ type: 'response', cseq: first.cseq, response: registrar.answer(first.request) }, 10))
  const refused = registrar.answer(second.request)
  t.equal(refused.status, 401)
  const actions = core.handle({ type: 'response', cseq: second.cseq, response: refused }, 20)
  t.same(sends(actions), [], 'no third REGISTER: §22.2 forbids retrying refused credentials')
  t.same(records(actions), [{ type: 'record', state: 'failed', error: '401 Unauthorized: credentials refused', changedAt: 20, registeredUntil: null }])
  t.same(publishes(actions), [], 'never registered: no sip.trunk.down')
  t.equal(core.state, 'retry_wait')
})

t.test('a stale nonce (stale=true) is answered again with the new nonce (RFC 7616 §3.3)', async (t) => {
  let now = 0
  const registrar = new Registrar({ now: () => now }, { nonceTtlMs: 1_000 })
  const core = newCore()
  const first = sent(core.handle({ type: 'start' }, now))
  const challenge = registrar.answer(first.request)
  now += 5_000 // the answer arrives after the nonce's life
  const second = sent(core.handle({ type: 'response', cseq: first.cseq, response: challenge }, now))
  const stale = registrar.answer(second.request)
  t.match(stale.headers.get('WWW-Authenticate'), /stale=true/)
  const third = sent(core.handle({ type: 'response', cseq: second.cseq, response: stale }, now))
  t.equal(header(third.request, 'CSeq'), '3 REGISTER')
  t.equal(registrar.answer(third.request).status, 200)
})

t.test('a 407 is answered with Proxy-Authorization', async (t) => {
  const registrar = new Registrar({ now: () => 0 })
  const core = newCore()
  const first = sent(core.handle({ type: 'start' }, 0))
  const www = registrar.answer(first.request)
  const proxyChallenge = reply(first.request, 407, 'Proxy Authentication Required', [['Proxy-Authenticate', www.headers.get('WWW-Authenticate')!]])
  const second = sent(core.handle({ type: 'response', cseq: first.cseq, response: proxyChallenge }, 0))
  t.match(header(second.request, 'Proxy-Authorization'), /^Digest username="ozan-trunk"/)
  t.notOk(second.request.headers.has('Authorization'))
})

t.test('a challenge to a trunk without a password fails with that reason', async (t) => {
  const registrar = new Registrar({ now: () => 0 })
  const core = newCore({ password: null })
  const first = sent(core.handle({ type: 'start' }, 0))
  const actions = core.handle({ type: 'response', cseq: first.cseq, response: registrar.answer(first.request) }, 0)
  t.same(sends(actions), [])
  t.equal(records(actions)[0]?.error, '401 Unauthorized: no password is set for the trunk')
})

t.test('423 Interval Too Brief: the REGISTER is sent again asking for the Min-Expires (§10.2.8), and refreshes keep asking for it', async (t) => {
  const core = newCore({ row: { register_expires_s: 60 } })
  const first = sent(core.handle({ type: 'start' }, 0))
  t.equal(header(first.request, 'Expires'), '60')
  const brief = reply(first.request, 423, 'Interval Too Brief', [['Min-Expires', '1800']])
  const second = sent(core.handle({ type: 'response', cseq: first.cseq, response: brief }, 10))
  t.equal(header(second.request, 'Expires'), '1800')
  t.equal(header(second.request, 'Call-ID'), CALL_ID)
  t.equal(second.cseq, 2)
  core.handle({ type: 'response', cseq: second.cseq, response: reply(second.request, 200, 'OK', [['Expires', '1800']]) }, 20)
  t.equal(core.registeredUntil, 20 + 1_800_000)
  const refresh = sent(core.tick(core.nextDeadline()!))
  t.equal(header(refresh.request, 'Expires'), '1800', 'the registrar would refuse the shorter lifetime again')
})

t.test('a 423 without a longer Min-Expires is a failure, not a loop', async (t) => {
  for (const fields of [[], [['Min-Expires', '600']]] as [string, string][][]) {
    const core = newCore()
    const first = sent(core.handle({ type: 'start' }, 0))
    const actions = core.handle({ type: 'response', cseq: first.cseq, response: reply(first.request, 423, 'Interval Too Brief', fields) }, 0)
    t.same(sends(actions), [])
    t.equal(records(actions)[0]?.error, '423 Interval Too Brief')
  }
})

t.test('the lifetime granted is our Contact’s expires parameter, else the Expires field, else what was asked (§10.2.4)', async (t) => {
  const cases: [string, [string, string][], number][] = [
    [
      'our contact among others',
      [
        ['Contact', '<sip:other@192.0.2.1>;expires=30'],
        ['Contact', `${CONTACT};expires=120`],
        ['Expires', '900'],
      ],
      120,
    ],
    ['our contact with its default transport written out (§19.1.4)', [['Contact', '<sip:ozan-trunk@198.51.100.7:5070;transport=UDP>;expires=90']], 90],
    [
      'no contact of ours: the Expires field',
      [
        ['Contact', '<sip:other@192.0.2.1>;expires=30'],
        ['Expires', '900'],
      ],
      900,
    ],
    ['nothing: what was asked', [], 600],
  ]
  for (const [name, fields, grantedS] of cases) {
    const core = newCore()
    const first = sent(core.handle({ type: 'start' }, 0))
    core.handle({ type: 'response', cseq: first.cseq, response: reply(first.request, 200, 'OK', fields) }, 1_000)
    t.equal(core.registeredUntil, 1_000 + grantedS * 1000, name)
  }
})

t.test('a 2xx granting no lifetime (expires=0) is a failure: the registrar kept no binding', async (t) => {
  const core = newCore()
  const first = sent(core.handle({ type: 'start' }, 0))
  const actions = core.handle({ type: 'response', cseq: first.cseq, response: reply(first.request, 200, 'OK', [['Contact', `${CONTACT};expires=0`]]) }, 0)
  t.equal(core.state, 'retry_wait')
  t.equal(records(actions)[0]?.error, '200 OK: the registrar kept no binding')
})

t.test('provisional responses and responses to a superseded CSeq are ignored', async (t) => {
  const registrar = new Registrar({ now: () => 0 })
  const core = newCore()
  const first = sent(core.handle({ type: 'start' }, 0))
  t.same(core.handle({ type: 'response', cseq: first.cseq, response: reply(first.request, 100, 'Trying') }, 0), [])
  const second = sent(core.handle({ type: 'response', cseq: first.cseq, response: registrar.answer(first.request) }, 0))
  t.same(core.handle({ type: 'response', cseq: first.cseq, response: reply(first.request, 500, 'Late') }, 0), [], 'the first REGISTER is done with')
  t.same(core.handle({ type: 'failed', cseq: first.cseq, reason: 'registration timed out' }, 0), [])
  t.equal(core.pendingCSeq, second.cseq)
  t.equal(core.state, 'registering')
})
