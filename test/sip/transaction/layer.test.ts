// The layer's own rules: options, bounds, what the TU may ask, many transactions at once.
import t from 'tap'
import { SipHeaders, SipRequest } from '../../../sip/index.js'
import { newBranch, responseTo, TransactionLayer } from '../../../sip/transaction/index.js'
import { Driver, request, types } from './fixtures.js'

t.test('options MUST be validated up front', async (t) => {
  t.throws(() => new TransactionLayer({ timers: { t1Ms: 0, t2Ms: 4000, t4Ms: 5000 } }), RangeError)
  t.throws(() => new TransactionLayer({ timers: { t1Ms: 500, t2Ms: 100, t4Ms: 5000 } }), RangeError)
  t.throws(() => new TransactionLayer({ maxTransactions: 0 }), RangeError)
  t.throws(() => new TransactionLayer({ tryingDelayMs: -1 }), RangeError)
  t.equal(new TransactionLayer({ timers: { t1Ms: 100, t2Ms: 4000, t4Ms: 5000 } }).options.timers.t1Ms, 100)
})

t.test('timers MUST scale with T1: Timer B is 64*T1', async (t) => {
  const d = new Driver({ timers: { t1Ms: 100, t2Ms: 4000, t4Ms: 5000 } })
  d.send(request())
  d.advanceTo(6_400)
  t.same(d.sendTimes('INVITE'), [0, 100, 300, 700, 1500, 3100, 6300])
  t.equal(d.layer.size, 0)
})

t.test('a request the layer cannot run MUST be refused', async (t) => {
  const d = new Driver()
  t.throws(() => d.send(request({ method: 'ACK' })), { code: 'invalid_request' })
  t.throws(() => d.send(request({ branch: '1234' })), { code: 'invalid_request' }, 'no magic cookie')
  const mismatch = new SipRequest('BYE', request().uri, request().headers)
  t.throws(() => d.send(mismatch), { code: 'invalid_request' }, 'CSeq method INVITE on a BYE')
  const noVia = new SipRequest('OPTIONS', request().uri, new SipHeaders([['CSeq', '1 OPTIONS']]))
  t.throws(() => d.send(noVia), { code: 'invalid_request' })
  const id = d.send(request())
  t.throws(() => d.send(request()), { code: 'duplicate_transaction' })
  t.throws(() => d.respond(id, responseTo(request(), 200, 'OK')), { code: 'invalid_request' }, 'responding on a client transaction')
})

t.test('past maxTransactions a new request MUST be answered 503 with Retry-After, statelessly', async (t) => {
  const d = new Driver({ maxTransactions: 2, overloadRetryAfterS: 7 })
  d.receive(request({ method: 'OPTIONS', branch: 'z9hG4bK1' }))
  d.send(request({ branch: 'z9hG4bK2' }))
  const out = d.receive(request({ method: 'OPTIONS', branch: 'z9hG4bK3' }))
  t.same(types(out), ['send 503'])
  const send = out[0]
  if (send?.type !== 'send') return t.fail('no send')
  t.equal(send.transaction, undefined)
  t.equal(send.message.headers.get('Retry-After'), '7')
  t.ok(send.message.headers.to().tag, 'with a To tag (§8.2.6.2)')
  const again = d.receive(request({ method: 'OPTIONS', branch: 'z9hG4bK3' }))[0]
  t.equal(again?.type === 'send' && again.message.headers.to().tag, send.message.headers.to().tag, 'the same tag for a retransmission (§8.2.7)')
  t.equal(d.layer.size, 2)
  t.throws(() => d.send(request({ branch: 'z9hG4bK4' })), { code: 'too_many_transactions' })
  t.same(
    d.receive(request({ method: 'ACK', branch: 'z9hG4bK5' })).map((o) => o.type),
    ['ack'],
    'an ACK is never answered',
  )
})

t.test('thousands of transactions MUST each keep their own timers', async (t) => {
  const d = new Driver()
  const count = 3000
  const started = new Map<string, number>()
  for (let i = 0; i < count; i++) {
    d.advanceTo(i * 7) // staggered starts: wake-ups interleave
    const id = d.send(request({ method: 'OPTIONS', branch: newBranch() }))
    started.set(id, d.now)
  }
  d.advanceTo(200_000)
  t.equal(d.layer.size, 0)
  const seen = new Map<string, number[]>()
  for (const o of d.log) {
    if (o.type !== 'send' && o.type !== 'timeout') continue
    const at = o.at - started.get(o.transaction!)!
    seen.set(o.transaction!, [...(seen.get(o.transaction!) ?? []), o.type === 'send' ? at : -at])
  }
  let wrong = 0
  for (const id of started.keys()) {
    if (seen.get(id)?.join() !== '0,500,1500,3500,7500,11500,15500,19500,23500,27500,31500,-32000') wrong++
  }
  t.equal(wrong, 0, 'every transaction retransmitted on its schedule and timed out at 64*T1')
  t.equal(d.layer.wakeAt, undefined, 'nothing left to wake for')
})

t.test('a tick that comes late MUST fire what fell due, in order', async (t) => {
  const d = new Driver()
  const id = d.send(request({ method: 'OPTIONS' }))
  d.now = 40_000
  const out = d.layer.tick(d.now)
  t.same(types(out), ['send OPTIONS', 'timeout', 'terminated'], 'E (due at 500) fires once, then F: the late timers do not all replay')
  t.equal(d.layer.state(id), undefined)
})
