// The INVITE client transaction (RFC 3261 §17.1.1, RFC 6026 §8.4).
import t from 'tap'
import { ackFor, DEFAULT_TIMER_VALUES } from '../../../sip/transaction/index.js'
import { Driver, reply, request, TCP_PEER, types } from './fixtures.js'

const { t1Ms } = DEFAULT_TIMER_VALUES

t.test('over UDP the INVITE MUST be retransmitted at T1, 2T1, 4T1 … (Timer A) until Timer B fires at 64*T1', async (t) => {
  const d = new Driver()
  const id = d.send(request())
  t.equal(d.layer.state(id), 'calling')
  const out = d.advanceTo(64 * t1Ms)
  // Timer A doubles without the T2 cap: 0, 0.5, 1.5, 3.5, 7.5, 15.5, 31.5 s — seven sends in all.
  t.same(d.sendTimes('INVITE'), [0, 500, 1500, 3500, 7500, 15500, 31500])
  t.same(types(out).slice(-2), ['timeout', 'terminated'])
  t.match(out.at(-2), { type: 'timeout', transaction: id, timer: 'B' }, 'the TU is told of the timeout (it acts as on a 408, §8.1.3.1)')
  t.equal(d.layer.state(id), undefined)
  t.equal(d.layer.size, 0)
})

t.test('over a reliable transport Timer A MUST NOT run; Timer B still does', async (t) => {
  const d = new Driver()
  d.send(request({ transport: 'TCP' }), TCP_PEER)
  const out = d.advanceTo(64 * t1Ms)
  t.same(d.sendTimes('INVITE'), [0])
  t.same(types(out), ['timeout', 'terminated'])
})

t.test('a provisional response MUST move Calling to Proceeding, stop retransmissions and reach the TU', async (t) => {
  const d = new Driver()
  const invite = request()
  const id = d.send(invite)
  d.advanceTo(700)
  t.same(types(d.receive(reply(invite, 100))), ['response 100'])
  t.equal(d.layer.state(id), 'proceeding')
  t.same(types(d.receive(reply(invite, 180))), ['response 180'], 'further provisionals go to the TU too')
  d.advanceTo(200_000)
  t.same(d.sendTimes('INVITE'), [0, 500], 'no retransmission after the 100')
  t.equal(d.layer.state(id), 'proceeding', 'Timer B only fires in Calling: a ringing call waits for its final response')
})

t.test('a 300-699 response MUST be ACKed by the transaction, reach the TU and move to Completed', async (t) => {
  const d = new Driver()
  const invite = request({ extra: [['Route', '<sip:proxy.example;lr>']] })
  const id = d.send(invite)
  d.receive(reply(invite, 180))
  const busy = reply(invite, 486)
  const out = d.receive(busy)
  t.same(types(out), ['send ACK', 'response 486'])
  t.equal(d.layer.state(id), 'completed')
  const send = out[0]
  t.ok(send?.type === 'send')
  if (send?.type !== 'send') return
  t.same(send.target, { transport: 'UDP', host: '192.0.2.10', port: 5060 }, 'the ACK goes where the INVITE went (§17.1.1.3)')
  const ack = send.message
  t.equal(ack.kind, 'request')
  if (ack.kind !== 'request') return
  // §17.1.1.3: Request-URI, Call-ID, From, CSeq number and top Via of the INVITE; To of the response; its Route.
  t.equal(ack.uri.serialize(), invite.uri.serialize())
  t.same(ack.headers.getAll('Via'), [invite.headers.getAll('Via')[0]])
  t.equal(ack.headers.get('From'), invite.headers.get('From'))
  t.equal(ack.headers.get('Call-ID'), invite.headers.get('Call-ID'))
  t.equal(ack.headers.get('CSeq'), '314159 ACK')
  t.equal(ack.headers.get('To'), busy.headers.get('To'))
  t.equal(ack.headers.to().tag, 'a6c85cf')
  t.same(ack.headers.getAll('Route'), ['<sip:proxy.example;lr>'])
  t.ok(ack.headers.has('Max-Forwards'), 'every request carries Max-Forwards (§8.1.1.6)')
  t.same(ack.serialize(), ackFor(invite, busy).serialize())
})

t.test('in Completed a retransmitted final response MUST be ACKed again and MUST NOT reach the TU', async (t) => {
  const d = new Driver()
  const invite = request()
  d.send(invite)
  d.receive(reply(invite, 503))
  d.advance(1000)
  t.same(types(d.receive(reply(invite, 503))), ['send ACK'])
  t.same(types(d.receive(reply(invite, 180))), [], 'a late provisional is absorbed')
  t.same(d.sendTimes('ACK'), [0, 1000])
})

t.test('Timer D MUST hold Completed at least 32 s over UDP and be zero over reliable transports', async (t) => {
  const udp = new Driver()
  const invite = request()
  const id = udp.send(invite)
  udp.receive(reply(invite, 404))
  udp.advanceTo(31_999)
  t.equal(udp.layer.state(id), 'completed')
  t.same(types(udp.advanceTo(32_000)), ['terminated'])

  const tcp = new Driver()
  const overTcp = request({ transport: 'TCP' })
  const tcpId = tcp.send(overTcp, TCP_PEER)
  t.same(types(tcp.receive(reply(overTcp, 404), TCP_PEER)), ['send ACK', 'response 404', 'terminated'])
  t.equal(tcp.layer.state(tcpId), undefined)
})

t.test('a 2xx MUST move to Accepted and reach the TU, which ACKs it; the transaction sends no ACK (RFC 6026 §8.4)', async (t) => {
  const d = new Driver()
  const invite = request()
  const id = d.send(invite)
  t.same(types(d.receive(reply(invite, 200))), ['response 200'])
  t.equal(d.layer.state(id), 'accepted')
  d.advance(500)
  t.same(types(d.receive(reply(invite, 200))), ['response 200'], 'a retransmitted 2xx reaches the TU, so it can ACK again')
  t.same(types(d.receive(reply(invite, 200, 'other-fork'))), ['response 200'], "another fork's 2xx reaches the TU")
  t.same(types(d.receive(reply(invite, 486))), [], 'a non-2xx in Accepted is dropped')
  t.same(d.sendTimes('ACK'), [])
  d.advanceTo(64 * t1Ms - 1)
  t.equal(d.layer.state(id), 'accepted')
  t.same(types(d.advanceTo(64 * t1Ms)), ['terminated'], 'Timer M = 64*T1')
  t.match(d.receive(reply(invite, 200)), [{ type: 'stray_response' }], 'a 2xx after Timer M goes to the core (§18.1.2)')
})

t.test('a 2xx in Proceeding MUST also move to Accepted', async (t) => {
  const d = new Driver()
  const invite = request()
  const id = d.send(invite)
  d.receive(reply(invite, 183))
  d.receive(reply(invite, 200))
  t.equal(d.layer.state(id), 'accepted')
})

t.test('a transport error MUST reach the TU and terminate the transaction (§17.1.1.2)', async (t) => {
  const d = new Driver()
  const id = d.send(request())
  t.same(types(d.transportError(id)), ['transport_error', 'terminated'])
  t.equal(d.layer.size, 0)
  t.same(d.transportError(id), [], 'an error reported for a gone transaction does nothing')
})
