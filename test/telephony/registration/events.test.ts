// sip.trunk.registered / sip.trunk.down once per transition, never repeated by retries; stopping
// unregisters with Expires: 0 (§10.2.2) and publishes nothing.
import t from 'tap'
import type { TrunkRegistration } from '../../../telephony/registration/index.js'
import { CALL_ID, CONTACT, newCore, publishes, Registrar, records, reply, sends, sent } from './fixtures.js'

/** Drives a core on a hand-moved clock and keeps every event it publishes. */
function driver(core: TrunkRegistration = newCore()) {
  const clock = { now: 0 }
  const registrar = new Registrar({ now: () => clock.now }, { nonceTtlMs: 86_400_000 })
  registrar.grantS = 120
  const events: string[] = []
  let step: ReturnType<typeof sent> | undefined
  const run = (actions: ReturnType<TrunkRegistration['tick']>) => {
    for (const p of publishes(actions)) events.push(p.reason === undefined ? p.event : `${p.event}: ${p.reason}`)
    const s = sends(actions)
    if (s.length > 0) step = s.at(-1)
    return actions
  }
  return {
    core,
    clock,
    events,
    registrar,
    start: () => run(core.handle({ type: 'start' }, clock.now)),
    /** The registrar answers the REGISTER out (until it stops challenging). */
    answer() {
      for (let i = 0; i < 3 && step && core.pendingCSeq === step.cseq; i++) {
        const response = registrar.answer(step.request)
        run(core.handle({ type: 'response', cseq: step.cseq, response }, clock.now))
        if (response.status !== 401) break
      }
    },
    respond: (status: number, reason: string) =>
      run(core.handle({ type: 'response', cseq: step!.cseq, response: reply(step!.request, status, reason) }, clock.now)),
    fail: (reason: string) => run(core.handle({ type: 'failed', cseq: step!.cseq, reason }, clock.now)),
    /** Moves the clock to the next deadline and ticks. */
    wake() {
      clock.now = core.nextDeadline()!
      return run(core.tick(clock.now))
    },
    stop: () => run(core.handle({ type: 'stop' }, clock.now)),
    get step() {
      return step!
    },
  }
}

t.test('sip.trunk.registered is published when the trunk becomes registered, and not again on refreshes', async (t) => {
  const d = driver()
  d.start()
  d.answer()
  t.same(d.events, ['sip.trunk.registered'])
  for (let i = 0; i < 3; i++) {
    d.wake()
    d.answer()
  }
  t.equal(d.core.state, 'registered')
  t.same(d.events, ['sip.trunk.registered'], 'three refreshes, one event')
})

t.test('a refused refresh is sip.trunk.down once; the retries failing while down publish nothing; the next success is registered once', async (t) => {
  const d = driver()
  d.start()
  d.answer()
  d.wake()
  const down = d.respond(403, 'Forbidden')
  t.same(records(down), [{ type: 'record', state: 'failed', error: '403 Forbidden', changedAt: d.clock.now, registeredUntil: null }])
  for (let i = 0; i < 4; i++) {
    d.wake()
    t.equal(d.core.state, 'registering')
    i % 2 ? d.fail('registration timed out') : d.respond(503, 'Service Unavailable')
  }
  t.same(d.events, ['sip.trunk.registered', 'sip.trunk.down: 403 Forbidden'], 'four failed retries, no event')
  d.wake()
  d.answer()
  t.same(d.events, ['sip.trunk.registered', 'sip.trunk.down: 403 Forbidden', 'sip.trunk.registered'])
})

t.test('a refresh that times out, a transport error or a 5xx is sip.trunk.down with its reason', async (t) => {
  for (const [name, lose, reason] of [
    ['timeout', (d: ReturnType<typeof driver>) => d.fail('registration timed out'), 'registration timed out'],
    ['5xx', (d: ReturnType<typeof driver>) => d.respond(500, 'Server Internal Error'), '500 Server Internal Error'],
    [
      'transport',
      (d: ReturnType<typeof driver>) => d.fail('could not reach the registrar (transport error)'),
      'could not reach the registrar (transport error)',
    ],
  ] as const) {
    const d = driver()
    d.start()
    d.answer()
    d.wake()
    lose(d)
    t.same(d.events, ['sip.trunk.registered', `sip.trunk.down: ${reason}`], name)
    t.equal(d.core.state, 'retry_wait')
  }
})

t.test('a binding that expires while its refresh is unanswered is down ("registration expired"); a late 2xx makes it registered again', async (t) => {
  const d = driver()
  d.start()
  d.answer()
  const until = d.core.registeredUntil!
  d.wake() // the refresh goes out, and nothing comes back
  const expired = d.wake()
  t.equal(d.clock.now, until)
  t.equal(d.core.state, 'registering')
  t.same(records(expired)[0], { type: 'record', state: 'failed', error: 'registration expired', changedAt: until, registeredUntil: null })
  t.same(d.events, ['sip.trunk.registered', 'sip.trunk.down: registration expired'])
  t.equal(d.core.nextDeadline(), undefined, 'the transaction layer ends the refresh (answer or timeout)')
  d.answer()
  t.same(d.events, ['sip.trunk.registered', 'sip.trunk.down: registration expired', 'sip.trunk.registered'])
})

t.test('a trunk that never registered publishes no sip.trunk.down however it fails', async (t) => {
  const d = driver(newCore({ password: 'wrong' }))
  d.start()
  d.answer()
  d.wake()
  d.fail('registration timed out')
  d.wake()
  d.respond(503, 'Service Unavailable')
  t.same(d.events, [])
  t.equal(d.core.state, 'retry_wait')
})

t.test('a registration restarted with new settings (up) publishes nothing on success and sip.trunk.down on failure', async (t) => {
  const ok = driver(newCore({ up: true }))
  ok.start()
  ok.answer()
  t.same(ok.events, [])
  const refused = driver(newCore({ up: true, password: 'wrong' }))
  refused.start()
  refused.answer()
  t.same(refused.events, ['sip.trunk.down: 401 Unauthorized: credentials refused'])
})

t.test('stop while registered unregisters: our Contact with Expires: 0 on the same Call-ID, CSeq plus one (§10.2.2); no event', async (t) => {
  const d = driver()
  d.start()
  d.answer()
  const last = d.step.cseq
  const actions = d.stop()
  t.equal(d.core.state, 'unregistering')
  t.same(records(actions), [{ type: 'record', state: 'unregistered', error: null, changedAt: 0, registeredUntil: null }])
  const { request, cseq } = sent(actions)
  t.equal(cseq, last + 1)
  t.equal(request.headers.get('Expires'), '0')
  t.equal(request.headers.get('Contact'), CONTACT, 'our binding only, not "*"')
  t.equal(request.headers.get('Call-ID'), CALL_ID)
  t.ok(request.headers.has('Authorization'), 'pre-emptive credentials')
  t.equal(d.registrar.answer(request).status, 200)
  d.answer()
  t.equal(d.core.state, 'stopped')
  t.same(d.events, ['sip.trunk.registered'], 'an owner’s stop is not sip.trunk.down')
  t.equal(d.core.nextDeadline(), undefined)
  t.same(d.stop(), [], 'stopping twice does nothing')
})

t.test('a challenged unregister is answered once; one that cannot be answered or fails still ends in stopped', async (t) => {
  const d = driver()
  d.start()
  d.answer()
  const stale = new Registrar({ now: () => d.clock.now }) // a restarted registrar: it no longer knows our nonce
  const un = sent(d.stop())
  const challenge = stale.answer(un.request)
  t.equal(challenge.status, 401)
  const answered = sent(d.core.handle({ type: 'response', cseq: un.cseq, response: challenge }, d.clock.now))
  t.equal(answered.request.headers.get('Expires'), '0')
  t.equal(answered.cseq, un.cseq + 1)
  t.equal(stale.answer(answered.request).status, 200)
  d.core.handle({ type: 'response', cseq: answered.cseq, response: reply(answered.request, 200, 'OK') }, d.clock.now)
  t.equal(d.core.state, 'stopped')

  const e = driver()
  e.start()
  e.answer()
  e.stop()
  t.same(sends(e.respond(401, 'Unauthorized')), [], 'a 401 without a challenge cannot be answered: given up')
  t.equal(e.core.state, 'stopped')
  const f = driver()
  f.start()
  f.answer()
  f.stop()
  f.fail('registration timed out')
  t.equal(f.core.state, 'stopped')
  t.same([...d.events, ...e.events, ...f.events], ['sip.trunk.registered', 'sip.trunk.registered', 'sip.trunk.registered'], 'no down for any of them')
})

t.test('stop while waiting to retry sends nothing; stop while registering unregisters the binding the REGISTER may make', async (t) => {
  const d = driver()
  d.start()
  d.respond(500, 'Server Internal Error')
  t.same(sends(d.stop()), [])
  t.equal(d.core.state, 'stopped')
  const e = driver()
  e.start()
  const first = e.step
  const un = sent(e.stop())
  t.equal(un.request.headers.get('Expires'), '0')
  t.equal(e.core.state, 'unregistering')
  t.same(e.core.handle({ type: 'response', cseq: first.cseq, response: reply(first.request, 200, 'OK') }, 0), [], 'the REGISTER’s answer is stale')
  t.equal(newCore().handle({ type: 'stop' }, 5)[0]?.type, 'record', 'an idle core stops at once')
})

t.test('transitions assert: a core starts once', async (t) => {
  const core = newCore()
  core.handle({ type: 'start' }, 0)
  t.throws(() => core.handle({ type: 'start' }, 0), /cannot go from registering to registering/)
})
