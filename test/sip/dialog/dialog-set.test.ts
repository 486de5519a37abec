// Matching requests and responses to dialogs by (Call-ID, local tag, remote tag) (RFC 3261 §12).
import t from 'tap'
import { DialogSet, dialogKey, requestDialogIdOf, responseDialogIdOf, uacDialog } from '../../../sip/dialog/index.js'
import { RFC3665_INVITE, request, response, rfc3665Response } from './helpers.js'

function alice() {
  const made = uacDialog(request(RFC3665_INVITE), response(rfc3665Response()))
  if (!made.ok) throw made.error
  return made.value
}

t.test('a response MUST match by From tag (local) and To tag (remote); a request by the reverse', async (t) => {
  const set = new DialogSet()
  const d = alice()
  t.ok(set.add(d))
  t.equal(set.forResponse(response(rfc3665Response())), d)
  const bye = d.createRequest('BYE')
  t.same(requestDialogIdOf(bye), { callId: d.id.callId, localTag: '314159', remoteTag: '9fxced76sl' }, 'as Bob sees it')
  t.same(responseDialogIdOf(response(rfc3665Response())), d.id)
  const fromBob = request([
    'BYE sip:alice@client.atlanta.example.com SIP/2.0',
    'Via: SIP/2.0/TCP client.biloxi.example.com:5060;branch=z9hG4bKnashds7',
    'Max-Forwards: 70',
    'From: Bob <sip:bob@biloxi.example.com>;tag=314159',
    'To: Alice <sip:alice@atlanta.example.com>;tag=9fxced76sl',
    'Call-ID: 3848276298220188511@atlanta.example.com',
    'CSeq: 1 BYE',
  ])
  t.equal(set.forRequest(fromBob), d)
})

t.test('Call-ID and tags MUST compare exactly; a request without To tag matches no dialog', async (t) => {
  const set = new DialogSet()
  set.add(alice())
  t.equal(set.get({ callId: '3848276298220188511@ATLANTA.example.com', localTag: '9fxced76sl', remoteTag: '314159' }), undefined)
  t.equal(set.get({ callId: '3848276298220188511@atlanta.example.com', localTag: '9FXCED76SL', remoteTag: '314159' }), undefined)
  t.equal(set.forRequest(request(RFC3665_INVITE)), undefined)
  t.not(dialogKey({ callId: 'a', localTag: 'b;c', remoteTag: 'd' }), dialogKey({ callId: 'a', localTag: 'b', remoteTag: 'c;d' }), 'keys do not collide')
})

t.test('the set MUST stay within maxDialogs and refuse duplicates; prune drops terminated dialogs', async (t) => {
  const set = new DialogSet({ maxDialogs: 1 })
  const d = alice()
  t.ok(set.add(d))
  t.notOk(set.add(alice()), 'a duplicate ID')
  const other = uacDialog(
    request(RFC3665_INVITE.map((l) => (l.startsWith('Call-ID') ? 'Call-ID: other' : l))),
    response(rfc3665Response().map((l) => (l.startsWith('Call-ID') ? 'Call-ID: other' : l))),
  )
  t.notOk(other.ok && set.add(other.value), 'full')
  d.transition('terminated')
  t.equal(set.prune(), 1)
  t.equal(set.size, 0)
  t.ok(other.ok && set.add(other.value))
  t.ok(set.delete(other.ok ? other.value.id : d.id))
  t.throws(() => new DialogSet({ maxDialogs: 0 }), RangeError)
})
