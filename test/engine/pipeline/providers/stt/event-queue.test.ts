import t from 'tap'
import { sttEventChannel } from '../../../../../engine/pipeline/providers/stt/event-queue.js'

const partial = (text: string) => ({ type: 'partial' as const, text })
const final = (text: string) => ({ type: 'final' as const, text })

t.test('when full, the oldest partial goes first; finals are never dropped', async (t) => {
  const q = sttEventChannel(3)
  q.offer(partial('a'))
  q.offer(final('A'))
  q.offer(partial('b'))
  q.offer(partial('c')) // drops 'a'
  q.offer(final('B')) // drops 'b'
  q.offer(final('C')) // drops 'c'
  q.offer(final('D')) // no partial left: kept beyond capacity
  q.offer(partial('d')) // full of finals: the new partial is the one dropped
  q.close()
  const got = []
  for await (const e of q) if (e.type !== 'error') got.push(e.text)
  t.same(got, ['A', 'B', 'C', 'D'])
  t.equal(q.dropped, 4)
})

t.test('a waiting reader gets events as they come and sees the end', async (t) => {
  const q = sttEventChannel()
  const it = q[Symbol.asyncIterator]()
  const next = it.next()
  q.offer(final('x'))
  t.same(await next, { value: final('x'), done: false })
  const after = it.next()
  q.close()
  t.same(await after, { value: undefined, done: true })
  t.throws(() => q[Symbol.asyncIterator](), /SttStream.events can be iterated only once/)
})

t.test("a reader's break stops the queueing: later events are not held", async (t) => {
  const q = sttEventChannel()
  q.offer(final('x'))
  q.offer(final('y'))
  for await (const e of q) if (e.type === 'final') break
  t.equal(q.size, 0)
  t.equal(q.offer(final('z')), false)
  t.equal(q.closed, true)
})
