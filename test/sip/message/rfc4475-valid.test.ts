// RFC 4475 §3.1.1: the valid torture messages. Each MUST parse, and its key fields MUST be what the
// RFC says they are. Expected values are copied from the RFC's text, not from the parser.
import t from 'tap'
import { type SipMessage, SipRequest, SipResponse, SipUri, parseSipMessage } from '../../../sip/index.js'
import { torture, VALID } from './rfc4475-corpus.js'

function parse(name: string): SipMessage {
  const result = parseSipMessage(torture(name))
  if (!result.ok) throw new Error(`${name}: ${result.error.reason}`)
  return result.message
}

function request(name: string): SipRequest {
  const m = parse(name)
  if (!(m instanceof SipRequest)) throw new Error(`${name} is not a request`)
  return m
}

function sipUri(uri: unknown): SipUri {
  if (!(uri instanceof SipUri)) throw new Error('not a sip: URI')
  return uri
}

t.test('every §3.1.1 message MUST be accepted as well-formed', async (t) => {
  for (const name of VALID) t.ok(parseSipMessage(torture(name)).ok, name)
})

t.test('wsinv (§3.1.1.1): LWS, folding, escapes in quotes, mixed forms and unknown fields MUST all be accepted', async (t) => {
  const m = request('wsinv')
  t.equal(m.method, 'INVITE')
  const ruri = sipUri(m.uri)
  t.equal(ruri.host, 'chair-dnrc.example.com')
  t.equal(ruri.params.get('unknownparam'), null, 'a URI parameter without a value')
  const h = m.headers
  t.equal(h.to().tag, '1918181833n', 'LWS around ; and = in To')
  t.equal(h.from().displayName, 'J Rosenberg \\"', 'escaped characters within quotes')
  t.equal(h.from().tag, '98asjd8', 'the tag parameter on a folded line')
  t.equal(h.maxForwards(), 68, 'leading zeros in Max-Forwards')
  t.same({ seq: h.cseq().seq, method: h.cseq().method }, { seq: 9, method: 'INVITE' }, 'leading zeros and a folded CSeq')
  t.equal(h.get('Subject'), '', 'an empty subject (compact form s)')
  t.same(
    h.via().map((v) => [v.transport, v.sentBy, v.branch]),
    [
      ['UDP', '192.0.2.2', '390skdjuw'],
      ['TCP', 'spindle.example.com', 'z9hG4bK9ikj8'],
      ['UDP', '192.168.255.111', 'z9hG4bK30239'],
    ],
    'separately listed and comma-separated Via values, long and compact forms, LWS around "/"',
  )
  t.equal(h.get('NewFangledHeader'), 'newfangled value continued newfangled value', 'a folded unknown field, its LWS one SP')
  t.equal(h.get('UnknownHeaderWithUnusualValue'), ';;,,;;,;', 'an unknown field is never split on commas')
  const contact = h.contact()
  t.not(contact, '*')
  if (contact !== '*') {
    t.equal(contact.length, 1)
    t.equal(contact[0]!.displayName, 'Quoted string ""')
    t.same(contact[0]!.params.toJSON(), { newparam: 'newvalue', secondparam: null, q: '0.33' }, 'a header parameter with no value')
  }
  t.same(
    sipUri(h.route()[0]!.uri).params.toJSON(),
    { lr: null, unknownwith: 'value', 'unknown-no-value': null },
    'unknown URI parameters, with and without values',
  )
  t.equal(h.contentType()?.essence, 'application/sdp')
  t.equal(m.body.length, 150)
})

t.test('intmeth (§3.1.1.2): every token character, quoted NUL/BEL/DEL and UTF-8 MUST be accepted', async (t) => {
  const m = request('intmeth')
  t.equal(m.method, "!interesting-Method0123456789_*+`.%indeed'~", '% is not an escape in a method: an unknown method, not INVITE')
  const ruri = sipUri(m.uri)
  t.equal(ruri.user, "1_unusual.URI~(to-be!sure)&isn't+it$/crazy?,/;;*")
  t.equal(ruri.password, "&it+has=1,weird!*pas$wo~d_too.(doesn't-it)")
  t.equal(ruri.host, 'example.com')
  const h = m.headers
  t.equal(h.topVia()?.branch, "z9hG4bK-.!%66*_+`'~", 'a branch of all the non-alphanumeric token characters')
  t.equal(h.to().displayName, 'BEL:\x07 NUL:\x00 DEL:\x7f', 'quoted-pair expansions, including a quoted NUL')
  t.equal(h.from().displayName, "token1~` token2'+_ token3*%!.-", 'a display name made of several tokens')
  t.equal(h.from().params.get("fromparam''~+*_!.-%"), '"работающий"', 'a UTF-8 quoted parameter value')
  t.equal(h.from().tag, "_token~1'+`*%!-.")
  t.equal(h.callId(), 'intmeth.word%ZK-!.*_+\'@word`~)(><:\\/"][?}{', 'Call-ID word characters have no grouping or escaping meaning')
  t.equal(h.cseq().method, m.method)
  t.equal(h.maxForwards(), 255)
  t.equal(h.get("extensionHeader-!.%*+_`'~"), '\ufeff大停電', 'an extension field with a UTF8-NONASCII value')
})

t.test('esc01 (§3.1.1.3): %-escapes in URIs MUST be decoded where the grammar allows them', async (t) => {
  const m = request('esc01')
  const ruri = sipUri(m.uri)
  t.equal(ruri.scheme, 'sip', 'an escaped "sips:" in the user part does not make a SIPS URI')
  t.equal(ruri.user, 'sips:user@example.com')
  t.equal(ruri.host, 'example.net')
  t.equal(sipUri(m.headers.to().uri).user, 'user', '%75se%72')
  t.equal(sipUri(m.headers.from().uri).user, 'I have spaces')
  const contact = m.headers.contact()
  if (contact === '*') throw new Error('unexpected *')
  const uri = sipUri(contact[0]!.uri)
  t.equal(uri.user, 'caller')
  t.equal(uri.params.get('lr'), null, 'an escaped parameter name: %6C%72 is lr')
  t.equal(uri.params.get('name'), 'value%41', 'an escaped parameter value; %25 decodes to a literal %')
})

t.test('escnull (§3.1.1.4): escaped NULs in URIs MUST be accepted and kept apart', async (t) => {
  const m = request('escnull')
  t.equal(sipUri(m.headers.to().uri).user, 'null-\x00-null')
  const contact = m.headers.contact()
  if (contact === '*') throw new Error('unexpected *')
  t.same(
    contact.map((c) => sipUri(c.uri).user),
    ['\x00', '\x00\x00'],
    'two Contacts that differ only in their NULs are two Contacts',
  )
})

t.test('esc02 (§3.1.1.5): % in a method, display name or field name is not an escape', async (t) => {
  const m = request('esc02')
  t.equal(m.method, 'RE%47IST%45R', 'an unknown method, not REGISTER')
  t.equal(m.headers.to().displayName, '%Z%45')
  t.equal(m.headers.topVia()?.branch, 'z9hG4bK209%fzsnel234')
  t.equal(m.headers.get('C%6Fntact'), '<sip:alias2@host2.example.com>', 'C%6Fntact is an unknown field, not Contact')
  const contact = m.headers.contact()
  t.equal(contact === '*' ? 0 : contact.length, 2)
})

t.test('lwsdisp (§3.1.1.6): a display name MAY be followed by < without LWS', async (t) => {
  const from = request('lwsdisp').headers.from()
  t.equal(from.displayName, 'caller')
  t.equal(sipUri(from.uri).user, 'caller')
})

t.test('longreq (§3.1.1.7): long values, many Vias and every case of Via MUST be accepted', async (t) => {
  const m = request('longreq')
  const to = m.headers.to()
  t.equal(to.displayName, `I have a user name of ${'extreme'.repeat(10)} proportion`)
  const toUri = sipUri(to.uri)
  t.equal(toUri.port, 6000)
  t.equal(toUri.params.get('unknownparam1'), `very${'long'.repeat(20)}value`)
  t.equal(toUri.params.get(`very${'long'.repeat(25)}parameternamewithnovalue`), null)
  t.equal(m.headers.from().tag, `12${'982'.repeat(50)}424`)
  t.equal(m.headers.callId(), `longreq.one${'really'.repeat(20)}longcallid`)
  const vias = m.headers.via()
  t.equal(vias.length, 34, '33 short Vias in every case of the name, plus the long one')
  t.same(
    vias.slice(0, 3).map((v) => v.host),
    ['sip33.example.com', 'sip32.example.com', 'sip31.example.com'],
  )
  t.equal(vias[33]!.received, '192.0.2.5')
  t.equal(vias[33]!.branch, `very${'long'.repeat(50)}branchvalue`)
  const contact = m.headers.contact()
  t.equal(contact !== '*' && sipUri(contact[0]!.uri).user, 'amazinglylongcallername'.repeat(5))
  t.equal(m.headers.get(`Unknown-${'Long'.repeat(20)}-Name`)?.startsWith(`unknown-${'long'.repeat(20)}-value;`), true)
  t.equal(m.body.length, 150)
})

t.test('dblreq (§3.1.1.8): bytes after Content-Length in a datagram MUST be discarded (RFC 3261 §18.3)', async (t) => {
  const m = request('dblreq')
  t.equal(m.method, 'REGISTER', 'only the first request is seen')
  t.equal(m.body.length, 0, 'the second request is not taken for a body')
})

t.test('semiuri (§3.1.1.9): a ; in the user part belongs to the user, not to URI parameters', async (t) => {
  const m = request('semiuri')
  const uri = sipUri(m.uri)
  t.equal(uri.user, 'user;par=u@example.net')
  t.equal(uri.host, 'example.com')
  t.equal(uri.params.size, 0)
  t.same(m.headers.getAll('Accept'), ['application/sdp', 'application/pkcs7-mime', 'multipart/mixed', 'multipart/signed', 'message/sip', 'message/sipfrag'])
})

t.test('transports (§3.1.1.10): Via MUST accept UDP, SCTP, TLS, TCP and unknown transports', async (t) => {
  t.same(
    request('transports')
      .headers.via()
      .map((v) => v.transport),
    ['UDP', 'SCTP', 'TLS', 'UNKNOWN', 'TCP'],
  )
})

t.test('mpart01 (§3.1.1.11): a binary multipart body MUST arrive byte for byte', async (t) => {
  const m = request('mpart01')
  t.equal(m.method, 'MESSAGE')
  t.equal(m.body.length, 553)
  t.equal(m.headers.contentType()?.essence, 'multipart/mixed')
  t.equal(m.headers.contentType()?.param('boundary'), '7a9cbec02ceef655')
  const raw = torture('mpart01')
  const bodyStart = raw.indexOf('\r\n\r\n') + 4
  t.ok(m.body.equals(raw.subarray(bodyStart, bodyStart + 553)))
  t.equal(m.headers.topVia()?.rport, true, 'a Via rport parameter without a value (RFC 3581)')
})

t.test('unreason (§3.1.1.12): a Reason-Phrase MAY hold UTF-8 and digits', async (t) => {
  const m = parse('unreason')
  t.ok(m instanceof SipResponse)
  if (m instanceof SipResponse) {
    t.equal(m.status, 200)
    t.equal(m.reason, '= 2**3 * 5**2 но сто девяносто девять - простое')
  }
})

t.test('noreason (§3.1.1.13): an empty Reason-Phrase MUST be accepted', async (t) => {
  const m = parse('noreason')
  t.ok(m instanceof SipResponse)
  if (m instanceof SipResponse) {
    t.equal(m.status, 100)
    t.equal(m.reason, '')
  }
})
