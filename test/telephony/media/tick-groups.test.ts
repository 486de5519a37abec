// Shared media tick timers: one per millisecond of the period, members keep their own phase.
import t from 'tap'
import { FakePlayoutClock } from '../../../engine/pipeline/playout-clock.js'
import { DtmfOut, PhoneCallTransport, TickGroups } from '../../../telephony/media/index.js'
import { capturingSession, negotiated, RecordingInput, recordingSignals } from './media-helpers.js'

/** A member ticking every 20 ms from `first`, recording when it ran. */
function member(first: number, leaveAfter = Infinity) {
  const runs: number[] = []
  let next = first
  return {
    runs,
    run(now: number) {
      runs.push(now)
      next += 20
      return runs.length >= leaveAfter ? undefined : next
    },
  }
}

t.test('members due in the same millisecond of the period share one timer; other phases get their own', async (t) => {
  const clock = new FakePlayoutClock(1000)
  const groups = new TickGroups(clock)
  const a = member(1020.4)
  const b = member(1021)
  const c = member(1027)
  groups.add(a, 1020.4)
  groups.add(b, 1021)
  groups.add(c, 1027)
  t.equal(groups.timers, 2)
  t.equal(clock.pendingTimers, 2)
  clock.advance(100)
  t.same(a.runs, [1020.4, 1040.4, 1060.4, 1080.4])
  t.same(b.runs, [1021, 1041, 1061, 1081], 'never before it is due')
  t.same(c.runs, [1027, 1047, 1067, 1087])
})

t.test('a timer firing early runs nothing early: the slot is set again for the rest', async (t) => {
  // Every other timer fires a millisecond early, as Node's may (it counts from a cached loop time).
  let k = 0
  const clock = new FakePlayoutClock(0, () => (k++ % 2 === 0 ? -1 : 0))
  const groups = new TickGroups(clock)
  const a = member(20)
  groups.add(a, 20)
  clock.advance(70)
  t.ok(
    a.runs.every((at, i) => at >= 20 * (i + 1)),
    `ran at ${a.runs.join(', ')}`,
  )
  t.equal(a.runs.length, 3)
})

t.test('leaving: an empty slot drops its timer; a member that leaves while it runs stays gone', async (t) => {
  const clock = new FakePlayoutClock(0)
  const groups = new TickGroups(clock)
  const a = member(20)
  const leaveA = groups.add(a, 20)
  const b = member(20, 2)
  groups.add(b, 20)
  clock.advance(60)
  t.same(b.runs, [20, 40], 'b left by returning undefined')
  leaveA()
  t.equal(groups.timers, 0)
  t.equal(clock.pendingTimers, 0)
  // Leaving from inside run(): returning a due time afterwards must not bring it back.
  let leaveC: () => void = () => {}
  const c = {
    runs: 0,
    run(now: number) {
      this.runs++
      leaveC()
      return now + 20
    },
  }
  leaveC = groups.add(c, 80)
  clock.advance(100)
  t.equal(c.runs, 1)
  t.equal(clock.pendingTimers, 0)
})

t.test('100 phone calls at scattered phases tick on at most 20 timers, each call a frame per 20 ms', async (t) => {
  const clock = new FakePlayoutClock(0)
  const groups = new TickGroups(clock)
  const calls = Array.from({ length: 100 }, (_, i) => {
    const { session } = capturingSession()
    session.apply(negotiated())
    const transport = new PhoneCallTransport({ session, dtmf: new DtmfOut(session.sender, clock), clock, signals: recordingSignals().signals, ticks: groups })
    const input = new RecordingInput()
    clock.advance(((i * 37) % 100) / 100) // attach at a scattered time: 0 to 1 s over the loop
    transport.attach(input)
    return { transport, input, attachedAt: clock.now() }
  })
  t.ok(groups.timers <= 20, `${groups.timers} timers`)
  clock.advance(1000)
  const wrong = calls.filter((c) => c.input.audioFrames.length !== Math.floor((clock.now() - c.attachedAt) / 20 + 1e-9))
  t.same(
    wrong.map((c) => c.input.audioFrames.length),
    [],
    'a frame per 20 ms since each call attached',
  )
  for (const c of calls) c.transport.end('agent_ended')
  t.equal(groups.timers, 0, 'every call gone, no timer left')
  t.equal(clock.pendingTimers, 0)
})
