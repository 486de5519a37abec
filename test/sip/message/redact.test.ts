// No credential may reach a log: Digest responses, other schemes' credentials, passwords in URIs.
import { inspect } from 'node:util'
import t from 'tap'
import { parseSipMessage, redactForLog, redactSipText, type SipMessage } from '../../../sip/index.js'

const SECRETS = ['6629fae49393a05397450978507c4ef1', 'hunter2', 'c2VjcmV0OnBhc3N3b3Jk', 'dGhpcyBpcyBzZWNyZXQ', 'rsp0a4f113b']

function message(): SipMessage {
  const sipfrag = 'SIP/2.0 200 OK\r\nContact: <sip:carol:hunter2@example.com>\r\n'
  const text = [
    'REGISTER sip:alice:hunter2@registrar.biloxi.com SIP/2.0',
    'Via: SIP/2.0/UDP bobspc.biloxi.com:5060;branch=z9hG4bKnashds7',
    'To: Bob <sip:bob:hunter2@biloxi.com>',
    'From: Bob <sip:bob@biloxi.com>;tag=456248',
    'Call-ID: 843817637684230@998sdasdh09',
    'CSeq: 1826 REGISTER',
    'Contact: <sip:bob:hunter2@192.0.2.4>',
    'Authorization: Digest username="bob", realm="biloxi.com", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093",',
    ' uri="sip:bob@biloxi.com", qop=auth, nc=00000001, cnonce="0a4f113b",',
    '  response="6629fae49393a05397450978507c4ef1", opaque="5ccc069c403ebaf9f0171e9517f40e41"',
    'Proxy-Authorization: Basic c2VjcmV0OnBhc3N3b3Jk',
    'Authorization: NoOneKnowsThisScheme token=dGhpcyBpcyBzZWNyZXQ',
    'Authentication-Info: qop=auth, rspauth=rsp0a4f113b, cnonce="0a4f113b", nc=00000001',
    'Content-Type: message/sipfrag',
    `Content-Length: ${sipfrag.length}`,
    '',
    sipfrag,
  ].join('\r\n')
  const result = parseSipMessage(Buffer.from(text))
  if (!result.ok) throw new Error(result.error.reason)
  return result.message
}

t.test('redactForLog MUST leave no credential in the text', async (t) => {
  const text = redactForLog(message())
  for (const secret of SECRETS) t.notMatch(text, secret)
})

t.test('what is not secret stays readable for debugging', async (t) => {
  const text = redactForLog(message())
  t.match(text, 'REGISTER sip:alice:***@registrar.biloxi.com SIP/2.0')
  t.match(text, 'Authorization: Digest username="bob", realm="biloxi.com"')
  t.match(text, 'response="***"')
  t.match(text, 'Proxy-Authorization: Basic ***')
  t.match(text, 'Contact: <sip:bob:***@192.0.2.4>')
  t.match(text, 'Call-ID: 843817637684230@998sdasdh09')
  t.match(text, 'Contact: <sip:carol:***@example.com>', 'a message/sipfrag body is redacted like headers')
})

t.test('a binary body is summarised, not dumped', async (t) => {
  const bytes = Buffer.from(
    'MESSAGE sip:a@b.com SIP/2.0\r\nVia: SIP/2.0/UDP a.com;branch=z9hG4bK1\r\nTo: <sip:a@b.com>\r\nFrom: <sip:c@b.com>;tag=1\r\nCall-ID: x\r\nCSeq: 1 MESSAGE\r\nContent-Type: application/octet-stream\r\nContent-Length: 4\r\n\r\n\x00\x01\x02\x03',
  )
  const result = parseSipMessage(bytes)
  if (!result.ok) throw new Error(result.error.reason)
  t.match(redactForLog(result.message), /\n\n\[4 bytes application\/octet-stream\]$/)
})

t.test('redactSipText masks raw text too, even a message that does not parse', async (t) => {
  const raw = 'INVITE sip:x:hunter2@y SIP/2.0\r\nProxy-Authorization: Digest response=6629fae49393a05397450978507c4ef1\r\nCSeq: broken\r\n'
  const text = redactSipText(raw)
  for (const secret of SECRETS) t.notMatch(text, secret)
  t.match(text, 'CSeq: broken')
})

t.test('a parse error, logged, carries no header value: what a 400 copies is not enumerable', async (t) => {
  const raw = message().serialize().toString().replace('CSeq: 1826 REGISTER', 'CSeq: 1826 INVITE')
  const result = parseSipMessage(Buffer.from(raw))
  if (result.ok) throw new Error('expected a CSeq mismatch')
  t.ok(result.error.reply?.to.includes('hunter2'), 'the 400 can still copy To as received')
  t.notMatch(JSON.stringify(result.error), 'hunter2')
  t.notMatch(inspect(result.error, { depth: 5 }), 'hunter2')
  t.same(Object.keys(result.error).sort(), ['code', 'kind', 'reason', 'status'])
})
