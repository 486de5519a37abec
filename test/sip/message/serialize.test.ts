// Serializing: what the parser reads back MUST be what was written (the serialize()/parse() pairs).
import t from 'tap'
import {
  AuthHeader,
  CSeq,
  digestChallenge,
  digestCredentials,
  MediaType,
  NameAddr,
  Params,
  parseSipMessage,
  SipHeaders,
  SipRequest,
  SipResponse,
  SipUri,
  TelUri,
  Via,
} from '../../../sip/index.js'
import { TORTURE_NAMES, torture } from './rfc4475-corpus.js'
import { structure } from './structure.js'

t.test('every torture message that parses MUST serialize to a message that parses to the same structure', async (t) => {
  for (const name of TORTURE_NAMES) {
    const first = parseSipMessage(torture(name))
    if (!first.ok) continue
    const bytes = first.message.serialize()
    const second = parseSipMessage(bytes)
    t.ok(second.ok, `${name} reparses`)
    if (second.ok) {
      t.same(structure(second.message), structure(first.message), name)
      t.ok(second.message.serialize().equals(bytes), `${name}: serialize is stable`)
    }
  }
})

t.test('a request built in code MUST serialize to RFC 3261 wire form, long names and Content-Length last', async (t) => {
  const request = new SipRequest(
    'INVITE',
    new SipUri({ user: 'bob', host: 'biloxi.com' }),
    new SipHeaders([
      ['v', new Via('UDP', 'pc33.atlanta.com', undefined, new Params([['branch', 'z9hG4bK776asdhds']])).serialize()],
      ['Max-Forwards', '70'],
      ['t', new NameAddr(new SipUri({ user: 'bob', host: 'biloxi.com' }), Params.empty, 'Bob').serialize()],
      ['f', new NameAddr(new SipUri({ user: 'alice', host: 'atlanta.com' }), new Params([['tag', '1928301774']]), 'Alice').serialize()],
      ['i', 'a84b4c76e66710@pc33.atlanta.com'],
      ['CSeq', new CSeq(314159, 'INVITE').serialize()],
      ['c', new MediaType('application', 'sdp').serialize()],
    ]),
    Buffer.from('v=0\r\n'),
  )
  t.equal(
    request.serialize().toString(),
    [
      'INVITE sip:bob@biloxi.com SIP/2.0',
      'Via: SIP/2.0/UDP pc33.atlanta.com;branch=z9hG4bK776asdhds',
      'Max-Forwards: 70',
      'To: "Bob" <sip:bob@biloxi.com>',
      'From: "Alice" <sip:alice@atlanta.com>;tag=1928301774',
      'Call-ID: a84b4c76e66710@pc33.atlanta.com',
      'CSeq: 314159 INVITE',
      'Content-Type: application/sdp',
      'Content-Length: 5',
      '',
      'v=0',
      '',
    ].join('\r\n'),
  )
  t.ok(parseSipMessage(request.serialize()).ok)
})

t.test('a CR or LF in a value built in code MUST NOT start a new header field (no injection)', async (t) => {
  const response = new SipResponse(
    200,
    'OK\r\nX-Evil: 1',
    new SipHeaders([
      ['Via', 'SIP/2.0/UDP a.com;branch=z9hG4bK1'],
      ['From', '<sip:a@b.com>;tag=1'],
      ['To', '<sip:a@b.com>;tag=2'],
      ['Call-ID', 'x'],
      ['CSeq', '1 OPTIONS'],
      ['Subject', 'hi\r\nX-Evil: 2'],
    ]),
  )
  const parsed = parseSipMessage(response.serialize())
  if (!parsed.ok) throw new Error(parsed.error.reason)
  t.equal(parsed.message.headers.get('X-Evil'), undefined)
  t.equal(parsed.message.headers.get('Subject'), 'hi X-Evil: 2')
  t.equal(parsed.message instanceof SipResponse && parsed.message.reason, 'OK X-Evil: 1')
  t.equal(new NameAddr(new SipUri({ host: 'a.com' }), Params.empty, 'line\r\nbreak').serialize(), '"linebreak" <sip:a.com>')
})

t.test('typed values MUST survive serialize() then parse()', async (t) => {
  const via = Via.parse('SIP/2.0/TCP [2001:db8::1]:5061;branch=z9hG4bKx;rport;received=192.0.2.7')!
  t.equal(Via.parse(via.serialize())?.serialize(), via.serialize())
  const addr = NameAddr.parse('"A \\"quoted\\" name" <sips:a@example.com;transport=tls>;tag=9;x="y z"')!
  t.same(NameAddr.parse(addr.serialize()), addr)
  const tel = NameAddr.parse('<tel:+1-555-0100;phone-context=+1>;tag=2')!
  t.ok(tel.uri instanceof TelUri)
  t.equal(NameAddr.parse(tel.serialize())?.serialize(), tel.serialize())
  t.same(MediaType.parse(MediaType.parse('multipart/mixed;boundary="a b"')!.serialize()), MediaType.parse('multipart/mixed;boundary="a b"'))
})

t.test('Digest challenge and credentials MUST round-trip with the quoting RFC 2617 uses', async (t) => {
  const challenge = AuthHeader.parse(
    'Digest realm="atlanta.com", nonce="84a4cc6f3082121f32b42a2187831a9e", qop="auth,auth-int", algorithm=SHA-256, stale=TRUE',
  )!
  t.same(digestChallenge(challenge), {
    realm: 'atlanta.com',
    nonce: '84a4cc6f3082121f32b42a2187831a9e',
    opaque: undefined,
    algorithm: 'SHA-256',
    qop: ['auth', 'auth-int'],
    stale: true,
    domain: undefined,
  })
  t.equal(challenge.serialize(), 'Digest realm="atlanta.com", nonce="84a4cc6f3082121f32b42a2187831a9e", qop="auth,auth-int", algorithm=SHA-256, stale=TRUE')
  const credentials = new AuthHeader(
    'Digest',
    new Map([
      ['username', 'alice'],
      ['realm', 'atlanta.com'],
      ['nonce', 'n"1'],
      ['uri', 'sip:bob@biloxi.com'],
      ['response', 'dfe56131d1958046689d83306477ecc'],
      ['qop', 'auth'],
      ['nc', '00000001'],
      ['cnonce', '0a4f113b'],
    ]),
  )
  t.equal(
    credentials.serialize(),
    'Digest username="alice", realm="atlanta.com", nonce="n\\"1", uri="sip:bob@biloxi.com", response="dfe56131d1958046689d83306477ecc", qop=auth, nc=00000001, cnonce="0a4f113b"',
  )
  t.same(digestCredentials(AuthHeader.parse(credentials.serialize())!), {
    username: 'alice',
    realm: 'atlanta.com',
    nonce: 'n"1',
    uri: 'sip:bob@biloxi.com',
    response: 'dfe56131d1958046689d83306477ecc',
    algorithm: undefined,
    cnonce: '0a4f113b',
    opaque: undefined,
    qop: 'auth',
    nc: '00000001',
  })
  t.equal(AuthHeader.parse('Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJib2IifQ.c2ln')?.token68, 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJib2IifQ.c2ln', 'RFC 8898 Bearer')
  for (const bad of ['Digest', 'Digest realm', 'Digest realm="a", realm="b"', 'Digest realm="a",', 'Digest realm="unterminated']) {
    t.equal(AuthHeader.parse(bad), undefined, bad)
  }
})

t.test('SipRequest.parse and SipResponse.parse take only their own kind', async (t) => {
  const request = torture('lwsdisp')
  const response = torture('noreason')
  t.ok(SipRequest.parse(request).ok)
  t.ok(SipResponse.parse(response).ok)
  const wrong = SipRequest.parse(response)
  t.same(!wrong.ok && [wrong.error.code, wrong.error.kind], ['bad_start_line', 'response'])
  t.notOk(SipResponse.parse(request).ok)
})

t.test('values built in code that could not be written out are refused up front', async (t) => {
  t.throws(() => new SipHeaders([['X-Evil\r\nInjected', 'v']]), TypeError, 'a field name must be a token')
  t.throws(() => new SipUri({ host: 'evil.com>\r\nX: y' }), TypeError)
  t.throws(() => new SipUri({ host: 'example.com', port: 70000 }), TypeError)
  t.throws(() => new Via('UDP', 'bad host', undefined), TypeError)
  t.doesNotThrow(() => new SipUri({ host: '[2001:db8::1]', port: 5060 }))
})
