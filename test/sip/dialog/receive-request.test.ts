// Requests received within a dialog (RFC 3261 §12.2.2).
import t from 'tap'
import { type Dialog, uasDialog } from '../../../sip/dialog/index.js'
import { NameAddr, SipUri } from '../../../sip/message/index.js'
import { RFC3665_INVITE_AT_BOB, request } from './helpers.js'

/** Bob's dialog after answering RFC 3665's INVITE (remote CSeq 1). */
function bob(): Dialog {
  const made = uasDialog(request(RFC3665_INVITE_AT_BOB), { localTag: '314159', localContact: new NameAddr(new SipUri({ host: 'client.biloxi.example.com' })) })
  if (!made.ok) throw made.error
  return made.value
}

/** A request from Alice in the dialog. */
function fromAlice(method: string, seq: number, extra: string[] = [], tags = { to: '314159', from: '9fxced76sl' }) {
  return request([
    `${method} sip:bob@client.biloxi.example.com SIP/2.0`,
    `Via: SIP/2.0/TCP client.atlanta.example.com:5060;branch=z9hG4bK${method}${seq}`,
    'Max-Forwards: 70',
    `From: Alice <sip:alice@atlanta.example.com>;tag=${tags.from}`,
    `To: Bob <sip:bob@biloxi.example.com>;tag=${tags.to}`,
    'Call-ID: 3848276298220188511@atlanta.example.com',
    `CSeq: ${seq} ${method}`,
    ...extra,
  ])
}

t.test('a request with a lower CSeq than the remote sequence number MUST be rejected with 500 (§12.2.2)', async (t) => {
  const d = bob()
  t.same(d.receiveRequest(fromAlice('INFO', 5)), { accept: true })
  t.equal(d.remoteCSeq, 5, 'the remote sequence number MUST be updated')
  t.same(d.receiveRequest(fromAlice('INFO', 4)), { accept: false, status: 500, reason: 'CSeq out of order' })
  t.equal(d.remoteCSeq, 5, 'an out-of-order request changes nothing')
  t.same(d.receiveRequest(fromAlice('INFO', 5)), { accept: true }, 'equal is not lower')
  t.same(d.receiveRequest(fromAlice('INFO', 1000)), { accept: true }, 'gaps are allowed')
})

t.test('ACK and CANCEL MUST NOT be held to the CSeq order (they carry the INVITE number)', async (t) => {
  const d = bob()
  d.receiveRequest(fromAlice('UPDATE', 2))
  t.same(d.receiveRequest(fromAlice('ACK', 1)), { accept: true })
  t.equal(d.remoteCSeq, 2)
})

t.test('a target refresh MUST replace the remote target with its Contact (§12.2.2)', async (t) => {
  const d = bob()
  d.receiveRequest(fromAlice('INVITE', 2, ['Contact: <sip:alice@192.0.2.50>']))
  t.equal(d.remoteTarget.serialize(), 'sip:alice@192.0.2.50')
  d.receiveRequest(fromAlice('UPDATE', 3, ['Contact: <sip:alice@192.0.2.51>']))
  t.equal(d.remoteTarget.serialize(), 'sip:alice@192.0.2.51')
  d.receiveRequest(fromAlice('INFO', 4, ['Contact: <sip:alice@192.0.2.52>']))
  t.equal(d.remoteTarget.serialize(), 'sip:alice@192.0.2.51', 'INFO refreshes nothing')
  d.receiveRequest(fromAlice('UPDATE', 5))
  t.equal(d.remoteTarget.serialize(), 'sip:alice@192.0.2.51', 'no Contact: the target stays')
  t.equal(d.createRequest('BYE').uri.serialize(), 'sip:alice@192.0.2.51', 'our next request goes to the new target')
})

t.test('a BYE MUST terminate the dialog; later requests MUST get 481', async (t) => {
  const d = bob()
  t.same(d.receiveRequest(fromAlice('BYE', 2)), { accept: true })
  t.equal(d.state, 'terminated')
  t.same(d.receiveRequest(fromAlice('INFO', 3)), { accept: false, status: 481, reason: 'Call/Transaction Does Not Exist' })
})

t.test('a request of another dialog MUST get 481', async (t) => {
  const d = bob()
  t.equal((d.receiveRequest(fromAlice('INFO', 2, [], { to: 'other', from: '9fxced76sl' })) as { status: number }).status, 481)
  t.equal((d.receiveRequest(fromAlice('INFO', 2, [], { to: '314159', from: 'other' })) as { status: number }).status, 481)
})
