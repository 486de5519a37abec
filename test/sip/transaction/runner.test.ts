// TransactionRunner: the layer driven by a transport and one timer.
import t from 'tap'
import type { SipMessage } from '../../../sip/index.js'
import { type Peer, responseTo, type TimerClock, type TransactionEvent, TransactionRunner } from '../../../sip/transaction/index.js'
import { reply, request, UDP_PEER } from './fixtures.js'

/** A clock whose timers fire only when the test moves time. */
class FakeClock implements TimerClock {
  time = 0
  #timers = new Map<number, { at: number; cb: () => void }>()
  #next = 1
  now(): number {
    return this.time
  }
  setTimer(cb: () => void, ms: number): unknown {
    const id = this.#next++
    this.#timers.set(id, { at: this.time + ms, cb })
    return id
  }
  clearTimer(id: unknown): void {
    this.#timers.delete(id as number)
  }
  get pending(): number {
    return this.#timers.size
  }
  advanceTo(ms: number): void {
    for (;;) {
      const due = [...this.#timers].filter(([, timer]) => timer.at <= ms).sort((a, b) => a[1].at - b[1].at)[0]
      if (!due) break
      this.#timers.delete(due[0])
      this.time = due[1].at
      due[1].cb()
    }
    this.time = ms
  }
}

function setup(send: (message: SipMessage, target: Peer) => void | Promise<void> = () => {}) {
  const clock = new FakeClock()
  const sent: Array<{ at: number; message: SipMessage }> = []
  const events: TransactionEvent[] = []
  const runner = new TransactionRunner({
    clock,
    transport: {
      send: (message, target) => {
        sent.push({ at: clock.now(), message })
        return send(message, target)
      },
    },
    onEvent: (event) => events.push(event),
  })
  return { clock, sent, events, runner }
}

t.test('the runner MUST retransmit on the layer’s timers and report the timeout', async (t) => {
  const { clock, sent, events, runner } = setup()
  const id = runner.sendRequest(request(), UDP_PEER)
  clock.advanceTo(40_000)
  t.same(
    sent.map((s) => s.at),
    [0, 500, 1500, 3500, 7500, 15500, 31500],
  )
  t.match(events, [
    { type: 'timeout', transaction: id, timer: 'B' },
    { type: 'terminated', transaction: id },
  ])
  t.equal(clock.pending, 0, 'no timer left once nothing is live')
})

t.test('a rejected send MUST become a transport error of its transaction', async (t) => {
  const { events, runner } = setup(() => Promise.reject(new Error('ECONNREFUSED')))
  const id = runner.sendRequest(request({ method: 'OPTIONS' }), UDP_PEER)
  await new Promise((resolve) => setImmediate(resolve))
  t.match(events, [
    { type: 'transport_error', transaction: id },
    { type: 'terminated', transaction: id },
  ])
  t.equal(runner.layer.size, 0)
})

t.test('a send that throws MUST become a transport error too, after the call that sent', async (t) => {
  const { events, runner } = setup(() => {
    throw new Error('EHOSTUNREACH')
  })
  const id = runner.sendRequest(request({ method: 'OPTIONS' }), UDP_PEER)
  t.same(events, [], 'not inside sendRequest')
  await Promise.resolve()
  t.match(events, [{ type: 'transport_error', transaction: id }, { type: 'terminated' }])
})

t.test('the TU MAY answer from inside onEvent', async (t) => {
  const clock = new FakeClock()
  const sent: SipMessage[] = []
  const runner: TransactionRunner = new TransactionRunner({
    clock,
    transport: { send: (message) => void sent.push(message) },
    onEvent: (event) => {
      if (event.type === 'request') runner.respond(event.transaction, responseTo(event.request, 200, 'OK', { toTag: 'x' }))
    },
  })
  runner.receive(request({ method: 'OPTIONS' }), UDP_PEER)
  t.same(
    sent.map((m) => m.kind === 'response' && m.status),
    [200],
  )
  clock.advanceTo(64 * 500)
  t.equal(runner.layer.size, 0, 'Timer J ran on the runner’s timer')
})

t.test('responses MUST reach the TU as events; close MUST stop every timer', async (t) => {
  const { clock, sent, events, runner } = setup()
  const invite = request()
  const id = runner.sendRequest(invite, UDP_PEER)
  runner.receive(reply(invite, 180), UDP_PEER)
  t.match(events, [{ type: 'response', transaction: id }])
  const cancelId = runner.cancel(id)
  t.ok(cancelId)
  runner.close()
  t.equal(clock.pending, 0)
  const before = sent.length
  clock.advanceTo(100_000)
  runner.receive(reply(invite, 487), UDP_PEER)
  t.equal(sent.length, before, 'nothing more goes out')
})
