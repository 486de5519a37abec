// The INVITE server transaction (RFC 3261 §17.2.1, RFC 6026 §8.5-§8.7).
import t from 'tap'
import { DEFAULT_TIMER_VALUES, responseTo, SipTransactionError, type TransactionOutput } from '../../../sip/transaction/index.js'
import { Driver, request, TCP_PEER, types, UDP_PEER } from './fixtures.js'

const { t1Ms, t4Ms } = DEFAULT_TIMER_VALUES

function incoming(d: Driver, transport: 'UDP' | 'TCP' = 'UDP') {
  const invite = request({ transport, sentBy: 'pc33.atlanta.example:5066' })
  const out = d.receive(invite, transport === 'UDP' ? UDP_PEER : TCP_PEER)
  const id = out[0]?.type === 'request' ? out[0].transaction : ''
  return { invite, id, out }
}

function sent(outputs: readonly TransactionOutput[]) {
  return outputs.flatMap((o) => (o.type === 'send' ? [o] : []))
}

t.test('a new INVITE MUST create a server transaction in Proceeding and reach the TU', async (t) => {
  const d = new Driver()
  const { invite, id, out } = incoming(d)
  t.match(out, [{ type: 'request', request: invite, source: UDP_PEER }])
  t.equal(d.layer.state(id), 'proceeding')
})

t.test('a 100 Trying MUST be sent when the TU has not answered within 200 ms', async (t) => {
  const d = new Driver()
  const { invite } = incoming(d)
  t.same(types(d.advanceTo(199)), [])
  const out = sent(d.advanceTo(200))
  t.equal(out.length, 1)
  const trying = out[0]!.message
  t.equal(trying.kind === 'response' && trying.status, 100)
  // §8.2.6: Via, From, To, Call-ID, CSeq copied. §18.2.2: back to the source address, the sent-by port.
  t.same(trying.headers.getAll('Via'), invite.headers.getAll('Via'))
  t.equal(trying.headers.get('CSeq'), '314159 INVITE')
  t.same(out[0]!.target, { transport: 'UDP', host: '192.0.2.10', port: 5066 })
})

t.test('no 100 Trying MUST be sent when the TU answered within 200 ms', async (t) => {
  const d = new Driver()
  const { invite, id } = incoming(d)
  d.advanceTo(150)
  t.same(types(d.respond(id, responseTo(invite, 180, 'Ringing', { toTag: 'x' }))), ['send 180'])
  d.advanceTo(5_000)
  t.same(d.sendTimes(100), [])
})

t.test('tryingDelayMs: 0 sends the 100 Trying at once', async (t) => {
  const d = new Driver({ tryingDelayMs: 0 })
  const { out } = incoming(d)
  t.same(types(out), ['request', 'send 100'])
})

t.test('in Proceeding a retransmitted INVITE MUST be answered with the most recent provisional response, and absorbed', async (t) => {
  const d = new Driver()
  const { invite, id } = incoming(d)
  t.same(types(d.receive(invite)), [], 'nothing provisional sent yet: absorbed')
  d.advanceTo(300) // 100 Trying sent at 200
  t.same(types(d.receive(invite)), ['send 100'])
  d.respond(id, responseTo(invite, 183, 'Session Progress', { toTag: 'x' }))
  t.same(types(d.receive(invite)), ['send 183'])
})

t.test('a 300-699 MUST move to Completed and be retransmitted by Timer G (T1 doubling to T2) until Timer H at 64*T1', async (t) => {
  const d = new Driver()
  const { invite, id } = incoming(d)
  t.same(types(d.respond(id, responseTo(invite, 486, 'Busy Here', { toTag: 'x' }))), ['send 486'])
  t.equal(d.layer.state(id), 'completed')
  const out = d.advanceTo(64 * t1Ms)
  t.same(d.sendTimes(486), [0, 500, 1500, 3500, 7500, 11500, 15500, 19500, 23500, 27500, 31500])
  t.match(out.slice(-2), [{ type: 'timeout', transaction: id, timer: 'H' }, { type: 'terminated' }], 'no ACK: the TU is told (§17.2.1)')
})

t.test('in Completed a retransmitted INVITE MUST get the final response again', async (t) => {
  const d = new Driver()
  const { invite, id } = incoming(d)
  d.respond(id, responseTo(invite, 603, 'Decline', { toTag: 'x' }))
  t.same(types(d.receive(invite)), ['send 603'])
})

t.test('an ACK in Completed MUST move to Confirmed, stop G and H, and absorb ACKs until Timer I (T4)', async (t) => {
  const d = new Driver()
  const { invite, id } = incoming(d)
  const final = responseTo(invite, 404, 'Not Found', { toTag: 'x' })
  d.respond(id, final)
  d.advanceTo(600)
  const ack = request({ method: 'ACK', sentBy: 'pc33.atlanta.example:5066', toTag: 'x' })
  t.same(types(d.receive(ack)), [], 'the ACK for a failure is the transaction’s: the TU does not see it')
  t.equal(d.layer.state(id), 'confirmed')
  t.same(types(d.receive(ack)), [], 'a retransmitted ACK is absorbed')
  t.same(types(d.receive(invite)), [], 'so is a late INVITE retransmission')
  d.advanceTo(600 + t4Ms - 1)
  t.equal(d.layer.state(id), 'confirmed')
  t.same(d.sendTimes(404), [0, 500], 'Timer G stopped')
  t.same(types(d.advanceTo(600 + t4Ms)), ['terminated'])
})

t.test('over a reliable transport Timer G MUST NOT run and Timer I MUST be zero', async (t) => {
  const d = new Driver()
  const { invite, id } = incoming(d, 'TCP')
  const out = d.respond(id, responseTo(invite, 486, 'Busy Here', { toTag: 'x' }))
  t.same(sent(out)[0]?.target, { ...TCP_PEER, port: 5066 }, 'on the connection it came on, else to the sent-by port (§18.2.2)')
  d.advanceTo(10_000)
  t.same(d.sendTimes(486), [0])
  const ack = request({ method: 'ACK', transport: 'TCP', sentBy: 'pc33.atlanta.example:5066', toTag: 'x' })
  t.same(types(d.receive(ack, TCP_PEER)), ['terminated'])
})

t.test('a 2xx MUST move to Accepted: INVITE retransmissions absorbed, ACKs and the TU’s 2xx retransmissions passed on (RFC 6026)', async (t) => {
  const d = new Driver()
  const { invite, id } = incoming(d)
  const ok = responseTo(invite, 200, 'OK', { toTag: 'x' })
  t.same(types(d.respond(id, ok)), ['send 200'])
  t.equal(d.layer.state(id), 'accepted')
  d.advanceTo(5_000)
  t.same(d.sendTimes(200), [0], 'the transaction never retransmits a 2xx itself')
  t.same(types(d.receive(invite)), [], 'a retransmitted INVITE is absorbed')
  t.same(types(d.respond(id, ok)), ['send 200'], 'the TU retransmits its 2xx through the transaction (§13.3.1.4)')
  // An ACK for a 2xx has a branch of its own (§13.2.2.4) and matches no transaction: it goes to the core.
  const ack = request({ method: 'ACK', branch: 'z9hG4bKnewack', toTag: 'x' })
  t.match(d.receive(ack), [{ type: 'ack', request: ack, transaction: undefined }])
  // One reusing the INVITE's branch (as RFC 2543 allowed) matches, and is passed up with it.
  const sameBranch = request({ method: 'ACK', sentBy: 'pc33.atlanta.example:5066', toTag: 'x' })
  t.match(d.receive(sameBranch), [{ type: 'ack', transaction: id, source: UDP_PEER }])
  t.same(types(d.advanceTo(64 * t1Ms)), ['terminated'], 'Timer L = 64*T1')
})

t.test('responses the state does not allow MUST be refused as a programming error', async (t) => {
  const d = new Driver()
  const { invite, id } = incoming(d)
  d.respond(id, responseTo(invite, 486, 'Busy Here', { toTag: 'x' }))
  t.throws(() => d.respond(id, responseTo(invite, 200, 'OK', { toTag: 'x' })), SipTransactionError)
  const other = new Driver()
  const second = incoming(other)
  other.respond(second.id, responseTo(second.invite, 200, 'OK', { toTag: 'x' }))
  t.throws(() => other.respond(second.id, responseTo(second.invite, 180, 'Ringing', { toTag: 'x' })), { code: 'invalid_state' })
  t.same(other.respond('s no-such-transaction', responseTo(second.invite, 200, 'OK')), [], 'a transaction already gone takes nothing')
})

t.test('a transport error MUST reach the TU and terminate the transaction (§17.2.4)', async (t) => {
  const d = new Driver()
  const { id } = incoming(d)
  t.same(types(d.transportError(id)), ['transport_error', 'terminated'])
})
