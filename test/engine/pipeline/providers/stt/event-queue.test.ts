import t from 'tap'
import { SttEventQueue } from '../../../../../engine/pipeline/providers/stt/event-queue.js'

const partial = (text: string) => ({ type: 'partial' as const, text })
const final = (text: string) => ({ type: 'final' as const, text })

t.test('when full, the oldest partial goes first; finals are never dropped', async (t) => {
  const q = new SttEventQueue(3)
  q.push(partial('a'))
  q.push(final('A'))
  q.push(partial('b'))
  q.push(partial('c')) // drops 'a'
  q.push(final('B')) // drops 'b'
  q.push(final('C')) // drops 'c'
  q.push(final('D')) // no partial left: kept beyond capacity
  q.push(partial('d')) // full of finals: the new partial is the one dropped
  q.end()
  const got = []
  for await (const e of q) if (e.type !== 'error') got.push(e.text)
  t.same(got, ['A', 'B', 'C', 'D'])
  t.equal(q.droppedPartials, 4)
})

t.test('a waiting reader gets events as they come and sees the end', async (t) => {
  const q = new SttEventQueue()
  const it = q[Symbol.asyncIterator]()
  const next = it.next()
  q.push(final('x'))
  t.same(await next, { value: final('x'), done: false })
  const after = it.next()
  q.end()
  t.same(await after, { value: undefined, done: true })
  t.throws(() => q[Symbol.asyncIterator](), /only once/)
})
