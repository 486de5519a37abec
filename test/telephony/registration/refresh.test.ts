// Refreshing a binding before it expires (§10.2.4) on one Call-ID with rising CSeq, and backing
// off after failures (RFC 5626 §4.5), on a clock the test moves by hand.
import t from 'tap'
import { DEFAULT_REGISTRATION_TIMING, refreshAt, retryDelayMs } from '../../../telephony/registration/index.js'
import { CALL_ID, newCore, Registrar, reply, sends, sent } from './fixtures.js'

/** Starts a core and registers it through `registrar`; returns the core and the clock. */
function registered(registrar: Registrar, clock: { now: number }, core = newCore()) {
  let step = sent(core.handle({ type: 'start' }, clock.now))
  for (let i = 0; i < 3 && core.state === 'registering'; i++) {
    const actions = core.handle({ type: 'response', cseq: step.cseq, response: registrar.answer(step.request) }, clock.now)
    if (core.state === 'registering') step = sent(actions)
  }
  return core
}

t.test('a binding granted for G is refreshed at G - min(G/2, 64 s): halfway for short lifetimes, 64 s early for long ones', async (t) => {
  const timing = DEFAULT_REGISTRATION_TIMING
  t.equal(refreshAt(0, 60, timing), 30_000)
  t.equal(refreshAt(0, 120, timing), 60_000)
  t.equal(refreshAt(0, 600, timing), 536_000)
  t.equal(refreshAt(1_000, 3600, timing), 1_000 + 3_536_000)
})

t.test('the refresh goes out at its deadline, not before, on the same Call-ID with CSeq rising (§10.2.4), and extends the binding', async (t) => {
  const clock = { now: 1_000_000 }
  const registrar = new Registrar({ now: () => clock.now }, { nonceTtlMs: 3_600_000 })
  registrar.grantS = 600
  const core = registered(registrar, clock)
  t.equal(core.state, 'registered')
  t.equal(core.registeredUntil, clock.now + 600_000)
  const due = core.nextDeadline()!
  t.equal(due, clock.now + 536_000)
  t.same(core.tick(due - 1), [], 'nothing before the deadline')
  const cseqs = [2]
  for (let round = 0; round < 3; round++) {
    clock.now = core.nextDeadline()!
    const refresh = sent(core.tick(clock.now))
    t.equal(core.state, 'refreshing')
    t.equal(refresh.request.headers.get('Call-ID'), CALL_ID, 'one Call-ID for every refresh')
    cseqs.push(refresh.cseq)
    t.match(refresh.request.headers.get('Authorization'), /nc=/, 'credentials go pre-emptively with the realm’s nonce (§22.3)')
    const ok = registrar.answer(refresh.request)
    t.equal(ok.status, 200, 'the pre-emptive credentials were accepted (next nonce count)')
    core.handle({ type: 'response', cseq: refresh.cseq, response: ok }, clock.now)
    t.equal(core.registeredUntil, clock.now + 600_000)
  }
  t.same(cseqs, [2, 3, 4, 5], 'CSeq rises by one per REGISTER')
  t.same(registrar.log, ['challenged:no_credentials', 'accepted', 'accepted', 'accepted', 'accepted'], 'challenged once in all')
})

t.test('a refresh whose pre-emptive nonce went stale is challenged and answered within the same refresh', async (t) => {
  const clock = { now: 0 }
  const registrar = new Registrar({ now: () => clock.now }) // 32 s nonces: stale by the refresh
  registrar.grantS = 600
  const core = registered(registrar, clock)
  clock.now = core.nextDeadline()!
  const refresh = sent(core.tick(clock.now))
  const stale = registrar.answer(refresh.request)
  t.equal(stale.status, 401)
  const again = sent(core.handle({ type: 'response', cseq: refresh.cseq, response: stale }, clock.now))
  t.equal(registrar.answer(again.request).status, 200)
  t.equal(core.state, 'refreshing')
})

t.test('failures back off 30 s, 60 s, 120 s, … capped at 10 min; the jitter takes up to half off (RFC 5626 §4.5)', async (t) => {
  const timing = DEFAULT_REGISTRATION_TIMING
  t.same(
    [1, 2, 3, 4, 5, 6, 7, 40].map((n) => retryDelayMs(n, 0, timing)),
    [30_000, 60_000, 120_000, 240_000, 480_000, 600_000, 600_000, 600_000],
  )
  t.equal(retryDelayMs(1, 0.5, timing), 22_500)
  t.ok(retryDelayMs(6, 0.999_999, timing) > 300_000 && retryDelayMs(6, 0.999_999, timing) <= 300_001)
  t.equal(retryDelayMs(1, 0, timing, 120), 120_000, 'never sooner than Retry-After (§21.5.4)')
  t.equal(retryDelayMs(1, 0, timing, 86_400), 600_000, 'nor later than the cap')
})

t.test('the core waits out each backoff in retry_wait and sends the next REGISTER when it ends', async (t) => {
  let random = 0
  const core = newCore({ random: () => random })
  let now = 0
  let step = sent(core.handle({ type: 'start' }, now))
  const waits: number[] = []
  for (let i = 0; i < 7; i++) {
    core.handle({ type: 'failed', cseq: step.cseq, reason: 'registration timed out' }, now)
    t.equal(core.state, 'retry_wait')
    const due = core.nextDeadline()!
    waits.push(due - now)
    t.same(core.tick(due - 1), [])
    now = due
    step = sent(core.tick(now))
    t.equal(core.state, 'registering')
  }
  t.same(waits, [30_000, 60_000, 120_000, 240_000, 480_000, 600_000, 600_000])
  random = 0.5
  core.handle({ type: 'failed', cseq: step.cseq, reason: 'registration timed out' }, now)
  t.equal(core.nextDeadline()! - now, 450_000, 'the injected random draws the jitter')
})

t.test('a success resets the backoff; a 503 with Retry-After waits at least that long', async (t) => {
  const clock = { now: 0 }
  const registrar = new Registrar({ now: () => clock.now })
  const core = newCore()
  let step = sent(core.handle({ type: 'start' }, clock.now))
  core.handle({ type: 'response', cseq: step.cseq, response: reply(step.request, 503, 'Service Unavailable', [['Retry-After', '90']]) }, clock.now)
  t.equal(core.nextDeadline(), 90_000)
  clock.now = 90_000
  step = sent(core.tick(clock.now))
  core.handle({ type: 'failed', cseq: step.cseq, reason: 'registration timed out' }, clock.now)
  t.equal(core.nextDeadline()! - clock.now, 60_000, 'second failure: 60 s')
  clock.now = core.nextDeadline()!
  step = sent(core.tick(clock.now))
  const challenged = sent(core.handle({ type: 'response', cseq: step.cseq, response: registrar.answer(step.request) }, clock.now))
  core.handle({ type: 'response', cseq: challenged.cseq, response: registrar.answer(challenged.request) }, clock.now)
  t.equal(core.state, 'registered')
  clock.now = core.nextDeadline()!
  step = sent(core.tick(clock.now))
  core.handle({ type: 'response', cseq: step.cseq, response: reply(step.request, 500, 'Server Internal Error') }, clock.now)
  t.equal(core.nextDeadline()! - clock.now, 30_000, 'first failure since the success: 30 s again')
  t.same(sends(core.tick(clock.now + 29_999)), [])
})
