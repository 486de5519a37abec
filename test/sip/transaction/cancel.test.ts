// Cancelling an INVITE (RFC 3261 §9.1).
import t from 'tap'
import { DEFAULT_TIMER_VALUES } from '../../../sip/transaction/index.js'
import { Driver, reply, request, types } from './fixtures.js'

const { t1Ms } = DEFAULT_TIMER_VALUES

t.test('a CANCEL MUST NOT be sent before a provisional response; it MUST go out when one comes', async (t) => {
  const d = new Driver()
  const invite = request()
  const id = d.send(invite)
  const cancelId = d.cancel(id)
  t.ok(cancelId)
  t.same(d.sendTimes('CANCEL'), [], 'held in Calling')
  d.advanceTo(700)
  const out = d.receive(reply(invite, 100))
  t.same(types(out), ['response 100', 'send CANCEL'])
  t.equal(d.layer.state(cancelId!), 'trying')
  const send = out[1]
  t.ok(send?.type === 'send')
  if (send?.type !== 'send' || send.message.kind !== 'request') return
  t.same(send.target, { transport: 'UDP', host: '192.0.2.10', port: 5060 }, 'to where the INVITE went')
  // §9.1: same Request-URI, Call-ID, To, From, CSeq number and top Via (branch) as the INVITE.
  const cancel = send.message
  t.equal(cancel.uri.serialize(), invite.uri.serialize())
  for (const name of ['Via', 'To', 'From', 'Call-ID']) t.equal(cancel.headers.get(name), invite.headers.get(name), name)
  t.equal(cancel.headers.get('CSeq'), '314159 CANCEL')
  t.equal(cancel.headers.get('Require'), undefined)
})

t.test('in Proceeding the CANCEL MUST go out at once, only once', async (t) => {
  const d = new Driver()
  const invite = request()
  const id = d.send(invite)
  d.receive(reply(invite, 180))
  const cancelId = d.cancel(id)
  t.same(d.sendTimes('CANCEL'), [0])
  t.equal(d.cancel(id), cancelId, 'a second cancel names the same CANCEL')
  t.same(d.sendTimes('CANCEL'), [0])
})

t.test('a CANCEL MUST NOT be sent once a final response came', async (t) => {
  const d = new Driver()
  const invite = request()
  const id = d.send(invite)
  d.cancel(id)
  d.receive(reply(invite, 486))
  t.same(d.sendTimes('CANCEL'), [], 'the final response arrived while the CANCEL waited for a provisional')
  const accepted = new Driver()
  const second = request()
  const secondId = accepted.send(second)
  accepted.receive(reply(second, 200))
  t.equal(accepted.cancel(secondId), undefined, 'nothing to cancel in Accepted')
  t.equal(accepted.cancel('c no-such-transaction'), undefined)
})

t.test('with no final response 64*T1 after the CANCEL, the INVITE transaction MUST be given up (§9.1)', async (t) => {
  const d = new Driver()
  const invite = request()
  const id = d.send(invite)
  d.advanceTo(1_000)
  d.receive(reply(invite, 180))
  d.cancel(id)
  d.advanceTo(1_000 + 64 * t1Ms - 1)
  t.equal(d.layer.state(id), 'proceeding')
  const out = d.advanceTo(1_000 + 64 * t1Ms)
  t.match(out, [
    { type: 'timeout', transaction: id, timer: 'cancel' },
    { type: 'terminated', transaction: id },
  ])
})

t.test('a 487 after the CANCEL MUST be ACKed and reach the TU as any failure', async (t) => {
  const d = new Driver()
  const invite = request()
  const id = d.send(invite)
  d.receive(reply(invite, 180))
  d.cancel(id)
  t.same(types(d.receive(reply(invite, 487))), ['send ACK', 'response 487'])
  d.advanceTo(200_000)
  t.equal(d.log.filter((o) => o.type === 'timeout' && o.transaction === id).length, 0, 'the §9.1 wait stops with the final response')
})
