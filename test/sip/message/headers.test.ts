// Header fields (RFC 3261 §7.3, §20): names, compact forms, folding, lists, and the typed values a UA reads.
import t from 'tap'
import { COMPACT_FORMS, parseSipMessage, type SipHeaders, SipRequest, SipUri } from '../../../sip/index.js'

const BASE = [
  'Via: SIP/2.0/UDP pc33.atlanta.com;branch=z9hG4bK776asdhds',
  'Max-Forwards: 70',
  'To: Bob <sip:bob@biloxi.com>',
  'From: Alice <sip:alice@atlanta.com>;tag=1928301774',
  'Call-ID: a84b4c76e66710@pc33.atlanta.com',
  'CSeq: 314159 INVITE',
]

/** A request with the mandatory fields (§8.1.1) and `extra` lines; `replace` swaps fields of BASE by name. */
function request(extra: string[] = [], replace: Record<string, string> = {}, method = 'INVITE'): Buffer {
  const lines = BASE.map((l) => replace[l.slice(0, l.indexOf(':'))] ?? l)
  return Buffer.from(`${method} sip:bob@biloxi.com SIP/2.0\r\n${[...lines, ...extra].join('\r\n')}\r\nContent-Length: 0\r\n\r\n`)
}

function headersOf(bytes: Buffer): SipHeaders {
  const result = parseSipMessage(bytes)
  if (!result.ok) throw new Error(result.error.reason)
  return result.message.headers
}

function reasonOf(bytes: Buffer): string | undefined {
  const result = parseSipMessage(bytes)
  return result.ok ? undefined : result.error.reason
}

t.test('header field names MUST be compared case-insensitively (§7.3.1)', async (t) => {
  const h = headersOf(request(['sUbJeCt: lunch', 'x-CUSTOM: 1']))
  t.equal(h.get('subject'), 'lunch')
  t.equal(h.get('SUBJECT'), 'lunch')
  t.equal(h.toArray().find((f) => f.value === 'lunch')?.name, 'Subject', 'a known name takes its canonical spelling')
  t.equal(h.get('X-Custom'), '1')
})

t.test('compact forms MUST be accepted as their long names (§7.3.3, RFC 3515 r, RFC 6665 o and u)', async (t) => {
  const lines = ['i: other@id', 'm: <sip:alice@pc33.atlanta.com>', 'e: gzip', 'c: application/sdp', 'f: <sip:alice@atlanta.com>;tag=1', 's: hi']
  const bytes = Buffer.from(
    `OPTIONS sip:bob@biloxi.com SIP/2.0\r\nv: SIP/2.0/TCP a.example.com;branch=z9hG4bK1\r\nt: <sip:bob@biloxi.com>\r\n${lines.join('\r\n')}\r\nk: timer\r\nr: <sip:carol@example.com>\r\no: refer;id=3\r\nu: dialog\r\nCSeq: 1 OPTIONS\r\nl: 0\r\n\r\n`,
  )
  const h = headersOf(bytes)
  t.equal(h.callId(), 'other@id')
  t.equal(h.topVia()?.transport, 'TCP')
  t.equal(h.to().uri.serialize(), 'sip:bob@biloxi.com')
  t.equal(h.from().tag, '1')
  t.equal(h.get('Content-Encoding'), 'gzip')
  t.equal(h.contentType()?.essence, 'application/sdp')
  t.equal(h.get('Subject'), 'hi')
  t.equal(h.get('Supported'), 'timer')
  t.equal(h.referTo()?.uri.serialize(), 'sip:carol@example.com')
  t.same([h.event()?.type, h.event()?.id], ['refer', '3'])
  t.equal(h.get('Allow-Events'), 'dialog')
  t.equal(COMPACT_FORMS['r'], 'Refer-To')
})

t.test('a field MAY be folded over lines starting with SP or HTAB; the LWS reads as one SP (§7.3.1)', async (t) => {
  const h = headersOf(request(["Subject: I know you're there,\r\n  pick up the phone\r\n\tand talk to me!"]))
  t.equal(h.get('Subject'), "I know you're there, pick up the phone and talk to me!")
  t.equal(reasonOf(Buffer.from('INVITE sip:a@b.com SIP/2.0\r\n folded: start\r\n\r\n')), 'Malformed header field line', 'a start line cannot be continued')
})

t.test('list fields MUST split on commas, but not inside quotes or angle brackets (§7.3.1)', async (t) => {
  const h = headersOf(
    request([
      'Contact: "Doe, John" <sip:john@example.com>;x="a,b";q=0.7, <sip:j,k@example.net>, sip:j2@example.org',
      'Route: <sip:p1.example.com;lr>,<sip:p2.example.com;lr>',
      'Allow: INVITE, ACK,, BYE',
      'Warning: 399 host "a, \\"quoted\\", text", 307 isi.edu "Session parameter \'foo\' not understood"',
    ]),
  )
  const contact = h.contact()
  if (contact === '*') throw new Error('unexpected *')
  t.same(
    contact.map((c) => [c.displayName, c.uri.serialize()]),
    [
      ['Doe, John', 'sip:john@example.com'],
      [undefined, 'sip:j,k@example.net'],
      [undefined, 'sip:j2@example.org'],
    ],
  )
  t.same(contact[0]!.params.toJSON(), { x: '"a,b"', q: '0.7' })
  t.same(
    h.route().map((r) => r.uri.serialize()),
    ['sip:p1.example.com;lr', 'sip:p2.example.com;lr'],
  )
  t.same(h.getAll('Allow'), ['INVITE', 'ACK', 'BYE'], 'an empty element of a plain list is skipped')
  t.equal(h.getAll('Warning').length, 2)
})

t.test('fields that are not lists MUST NOT be split: challenges, credentials, Date, unknown fields', async (t) => {
  const h = headersOf(
    request([
      'WWW-Authenticate: Digest realm="atlanta.com", domain="sip:ss1.carrier.com", qop="auth,auth-int", nonce="f84f1cec41e6cbe5aea9c8e88d359", opaque="", stale=FALSE, algorithm=MD5',
      'Proxy-Authenticate: Digest realm="b, c", nonce="n"',
      'Authorization: Digest username="bob", realm="biloxi.com", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", uri="sip:bob@biloxi.com", qop=auth, nc=00000001, cnonce="0a4f113b", response="6629fae49393a05397450978507c4ef1", opaque="5ccc069c403ebaf9f0171e9517f40e41"',
      'Date: Sat, 13 Nov 2010 23:29:00 GMT',
      'X-List: a, b, c',
    ]),
  )
  t.equal(h.getAll('WWW-Authenticate').length, 1)
  const challenge = h.wwwAuthenticate()[0]!
  t.equal(challenge.scheme, 'Digest')
  t.same([challenge.param('realm'), challenge.param('qop'), challenge.param('opaque'), challenge.param('stale')], ['atlanta.com', 'auth,auth-int', '', 'FALSE'])
  t.equal(h.proxyAuthenticate()[0]!.param('realm'), 'b, c')
  const credentials = h.authorization()[0]!
  t.same([credentials.param('username'), credentials.param('nc'), credentials.param('response')], ['bob', '00000001', '6629fae49393a05397450978507c4ef1'])
  t.equal(h.date(), Date.UTC(2010, 10, 13, 23, 29, 0))
  t.same(h.getAll('X-List'), ['a, b, c'])
})

t.test('Via: sent-by, branch, received and rport MUST be read (§20.42, RFC 3581)', async (t) => {
  const h = headersOf(
    request([], {
      Via: 'Via: SIP/2.0/UDP [2001:db8::9]:5070;branch=z9hG4bKnashds8;received=192.0.2.1;rport=5071, SIP/2.0/TLS gw.example.com;branch=z9hG4bK2;rport',
    }),
  )
  const [top, next] = h.via()
  t.same([top!.transport, top!.host, top!.port, top!.sentBy], ['UDP', '[2001:db8::9]', 5070, '[2001:db8::9]:5070'])
  t.same([top!.branch, top!.received, top!.rport], ['z9hG4bKnashds8', '192.0.2.1', 5071])
  t.same([next!.transport, next!.rport], ['TLS', true])
  t.equal(top!.serialize(), 'SIP/2.0/UDP [2001:db8::9]:5070;branch=z9hG4bKnashds8;received=192.0.2.1;rport=5071')
  for (const bad of [
    'SIP/2.0 UDP a.com',
    'SIP/2.0/UDP',
    'SIP/2.0/UDPa.com',
    'SIP/2.0/UDP a.com;received=a.com',
    'SIP/2.0/UDP a.com;ttl=300',
    'SIP/2.0/UDP a.com;rport=x',
  ]) {
    t.equal(reasonOf(request([], { Via: `Via: ${bad}` })), 'Malformed Via header field', bad)
  }
})

t.test('From and To: display name, URI and tag; the addr-spec form may carry no ? or , (§20.10, §20.20, §20.39)', async (t) => {
  const h = headersOf(request([], { To: 'To: sip:bob@biloxi.com;tag=a6c85cf', From: 'From: "Alice \\"A\\"" <sips:alice@atlanta.com>;tag=88sja8x' }))
  t.same([h.to().displayName, h.to().uri.serialize(), h.to().tag], [undefined, 'sip:bob@biloxi.com', 'a6c85cf'])
  t.same([h.from().displayName, h.from().uri.scheme, h.from().tag], ['Alice "A"', 'sips', '88sja8x'])
  t.equal(h.from().serialize(), '"Alice \\"A\\"" <sips:alice@atlanta.com>;tag=88sja8x')
  t.equal(reasonOf(request([], { To: 'To: sip:bob@biloxi.com?x=y' })), 'Malformed To header field')
  t.equal(reasonOf(request([], { From: 'From: <sip:alice@atlanta.com>;tag' })), 'Malformed From header field', 'a tag needs a value')
})

t.test('Contact: * stands alone, q and expires are checked (§20.10, §10.2.2)', async (t) => {
  t.equal(headersOf(request(['Contact: *', 'Expires: 0'], {}, 'INVITE')).contact(), '*')
  t.same(headersOf(request([])).contact(), [], 'no Contact')
  t.equal(reasonOf(request(['Contact: *, <sip:a@b.com>'])), 'Malformed Contact header field')
  t.equal(reasonOf(request(['Contact: <sip:a@b.com>;q=1.5'])), 'Malformed Contact header field')
  t.equal(reasonOf(request(['Contact: <sip:a@b.com>;expires=4294967296'])), 'Malformed Contact header field')
  t.equal(reasonOf(request(['Contact: <sip:a@b.com>,'])), 'Malformed Contact header field', 'an empty element of a checked list')
})

t.test('Route and Record-Route MUST be name-addr, in order (§20.30, §20.34)', async (t) => {
  const h = headersOf(request(['Record-Route: <sip:p2.example.com;lr>', 'Record-Route: <sip:p1.example.com;lr>']))
  t.same(
    h.recordRoute().map((r) => r.uri instanceof SipUri && r.uri.host),
    ['p2.example.com', 'p1.example.com'],
  )
  t.equal(reasonOf(request(['Route: sip:p1.example.com'])), 'Malformed Route header field')
})

t.test('CSeq, Max-Forwards, Expires and Content-Type values MUST be in range (§20.16, §20.22, §20.19, §20.15)', async (t) => {
  const h = headersOf(request(['Expires: 7200', 'Content-Type: Application/SDP; charset="utf-8"'], { CSeq: 'CSeq: 4294967295 INVITE' }))
  t.same([h.cseq().seq, h.cseq().method], [4294967295, 'INVITE'])
  t.equal(h.expires(), 7200)
  t.same([h.contentType()?.essence, h.contentType()?.param('charset')], ['application/sdp', 'utf-8'])
  t.equal(reasonOf(request([], { CSeq: 'CSeq: 4294967296 INVITE' })), 'Malformed CSeq header field')
  t.equal(reasonOf(request([], { CSeq: 'CSeq: -1 INVITE' })), 'Malformed CSeq header field')
  t.equal(reasonOf(request([], { 'Max-Forwards': 'Max-Forwards: 256' })), 'Malformed Max-Forwards header field')
  t.equal(reasonOf(request(['Expires: soon'])), 'Malformed Expires header field')
  t.equal(reasonOf(request(['Content-Type: sdp'])), 'Malformed Content-Type header field')
})

t.test('Event and Subscription-State MUST be read (RFC 6665 §8.4)', async (t) => {
  const h = headersOf(request(['Event: presence.winfo;id=7', 'Subscription-State: terminated;reason=timeout;retry-after=30']))
  t.same([h.event()?.type, h.event()?.id], ['presence.winfo', '7'])
  const state = h.subscriptionState()
  t.same([state?.state, state?.reason, state?.retryAfter, state?.expires], ['terminated', 'timeout', 30, undefined])
  t.equal(reasonOf(request(['Subscription-State: active;expires=soon'])), 'Malformed Subscription-State header field')
})

t.test('Refer-To MUST be read, including an escaped Replaces header (RFC 3515 §2.1, RFC 3891)', async (t) => {
  const h = headersOf(request(['Refer-To: <sip:carol@example.com?Replaces=12345%40192.168.118.3%3Bto-tag%3D12345%3Bfrom-tag%3D5FFE-3994>']))
  const target = h.referTo()?.uri
  t.same(target instanceof SipUri && target.headers, [['Replaces', '12345@192.168.118.3;to-tag=12345;from-tag=5FFE-3994']])
})

t.test('the fields a request MUST carry (§8.1.1) are checked, and a repeated single field is refused', async (t) => {
  for (const name of ['Via', 'From', 'To', 'Call-ID', 'CSeq']) {
    const lines = BASE.filter((l) => !l.startsWith(`${name}:`))
    const bytes = Buffer.from(`INVITE sip:bob@biloxi.com SIP/2.0\r\n${lines.join('\r\n')}\r\n\r\n`)
    t.equal(reasonOf(bytes), `Missing ${name} header field`, name)
  }
  t.equal(reasonOf(request(['To: <sip:eve@example.com>'])), 'Multiple To header fields')
  t.equal(reasonOf(request([], {}, 'OPTIONS')), 'CSeq method does not match the request method')
})

t.test('SipHeaders: a copy per change, names canonical, typed values read once', async (t) => {
  const result = parseSipMessage(request())
  if (!result.ok || !(result.message instanceof SipRequest)) throw new Error('parse')
  const h = result.message.headers
  const withVia = h.prepend('v', 'SIP/2.0/UDP proxy.example.com;branch=z9hG4bKp1')
  t.equal(withVia.topVia()?.host, 'proxy.example.com', 'a new top Via goes first')
  t.equal(h.topVia()?.host, 'pc33.atlanta.com', 'the original is unchanged')
  t.same(withVia.with('Supported', 'timer').getAll('supported'), ['timer'])
  t.equal(h.set('Max-Forwards', '69').maxForwards(), 69)
  t.equal(h.without('Max-Forwards').maxForwards(), undefined)
  t.throws(() => h.without('From').from(), { name: 'SipHeaderError' }, 'a required field missing from a message built in code')
})
