// ACK and CANCEL construction (RFC 3261 §13.2.2.4, §17.1.1.3, §9.1).
import t from 'tap'
import { ack2xx, uacDialog } from '../../../sip/dialog/index.js'
import type { SipRequest } from '../../../sip/message/index.js'
import { ackFor, cancelFor } from '../../../sip/transaction/index.js'
import { lines, RFC3261_200, RFC3261_INVITE, RFC3665_INVITE, request, response, rfc3665Response } from './helpers.js'

t.test('the ACK for a 2xx MUST match RFC 3261 §24.2 F11 (sent straight to the Contact)', async (t) => {
  const ack = ack2xx(request(RFC3261_INVITE), response(RFC3261_200))
  if (!ack.ok) throw ack.error
  t.same(lines(ack.value), [
    'ACK sip:bob@192.0.2.4 SIP/2.0',
    'Max-Forwards: 70',
    'To: "Bob" <sip:bob@biloxi.com>;tag=a6c85cf',
    'From: "Alice" <sip:alice@atlanta.com>;tag=1928301774',
    'Call-ID: a84b4c76e66710',
    'CSeq: 314159 ACK',
    'Content-Length: 0',
    '',
    '',
  ])
})

t.test('the ACK for a 2xx MUST follow the route set, with the INVITE CSeq and credentials (§13.2.2.4, RFC 3665 §3.2 F12)', async (t) => {
  const invite = request([
    ...RFC3665_INVITE,
    'Proxy-Authorization: Digest username="alice", realm="atlanta.example.com", nonce="n", uri="sip:bob@biloxi.example.com", response="r"',
  ])
  const ack = ack2xx(invite, response(rfc3665Response()))
  if (!ack.ok) throw ack.error
  t.equal(ack.value.uri.serialize(), 'sip:bob@client.biloxi.example.com;transport=tcp')
  t.same(ack.value.headers.getAll('Route'), ['<sip:ss1.atlanta.example.com;lr>', '<sip:ss2.biloxi.example.com;lr>'])
  t.same([ack.value.headers.cseq().seq, ack.value.headers.cseq().method], [1, 'ACK'])
  t.equal(ack.value.headers.proxyAuthorization()[0]?.param('username'), 'alice', 'the ACK MUST contain the same credentials as the INVITE')
  const noContact = ack2xx(invite, response(rfc3665Response().filter((l) => !l.startsWith('Contact'))))
  t.equal(!noContact.ok && noContact.error.code, 'no_contact', 'a 2xx without Contact: a typed error')
})

t.test('Dialog.ack MUST use the INVITE CSeq even after later requests, and may carry an answer body', async (t) => {
  const made = uacDialog(request(RFC3665_INVITE), response(rfc3665Response()))
  if (!made.ok) throw made.error
  made.value.createRequest('INFO')
  const reinvite = made.value.createRequest('INVITE')
  const ack = made.value.ack(reinvite, { body: Buffer.from('v=0\r\n'), contentType: 'application/sdp' })
  t.equal(ack.headers.cseq().serialize(), '3 ACK')
  t.equal(ack.headers.get('Content-Type'), 'application/sdp')
  t.equal(made.value.localCSeq, 3, 'the ACK takes no CSeq number')
})

// The transaction layer builds these two (sip/transaction/requests.ts); checked here field by field
// against the same RFC rules, beside the dialog's own ACK.
const fields = (r: SipRequest) => Object.fromEntries(['Via', 'Route', 'To', 'From', 'Call-ID', 'CSeq'].map((n) => [n, r.headers.getAll(n)]))

t.test('the ACK for a non-2xx MUST reuse the INVITE Request-URI, top Via and Route, and the response To (§17.1.1.3)', async (t) => {
  const invite = request(['INVITE sip:bob@biloxi.com SIP/2.0', 'Route: <sip:p1.example.com;lr>', ...RFC3261_INVITE.slice(1)])
  const busy = response(['SIP/2.0 486 Busy Here', ...RFC3261_200.slice(1)])
  const ack = ackFor(invite, busy)
  t.equal(ack.method, 'ACK')
  t.equal(ack.uri.serialize(), 'sip:bob@biloxi.com')
  t.same(fields(ack), {
    Via: ['SIP/2.0/UDP pc33.atlanta.com;branch=z9hG4bKnashds8'],
    Route: ['<sip:p1.example.com;lr>'],
    To: ['Bob <sip:bob@biloxi.com>;tag=a6c85cf'],
    From: ['Alice <sip:alice@atlanta.com>;tag=1928301774'],
    'Call-ID': ['a84b4c76e66710'],
    CSeq: ['314159 ACK'],
  })
})

t.test('a CANCEL MUST copy Request-URI, Call-ID, To, From, CSeq number, top Via and Route (§9.1)', async (t) => {
  const invite = request(['INVITE sip:bob@biloxi.com SIP/2.0', 'Route: <sip:p1.example.com;lr>', ...RFC3261_INVITE.slice(1)], 'v=0\r\n')
  const cancel = cancelFor(invite)
  t.equal(cancel.method, 'CANCEL')
  t.equal(cancel.uri.serialize(), 'sip:bob@biloxi.com')
  t.same(fields(cancel), {
    Via: ['SIP/2.0/UDP pc33.atlanta.com;branch=z9hG4bKnashds8'],
    Route: ['<sip:p1.example.com;lr>'],
    To: ['Bob <sip:bob@biloxi.com>'],
    From: ['Alice <sip:alice@atlanta.com>;tag=1928301774'],
    'Call-ID': ['a84b4c76e66710'],
    CSeq: ['314159 CANCEL'],
  })
  t.equal(cancel.body.length, 0, 'no body')
})
