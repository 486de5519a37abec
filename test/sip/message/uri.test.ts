// URIs (RFC 3261 §19.1, §25.1; RFC 3966): parse, serialize, escaping, and a password kept out of logs.
import { inspect } from 'node:util'
import t from 'tap'
import { AbsoluteUri, Params, parseUri, redactUri, SipUri, TelUri } from '../../../sip/index.js'

function sip(text: string): SipUri {
  const uri = parseUri(text)
  if (!(uri instanceof SipUri)) throw new Error(`not a sip URI: ${text}`)
  return uri
}

t.test('a SIP URI MUST be read into user, password, host, port, parameters and headers (§19.1.1)', async (t) => {
  const uri = sip('sips:alice:secret@atlanta.com:5061;transport=tcp;lr;maddr=239.255.255.1?subject=project%20x&priority=urgent')
  t.equal(uri.scheme, 'sips')
  t.equal(uri.user, 'alice')
  t.equal(uri.password, 'secret')
  t.equal(uri.host, 'atlanta.com')
  t.equal(uri.port, 5061)
  t.same(uri.params.toJSON(), { transport: 'tcp', lr: null, maddr: '239.255.255.1' })
  t.same(uri.headers, [
    ['subject', 'project x'],
    ['priority', 'urgent'],
  ])
})

t.test('scheme and parameter names are case-insensitive (§19.1.4)', async (t) => {
  const uri = sip('SIP:bob@Biloxi.com;Transport=UDP')
  t.equal(uri.scheme, 'sip')
  t.equal(uri.params.get('transport'), 'UDP', 'the value keeps its case')
  t.equal(uri.host, 'Biloxi.com')
})

t.test('an IPv6 reference is a host, with or without a port (§25.1)', async (t) => {
  t.same([sip('sip:[2001:db8::10]').host, sip('sip:[2001:db8::10]').port], ['[2001:db8::10]', undefined])
  t.same([sip('sip:carol@[2001:db8::10]:5070').host, sip('sip:carol@[2001:db8::10]:5070').port], ['[2001:db8::10]', 5070])
  t.equal(parseUri('sip:[2001:db8::zz]'), undefined, 'not an IPv6 address')
  t.equal(parseUri('sip:[fe80::1%25eth0]'), undefined, 'no zone identifier')
  t.equal(sip('sip:alice@192.168.001.010').host, '192.168.001.010', 'IPv4address allows leading zeros (1*3DIGIT)')
  t.equal(parseUri('sip:alice@192.168.1.256'), undefined, 'an octet over 255')
  t.equal(parseUri('sip:[2001:db8::10'), undefined, 'unclosed bracket')
})

t.test('malformed SIP URIs MUST be refused', async (t) => {
  for (const bad of [
    'sip:',
    'sip:@example.com',
    'sip:user@',
    'sip:user@exa mple.com',
    'sip:user@example.com:99999',
    'sip:user@example.com:port',
    'sip:user@example.com;;lr',
    'sip:user@example.com;a=1;A=2',
    'sip:user@example.com;x=',
    'sip:us%zzer@example.com',
    'sip:user@example.com?noequals',
    'sip:user@-example.com',
    'sip:user@example.123',
    'sip:<user>@example.com',
  ]) {
    t.equal(parseUri(bad), undefined, bad)
  }
})

t.test('serialize MUST escape what the grammar does not allow unescaped, and parse MUST read it back (§19.1.2)', async (t) => {
  const uri = new SipUri({
    user: 'sips:user@example.com',
    password: 'p@ss:word',
    host: 'example.net',
    params: new Params([
      ['name', 'value%41 ü'],
      ['lr', null],
    ]),
    headers: [['Route', '<sip:example.com>']],
  })
  const text = uri.serialize()
  t.equal(text, 'sip:sips%3Auser%40example.com:p%40ss%3Aword@example.net;name=value%2541%20%C3%BC;lr?Route=%3Csip:example.com%3E')
  const back = sip(text)
  t.same([back.user, back.password, back.params.toJSON(), back.headers], [uri.user, uri.password, uri.params.toJSON(), uri.headers])
})

t.test('a URI password MUST NOT reach a log: not enumerable, not inspected, masked by redactUri', async (t) => {
  const uri = sip('sip:alice:hunter2@example.com')
  t.equal(uri.password, 'hunter2', 'readable where it is needed')
  t.notMatch(JSON.stringify(uri), /hunter2/)
  t.notMatch(inspect(uri, { depth: 5 }), /hunter2/)
  t.equal(redactUri(uri), 'sip:alice:***@example.com')
})

t.test('tel URIs (RFC 3966): a global number, or a local one with phone-context', async (t) => {
  const global = parseUri('tel:+1-201-555-0123;ext=42')
  t.ok(global instanceof TelUri)
  t.same(global instanceof TelUri && [global.number, global.params.get('ext')], ['+1-201-555-0123', '42'])
  t.ok(parseUri('tel:7042;phone-context=example.com') instanceof TelUri)
  t.equal(parseUri('tel:7042'), undefined, 'a local number needs a phone-context')
  t.equal(parseUri('tel:+'), undefined)
  t.equal(parseUri('tel:+1 201'), undefined)
  t.equal(parseUri('tel:+1-201-555-0123;ext=42')?.serialize(), 'tel:+1-201-555-0123;ext=42')
})

t.test('any other scheme is an opaque absoluteURI, not an error (RFC 4475 §3.3.2)', async (t) => {
  const uri = parseUri('soap.beep://192.0.2.103:3002')
  t.ok(uri instanceof AbsoluteUri)
  t.same(uri instanceof AbsoluteUri && [uri.scheme, uri.opaque], ['soap.beep', '//192.0.2.103:3002'])
  t.equal(parseUri('urn:service:sos')?.serialize(), 'urn:service:sos')
  for (const bad of ['<sip:a@b>', '1abc:x', 'abc:', 'abc:has space', 'abc:quo"te']) t.equal(parseUri(bad), undefined, bad)
})
