// The non-INVITE client transaction (RFC 3261 §17.1.2).
import t from 'tap'
import { DEFAULT_TIMER_VALUES } from '../../../sip/transaction/index.js'
import { Driver, reply, request, TCP_PEER, types } from './fixtures.js'

const { t1Ms, t4Ms } = DEFAULT_TIMER_VALUES

t.test('in Trying, Timer E MUST retransmit at T1, then double up to T2; Timer F MUST end it at 64*T1', async (t) => {
  const d = new Driver()
  const id = d.send(request({ method: 'OPTIONS' }))
  t.equal(d.layer.state(id), 'trying')
  const out = d.advanceTo(64 * t1Ms)
  // Intervals 0.5, 1, 2, 4, 4, 4 … s: sends at 0, 0.5, 1.5, 3.5, 7.5, 11.5 … 31.5 s — eleven in all.
  t.same(d.sendTimes('OPTIONS'), [0, 500, 1500, 3500, 7500, 11500, 15500, 19500, 23500, 27500, 31500])
  t.match(out.slice(-2), [
    { type: 'timeout', transaction: id, timer: 'F' },
    { type: 'terminated', transaction: id },
  ])
})

t.test('in Proceeding, Timer E MUST retransmit every T2', async (t) => {
  const d = new Driver()
  const req = request({ method: 'REGISTER' })
  d.send(req)
  d.advanceTo(600) // sent at 0 and 500; the next E is due at 1500
  t.same(types(d.receive(reply(req, 100))), ['response 100'])
  d.advanceTo(20_000)
  // The Timer E armed in Trying (1500) still fires; from then on every T2 = 4 s.
  t.same(d.sendTimes('REGISTER'), [0, 500, 1500, 5500, 9500, 13500, 17500])
})

t.test('a final response MUST reach the TU, stop retransmissions and move to Completed for T4 (Timer K)', async (t) => {
  const d = new Driver()
  const req = request({ method: 'BYE' })
  const id = d.send(req)
  t.same(types(d.receive(reply(req, 200))), ['response 200'])
  t.equal(d.layer.state(id), 'completed')
  t.same(types(d.receive(reply(req, 200))), [], 'a retransmitted final response is absorbed')
  t.same(types(d.receive(reply(req, 100))), [], 'so is a late provisional')
  d.advanceTo(t4Ms - 1)
  t.equal(d.layer.state(id), 'completed')
  t.same(d.sendTimes('BYE'), [0])
  t.same(types(d.advanceTo(t4Ms)), ['terminated'])
})

t.test('over a reliable transport Timer E MUST NOT run and Timer K MUST be zero', async (t) => {
  const d = new Driver()
  const req = request({ method: 'BYE', transport: 'TCP' })
  const id = d.send(req, TCP_PEER)
  d.advanceTo(10_000)
  t.same(d.sendTimes('BYE'), [0])
  t.same(types(d.receive(reply(req, 481), TCP_PEER)), ['response 481', 'terminated'])
  t.equal(d.layer.state(id), undefined)
})

t.test('a final response in Proceeding MUST also complete the transaction', async (t) => {
  const d = new Driver()
  const req = request({ method: 'INFO' })
  const id = d.send(req)
  d.receive(reply(req, 100))
  t.equal(d.layer.state(id), 'proceeding')
  t.same(types(d.receive(reply(req, 415))), ['response 415'])
  t.equal(d.layer.state(id), 'completed')
})

t.test('a transport error MUST reach the TU and terminate the transaction (§17.1.2.2)', async (t) => {
  const d = new Driver()
  const id = d.send(request({ method: 'OPTIONS' }))
  t.same(types(d.transportError(id)), ['transport_error', 'terminated'])
})
