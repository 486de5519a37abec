// The non-INVITE server transaction (RFC 3261 §17.2.2).
import t from 'tap'
import { DEFAULT_TIMER_VALUES, responseTo } from '../../../sip/transaction/index.js'
import { Driver, request, TCP_PEER, types } from './fixtures.js'

const { t1Ms } = DEFAULT_TIMER_VALUES

function incoming(d: Driver, method = 'OPTIONS') {
  const req = request({ method })
  const out = d.receive(req)
  return { req, id: out[0]?.type === 'request' ? out[0].transaction : '', out }
}

t.test('a new request MUST create a server transaction in Trying and reach the TU; no 100 Trying is sent', async (t) => {
  const d = new Driver()
  const { id, out } = incoming(d)
  t.same(types(out), ['request'])
  t.equal(d.layer.state(id), 'trying')
  d.advanceTo(10_000)
  t.same(d.sendTimes(100), [])
})

t.test('in Trying retransmissions MUST be discarded', async (t) => {
  const d = new Driver()
  const { req } = incoming(d)
  t.same(types(d.receive(req)), [])
})

t.test('a provisional response MUST move to Proceeding; retransmissions then get it again', async (t) => {
  const d = new Driver()
  const { req, id } = incoming(d, 'REGISTER')
  t.same(types(d.respond(id, responseTo(req, 100, 'Trying'))), ['send 100'])
  t.equal(d.layer.state(id), 'proceeding')
  t.same(types(d.receive(req)), ['send 100'])
})

t.test('a final response MUST move to Completed; retransmissions get it again; later finals are discarded', async (t) => {
  const d = new Driver()
  const { req, id } = incoming(d)
  t.same(types(d.respond(id, responseTo(req, 200, 'OK', { toTag: 'x' }))), ['send 200'])
  t.equal(d.layer.state(id), 'completed')
  t.same(types(d.receive(req)), ['send 200'])
  t.same(types(d.respond(id, responseTo(req, 500, 'Server Internal Error', { toTag: 'x' }))), [], 'discarded, as §17.2.2 says')
  t.throws(() => d.respond(id, responseTo(req, 180, 'Ringing')), { code: 'invalid_state' })
})

t.test('Timer J MUST keep Completed 64*T1 over UDP and be zero over reliable transports', async (t) => {
  const d = new Driver()
  const { req, id } = incoming(d)
  d.respond(id, responseTo(req, 200, 'OK', { toTag: 'x' }))
  d.advanceTo(64 * t1Ms - 1)
  t.equal(d.layer.state(id), 'completed')
  t.same(types(d.advanceTo(64 * t1Ms)), ['terminated'])
  t.same(types(d.receive(req)), ['request'], 'after Timer J the same request is a new transaction')

  const tcp = new Driver()
  const bye = request({ method: 'BYE', transport: 'TCP' })
  const out = tcp.receive(bye, TCP_PEER)
  const tcpId = out[0]?.type === 'request' ? out[0].transaction : ''
  t.same(types(tcp.respond(tcpId, responseTo(bye, 200, 'OK', { toTag: 'x' }))), ['send 200', 'terminated'])
})

t.test('a transport error MUST reach the TU and terminate the transaction (§17.2.4)', async (t) => {
  const d = new Driver()
  const { id } = incoming(d)
  t.same(types(d.transportError(id)), ['transport_error', 'terminated'])
})
