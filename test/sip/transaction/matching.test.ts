// Matching messages to transactions (RFC 3261 §17.1.3, §17.2.3, §9.2, §8.1.3.3, §18.1.2).
import t from 'tap'
import { SipHeaders, SipRequest, SipResponse } from '../../../sip/index.js'
import { cancelFor, responseTo } from '../../../sip/transaction/index.js'
import { Driver, reply, request, types } from './fixtures.js'

t.test('a response MUST match by its top Via branch and CSeq method: the CANCEL’s 200 does not reach the INVITE (§17.1.3)', async (t) => {
  const d = new Driver()
  const invite = request()
  const inviteId = d.send(invite)
  d.receive(reply(invite, 180))
  const cancelId = d.cancel(inviteId)!
  const out = d.receive(reply(cancelFor(invite), 200))
  t.match(out, [{ type: 'response', transaction: cancelId }])
  t.equal(d.layer.state(inviteId), 'proceeding')
  t.not(cancelId, inviteId)
})

t.test('a response matching no client transaction MUST go to the core (§18.1.2)', async (t) => {
  const d = new Driver()
  const invite = request()
  t.match(d.receive(reply(invite, 200)), [{ type: 'stray_response' }])
  const other = request({ branch: 'z9hG4bKother' })
  d.send(invite)
  t.match(d.receive(reply(other, 200)), [{ type: 'stray_response' }], 'another branch is another transaction')
})

t.test('a response with more than one Via MUST be discarded by a UAC (§8.1.3.3)', async (t) => {
  const d = new Driver()
  const invite = request()
  const id = d.send(invite)
  const response = reply(invite, 180)
  const twoVias = new SipResponse(180, 'Ringing', response.headers.with('Via', 'SIP/2.0/UDP proxy.example;branch=z9hG4bKp1'))
  t.same(d.receive(twoVias), [])
  t.equal(d.layer.state(id), 'calling')
})

t.test('a request MUST match a server transaction by branch, sent-by and method (§17.2.3)', async (t) => {
  const d = new Driver()
  const first = d.receive(request({ method: 'OPTIONS' }))
  t.same(types(first), ['request'])
  t.same(types(d.receive(request({ method: 'OPTIONS', sentBy: 'PC33.Atlanta.example' }))), [], 'the host compares case-insensitively')
  t.same(types(d.receive(request({ method: 'OPTIONS', sentBy: 'elsewhere.example' }))), ['request'], 'another sent-by: another transaction')
  t.same(types(d.receive(request({ method: 'INFO' }))), ['request'], 'another method: another transaction')
  t.equal(d.layer.size, 3)
})

t.test('an ACK MUST match the INVITE server transaction of its branch (§17.2.3); one for a 2xx goes to the core', async (t) => {
  const d = new Driver()
  const invite = request()
  const id = (d.receive(invite)[0] as { transaction: string }).transaction
  d.respond(id, responseTo(invite, 486, 'Busy Here', { toTag: 'x' }))
  d.receive(request({ method: 'ACK', toTag: 'x' }))
  t.equal(d.layer.state(id), 'confirmed')
  const stray = request({ method: 'ACK', branch: 'z9hG4bKack2xx', toTag: 'y' })
  t.match(d.receive(stray), [{ type: 'ack', request: stray }])
})

t.test('a CANCEL MUST get its own server transaction and name the INVITE transaction it matches (§9.2)', async (t) => {
  const d = new Driver()
  const invite = request()
  const inviteId = (d.receive(invite)[0] as { transaction: string }).transaction
  const cancel = cancelFor(invite)
  const out = d.receive(cancel)
  t.match(out, [{ type: 'request', request: cancel, cancels: inviteId }])
  t.not((out[0] as { transaction: string }).transaction, inviteId)
  const unknown = cancelFor(request({ branch: 'z9hG4bKnone' }))
  const alone = d.receive(unknown)[0]
  t.ok(alone?.type === 'request' && alone.cancels === undefined, 'no INVITE transaction: the TU answers 481')
})

t.test('without an RFC 3261 branch, requests MUST match as RFC 2543 defined (§17.2.3)', async (t) => {
  const d = new Driver()
  const legacy = (branch: string, method = 'INVITE', toTag?: string) =>
    new SipRequest(
      method,
      request().uri,
      new SipHeaders([
        ['Via', `SIP/2.0/UDP old.example:5060;branch=${branch}`],
        ['To', toTag === undefined ? '<sip:bob@biloxi.example>' : `<sip:bob@biloxi.example>;tag=${toTag}`],
        ['From', '<sip:carol@old.example>;tag=77'],
        ['Call-ID', 'legacy-1'],
        ['CSeq', `1 ${method}`],
      ]),
    )
  const invite = legacy('1')
  const id = (d.receive(invite)[0] as { transaction: string }).transaction
  t.same(types(d.receive(legacy('1'))), [], 'the same Request-URI, tags, Call-ID, CSeq and top Via: a retransmission')
  t.same(types(d.receive(legacy('2'))), ['request'], 'another top Via: another request')
  d.respond(id, responseTo(invite, 486, 'Busy Here', { toTag: 'old' }))
  d.receive(legacy('1', 'ACK', 'wrong'))
  t.equal(d.layer.state(id), 'completed', 'an ACK whose To tag is not the response’s does not match')
  d.receive(legacy('1', 'ACK', 'old'))
  t.equal(d.layer.state(id), 'confirmed', 'the ACK with the response’s To tag does')
})
