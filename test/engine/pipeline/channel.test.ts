import t from 'tap'
import { Channel, ChannelFullError, type ChannelOptions } from '../../../engine/pipeline/channel.js'

/** Lets every settled promise's callbacks run, so "still waiting" can be asserted. */
const settle = () => new Promise((resolve) => setImmediate(resolve))

/** Tracks a promise's outcome without awaiting it. */
function watch<T>(p: Promise<T>): { settled: boolean; value: T | undefined; error: unknown } {
  const w = { settled: false, value: undefined as T | undefined, error: undefined as unknown }
  p.then(
    (v) => Object.assign(w, { settled: true, value: v }),
    (e: unknown) => Object.assign(w, { settled: true, error: e }),
  )
  return w
}

async function drain<T>(c: Channel<T>): Promise<T[]> {
  const got: T[] = []
  for await (const item of c) got.push(item)
  return got
}

const channel = <T = number>(o: Partial<ChannelOptions<T>> = {}) => new Channel<T>({ capacity: 2, overflow: 'wait', ...o })

t.test('the size and the policy are checked at construction', async (t) => {
  for (const capacity of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) t.throws(() => channel({ capacity }), RangeError, `capacity ${capacity}`)
  t.throws(() => channel({ overflow: 'drop-newest' as never }), /overflow must be one of wait, drop-oldest, fail/)
  t.throws(() => channel({ overflow: 'wait', droppable: () => true }), /droppable applies only to overflow 'drop-oldest'/)
  const c = channel({ capacity: 3, overflow: 'fail', name: 'phrases' })
  t.same([c.capacity, c.overflow, c.name, c.size, c.closed, c.dropped], [3, 'fail', 'phrases', 0, false, 0])
})

t.test("'wait': a producer into a full channel waits until the consumer takes an item", async (t) => {
  const c = channel<number>()
  t.equal(await c.push(1), true)
  t.equal(await c.push(2), true)
  const third = watch(c.push(3))
  await settle()
  t.equal(third.settled, false, 'the producer waits')
  t.equal(c.size, 2, 'the waiting item is not counted as queued')
  const it = c[Symbol.asyncIterator]()
  t.same(await it.next(), { value: 1, done: false })
  await settle()
  t.same([third.settled, third.value, c.size], [true, true, 2], 'taking one makes room for the waiting producer')
  c.close()
  t.same(
    [await it.next(), await it.next(), await it.next()],
    [
      { value: 2, done: false },
      { value: 3, done: false },
      { value: undefined, done: true },
    ],
  )
})

t.test("'wait': waiting producers are admitted in the order they came", async (t) => {
  const c = channel<string>({ capacity: 1 })
  await c.push('a')
  const waiting = ['b', 'c', 'd'].map((x) => c.push(x))
  const got: string[] = []
  for await (const x of c) {
    got.push(x)
    if (got.length === 4) break
  }
  t.same(got, ['a', 'b', 'c', 'd'])
  t.same(await Promise.all(waiting), [true, true, true])
})

t.test("'wait': offer() never waits, and does not jump ahead of waiting producers", async (t) => {
  const c = channel<number>({ capacity: 1 })
  t.equal(c.offer(1), true)
  t.equal(c.offer(2), false, 'full: not taken')
  const waiting = c.push(3)
  const it = c[Symbol.asyncIterator]()
  await it.next()
  t.equal(await waiting, true)
  t.equal(c.offer(4), false, 'the admitted waiting item filled the room')
  t.same(await it.next(), { value: 3, done: false })
})

t.test('a consumer waiting on an empty channel gets the next item as soon as it is put in', async (t) => {
  for (const overflow of ['wait', 'drop-oldest', 'fail'] as const) {
    const c = channel<number>({ capacity: 1, overflow })
    const it = c[Symbol.asyncIterator]()
    const next = watch(it.next())
    await settle()
    t.equal(next.settled, false, `${overflow}: the consumer waits`)
    t.equal(c.offer(7), true)
    await settle()
    t.same(next.value, { value: 7, done: false }, `${overflow}: handed over`)
    t.equal(c.size, 0)
  }
})

t.test("'drop-oldest': a full channel drops its oldest item for the new one, never waiting", async (t) => {
  const c = channel<number>({ capacity: 3, overflow: 'drop-oldest' })
  for (let i = 1; i <= 5; i++) t.equal(c.offer(i), true)
  t.equal(await c.push(6), true, 'push() resolves at once too')
  t.equal(c.dropped, 3)
  c.close()
  t.same(await drain(c), [4, 5, 6])
})

t.test("'drop-oldest' with droppable: only droppable items go; the others may exceed the size", async (t) => {
  const c = channel<string>({ capacity: 2, overflow: 'drop-oldest', droppable: (s) => s === s.toLowerCase() })
  c.offer('a')
  c.offer('B')
  t.equal(c.offer('c'), true, "drops 'a', the oldest droppable")
  t.equal(c.offer('D'), true, "drops 'c'")
  t.equal(c.offer('E'), true, 'nothing droppable is queued: kept beyond the size')
  t.equal(c.size, 3)
  t.equal(c.offer('f'), false, 'nothing droppable is queued: the droppable newcomer is the one dropped')
  t.equal(c.dropped, 3)
  c.close()
  t.same(await drain(c), ['B', 'D', 'E'])
})

t.test("'fail': putting into a full channel throws ChannelFullError and queues nothing", async (t) => {
  const c = channel<number>({ capacity: 1, overflow: 'fail', name: 'frames' })
  t.equal(c.offer(1), true)
  const err = t.throws(() => c.offer(2)) as ChannelFullError
  t.ok(err instanceof ChannelFullError)
  t.match(err, { name: 'ChannelFullError', channel: 'frames', capacity: 1, message: 'frames is full (1 items)' })
  await t.rejects(c.push(3), ChannelFullError, 'push() rejects the same way')
  t.same([c.size, c.dropped], [1, 0])
  c.close()
  t.same(await drain(c), [1])
})

t.test('close(): the consumer still receives what is queued, then iteration ends', async (t) => {
  const c = channel<number>({ capacity: 3 })
  await c.push(1)
  await c.push(2)
  c.close()
  t.equal(c.closed, true)
  t.equal(await c.push(3), false, 'push after close drops its item')
  t.equal(c.offer(3), false)
  t.same(await drain(c), [1, 2])
  c.close()
  t.equal(c.closed, true, 'a second close is harmless')
})

t.test('close(): waiting producers resolve false, and a waiting consumer sees the end', async (t) => {
  const c = channel<number>({ capacity: 1 })
  await c.push(1)
  const waiting = c.push(2)
  c.close()
  t.equal(await waiting, false, 'an item not yet queued is dropped')
  t.same(await drain(c), [1])

  const empty = channel<number>()
  const it = empty[Symbol.asyncIterator]()
  const next = it.next()
  empty.close()
  t.same(await next, { value: undefined, done: true })
  t.same(await it.next(), { value: undefined, done: true }, 'and stays ended')
})

t.test('clear(): drops what is queued and every waiting producer, and ends iteration at once', async (t) => {
  const c = channel<number>({ capacity: 1 })
  await c.push(1)
  const waiting = c.push(2)
  c.clear()
  t.equal(await waiting, false)
  t.same([c.size, c.closed, c.dropped], [0, true, 0], 'an end is not counted as a policy drop')
  t.same(await drain(c), [])
  t.equal(await c.push(3), false)

  const idle = channel<number>()
  const it = idle[Symbol.asyncIterator]()
  const next = it.next()
  idle.clear()
  t.same(await next, { value: undefined, done: true }, 'a waiting consumer sees the end')
})

t.test("fail(err): drops what is queued; the consumer's next read throws err, then iteration ends", async (t) => {
  const c = channel<number>({ capacity: 2 })
  await c.push(1)
  await c.push(2)
  const waiting = c.push(3)
  const boom = new Error('runtime failed')
  c.fail(boom)
  t.equal(await waiting, false)
  t.same([c.size, c.closed], [0, true])
  const it = c[Symbol.asyncIterator]()
  await t.rejects(it.next(), boom)
  t.same(await it.next(), { value: undefined, done: true })
  t.equal(await c.push(4), false)
  c.fail(new Error('again'))
  t.same(await it.next(), { value: undefined, done: true }, 'a second failure is not reported')
})

t.test('fail(err): a consumer already waiting gets err; a for-await loop throws it', async (t) => {
  const c = channel<number>()
  const it = c[Symbol.asyncIterator]()
  const next = it.next()
  const boom = new Error('tts failed')
  c.fail(boom)
  await t.rejects(next, boom)
  t.same(await it.next(), { value: undefined, done: true })

  const looped = channel<number>()
  await looped.push(1)
  looped.fail(boom)
  await t.rejects(drain(looped), boom, 'queued items are dropped, not delivered first')
})

t.test('fail(err) after close(): the rest still queued is dropped and the consumer gets err', async (t) => {
  const c = channel<number>()
  await c.push(1)
  await c.push(2)
  c.close()
  const it = c[Symbol.asyncIterator]()
  t.same(await it.next(), { value: 1, done: false })
  const boom = new Error('late')
  c.fail(boom)
  await t.rejects(it.next(), boom)
  const drained = channel<number>()
  drained.close()
  drained.fail(boom)
  t.same(await drain(drained), [], 'a channel already ended and drained ignores a failure')
})

t.test('a consumer that stops early clears the channel: producers stop queueing', async (t) => {
  const c = channel<number>({ capacity: 1 })
  await c.push(1)
  const admitted = c.push(2)
  const waiting = c.push(3)
  for await (const x of c) if (x === 1) break
  t.equal(await admitted, true, 'taking 1 made room for 2 before the consumer stopped')
  t.equal(await waiting, false)
  t.same([c.size, c.closed], [0, true], 'the queued 2 is dropped')
  t.equal(c.offer(4), false)
})

t.test('one consumer: a channel can be iterated only once', async (t) => {
  const c = channel<number>({ name: 'phrases' })
  c[Symbol.asyncIterator]()
  t.throws(() => c[Symbol.asyncIterator](), /phrases can be iterated only once/)
})

t.test('a producer that awaits each push runs at the pace of a slower consumer, never past the size', async (t) => {
  const c = channel<number>({ capacity: 4 })
  let maxQueued = 0
  const produce = (async () => {
    for (let i = 0; i < 50; i++) {
      await c.push(i)
      maxQueued = Math.max(maxQueued, c.size)
    }
    c.close()
  })()
  const got: number[] = []
  for await (const x of c) {
    got.push(x)
    await settle()
  }
  await produce
  t.same(
    got,
    Array.from({ length: 50 }, (_, i) => i),
  )
  t.ok(maxQueued <= 4, `at most 4 queued (saw ${maxQueued})`)
})
