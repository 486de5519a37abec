import t from 'tap'
import { QueuePump } from '../../../api/queue/index.js'

// The loop under the analysis, automation and test-run workers: wakes are coalesced and deferred,
// settled work is followed by another look at the queue, and close() aborts and waits.

const tick = () => new Promise((r) => setImmediate(r))

t.test('wakes in one turn are one pass, run after the caller’s own code', async (t) => {
  let passes = 0
  const pump = new QueuePump(() => passes++, 60_000)
  pump.wake()
  pump.wake()
  pump.wake()
  t.equal(passes, 0, 'deferred: the caller may still be in the transaction that queued the work')
  await tick()
  t.equal(passes, 1)
  await pump.close()
})

t.test('tracked work is counted while it runs; when it settles `after` runs and the queue is looked at again', async (t) => {
  let passes = 0
  const pump = new QueuePump(() => passes++, 60_000)
  let finish!: () => void
  const errors: unknown[] = []
  const after: string[] = []
  pump.track(
    new Promise<void>((r) => (finish = r)),
    (e) => errors.push(e),
    () => after.push('ok'),
  )
  pump.track(
    Promise.reject(new Error('boom')),
    (e) => errors.push(e),
    () => after.push('failed'),
  )
  t.equal(pump.running, 2)
  await tick()
  await tick()
  t.equal(pump.running, 1, 'the failed one is done')
  t.match(errors, [{ message: 'boom' }], 'its error went to onError, not to an unhandled rejection')
  finish()
  await pump.settled()
  t.equal(pump.running, 0)
  t.same(after.sort(), ['failed', 'ok'])
  t.ok(passes >= 1, 'each settled piece woke the pump')
  await pump.close()
})

t.test('start() looks now and every pollMs; close() stops the timers, aborts the signal and waits for the work', async (t) => {
  let passes = 0
  const pump = new QueuePump(() => passes++, 10)
  pump.start()
  await new Promise((r) => setTimeout(r, 60))
  t.ok(passes >= 3, `polled ${passes} times in 60 ms`)
  let aborted = false
  pump.track(
    new Promise<void>((resolve) =>
      pump.signal.addEventListener('abort', () => {
        aborted = true
        resolve()
      }),
    ),
    () => {},
  )
  await pump.close()
  t.ok(aborted, 'the work in flight saw the abort')
  t.ok(pump.stopped)
  const before = passes
  pump.wake()
  await new Promise((r) => setTimeout(r, 40))
  t.equal(passes, before, 'a stopped pump looks no more')
  t.throws(() => new QueuePump(() => {}, 1), RangeError)
})
