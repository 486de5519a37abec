import t from 'tap'
import { ApiError } from '../../../api/http/errors.js'
import { LoopTurns } from '../../../api/http/loop-turns.js'

t.test('with no live call a request goes at once, with no extra hop', async (t) => {
  const turns = new LoopTurns()
  t.equal(turns.take(), undefined)
  turns.shareWith(() => false)
  t.equal(turns.take(), undefined)
})

t.test("while calls are live, a timer due meanwhile runs between any two requests (the engine's audio is never held behind a burst)", async (t) => {
  const turns = new LoopTurns()
  turns.shareWith(() => true)
  const order: string[] = []
  const requests = Array.from({ length: 5 }, (_, i) =>
    turns.take()!.then(() => {
      order.push(`request ${i}`)
      // A timer (the engine's next audio frame) falls due during the request's synchronous work.
      if (i < 4) setTimeout(() => order.push(`timer after ${i}`), 1)
      const until = performance.now() + 3
      while (performance.now() < until);
    }),
  )
  await Promise.all(requests)
  await new Promise((r) => setTimeout(r, 5))
  t.same(order, ['request 0', 'timer after 0', 'request 1', 'timer after 1', 'request 2', 'timer after 2', 'request 3', 'timer after 3', 'request 4'])
})

t.test('first come, first served, also once the calls end while requests still wait', async (t) => {
  let live = true
  const turns = new LoopTurns()
  turns.shareWith(() => live)
  const order: number[] = []
  const waiting = [0, 1, 2].map((i) => turns.take()!.then(() => order.push(i)))
  live = false
  const late = turns.take()
  t.ok(late, 'a request after the calls ended still queues behind those waiting')
  const all = [...waiting, late!.then(() => order.push(3))]
  await Promise.all(all)
  t.same(order, [0, 1, 2, 3])
  t.equal(turns.waitingCount, 0)
  t.equal(turns.take(), undefined, 'an empty queue and no live call: go at once again')
})

t.test('the queue is bounded: one request past maxWaiting is refused 503 with Retry-After, the others still run', async (t) => {
  const turns = new LoopTurns({ maxWaiting: 3 })
  turns.shareWith(() => true)
  const queued = [turns.take(), turns.take(), turns.take()]
  let refused: unknown
  try {
    turns.take()
  } catch (err) {
    refused = err
  }
  t.ok(refused instanceof ApiError)
  t.match(refused, { status: 503, code: 'service_unavailable', headers: { 'Retry-After': '1' } })
  await Promise.all(queued)
  t.equal(turns.waitingCount, 0)
})

t.test('options are checked up front', async (t) => {
  t.throws(() => new LoopTurns({ maxWaiting: 0 }), RangeError)
  t.throws(() => new LoopTurns({ maxWaiting: 1.5 }), RangeError)
})
