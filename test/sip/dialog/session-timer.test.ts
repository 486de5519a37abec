// The session timer core (RFC 4028 §10), on a manual clock.
import t from 'tap'
import { ManualClock } from '../../../core/index.js'
import { SessionTimer } from '../../../sip/dialog/index.js'

const T0 = 1_000_000

t.test('the refresher MUST refresh at half the interval (§10)', async (t) => {
  const clock = new ManualClock(T0)
  const timer = new SessionTimer(clock, { intervalS: 1800, weRefresh: true })
  t.equal(timer.refreshAtMs, T0 + 900_000)
  t.equal(timer.nextDeadlineMs(), T0 + 900_000)
  clock.advance(899_999)
  t.equal(timer.poll(), undefined)
  clock.advance(1)
  t.equal(timer.poll(), 'refresh')
  t.equal(timer.state, 'refreshing')
  t.equal(timer.poll(), undefined, 'asked once')
  t.equal(timer.nextDeadlineMs(), T0 + (1800 - 32) * 1000, 'then the BYE deadline')
  clock.advance(5_000)
  timer.refreshed()
  t.equal(timer.state, 'running')
  t.equal(timer.refreshAtMs, T0 + 905_000 + 900_000, 'the interval restarts at the refresh')
})

t.test('without a refresh the session MUST end at interval - min(32, interval/3) seconds (§10)', async (t) => {
  const clock = new ManualClock(T0)
  const long = new SessionTimer(clock, { intervalS: 1800, weRefresh: false })
  t.equal(long.refreshAtMs, undefined, 'the peer refreshes')
  t.equal(long.byeAtMs, T0 + 1_768_000, '1800 - 32 s')
  const short = new SessionTimer(clock, { intervalS: 90, weRefresh: false })
  t.equal(short.byeAtMs, T0 + 60_000, '90 - 90/3 s')
  clock.advance(59_999)
  t.equal(short.poll(), undefined)
  clock.advance(1)
  t.equal(short.poll(), 'bye')
  t.equal(short.state, 'expired')
  t.equal(short.poll(), undefined, 'asked once')
  t.equal(short.nextDeadlineMs(), undefined)
})

t.test('a refresher whose refresh never succeeds MUST end the session too', async (t) => {
  const clock = new ManualClock(T0)
  const timer = new SessionTimer(clock, { intervalS: 120, weRefresh: true })
  clock.advance(60_000)
  t.equal(timer.poll(), 'refresh')
  clock.advance(27_999)
  t.equal(timer.poll(), undefined)
  clock.advance(1)
  t.equal(timer.poll(), 'bye', 'min(32, 120/3) = 32: BYE at 88 s')
})

t.test('a late poll past both deadlines MUST ask for BYE, not a refresh', async (t) => {
  const clock = new ManualClock(T0)
  const timer = new SessionTimer(clock, { intervalS: 300, weRefresh: true })
  clock.advance(400_000)
  t.equal(timer.poll(), 'bye')
})

t.test('a refresh received MUST restart the interval with the renegotiated terms', async (t) => {
  const clock = new ManualClock(T0)
  const timer = new SessionTimer(clock, { intervalS: 1800, weRefresh: false })
  clock.advance(1_000_000)
  timer.refreshed({ intervalS: 600, weRefresh: true })
  t.same(timer.terms, { intervalS: 600, weRefresh: true })
  t.equal(timer.nextDeadlineMs(), T0 + 1_000_000 + 300_000)
})

t.test('a stopped timer MUST ask for nothing and refuse to restart', async (t) => {
  const clock = new ManualClock(T0)
  const timer = new SessionTimer(clock, { intervalS: 90, weRefresh: true })
  timer.stop()
  timer.stop()
  clock.advance(1_000_000)
  t.equal(timer.poll(), undefined)
  t.throws(() => timer.refreshed(), { name: 'DialogStateError' })
  t.throws(() => new SessionTimer(clock, { intervalS: 0, weRefresh: true }), RangeError)
  t.throws(() => new SessionTimer(clock, { intervalS: 1.5, weRefresh: true }), RangeError)
})
