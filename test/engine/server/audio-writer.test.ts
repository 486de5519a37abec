import t from 'tap'
import { AudioWriter } from '../../../engine/server/audio-writer.js'
import type { Conn, SendResult } from '../../../engine/server/socket.js'

/** A socket whose buffer only empties when the test says so. */
class FakeConn implements Conn {
  buffered = 0
  sent: Uint8Array[] = []
  closed = false
  remoteAddress = '127.0.0.1'
  hardLimit = Infinity
  private drain: (() => void)[] = []
  private closeCbs: ((c: number, r: string) => void)[] = []
  send(data: Uint8Array | string): SendResult {
    if (this.closed || this.buffered > this.hardLimit) return 'dropped'
    const n = typeof data === 'string' ? data.length : data.byteLength
    if (typeof data !== 'string') this.sent.push(data)
    this.buffered += n
    return 'backpressure'
  }
  bufferedAmount() {
    return this.buffered
  }
  onDrain(cb: () => void) {
    this.drain.push(cb)
  }
  onMessage() {}
  onClose(cb: (c: number, r: string) => void) {
    this.closeCbs.push(cb)
  }
  close(code: number, reason: string) {
    this.closed = true
    this.closeCbs.forEach((cb) => cb(code, reason))
  }
  flushKernel(bytes = Infinity) {
    this.buffered = Math.max(0, this.buffered - bytes)
    this.drain.forEach((cb) => cb())
  }
}

const chunk = (n: number, fill = 0) => new Uint8Array(n).fill(fill)

t.test('sends while the socket is under the high-water mark, then queues', async (t) => {
  const conn = new FakeConn()
  const w = new AudioWriter(conn, { highWaterBytes: 100, maxQueueBytes: 1000 })
  for (let i = 0; i < 5; i++) t.equal(await w.write(chunk(40)), true)
  t.equal(conn.sent.length, 3, '0, 40, 80 were under 100')
  t.equal(w.queuedBytes, 80)
  t.equal(w.paused, true)
  conn.flushKernel()
  t.equal(conn.sent.length, 5)
  t.equal(w.paused, false)
})

t.test('a full queue makes the producer wait until drain; order is kept', async (t) => {
  const conn = new FakeConn()
  const w = new AudioWriter(conn, { highWaterBytes: 10, maxQueueBytes: 20 })
  await w.write(chunk(10, 1)) // sent
  await w.write(chunk(10, 2)) // queued
  await w.write(chunk(10, 3)) // queued (20)
  let done = false
  const p = w.write(chunk(10, 4)).then((ok) => (done = ok))
  await new Promise((r) => setImmediate(r))
  t.equal(done, false, 'waiting')
  conn.flushKernel()
  await p
  t.equal(done, true)
  conn.flushKernel()
  conn.flushKernel()
  t.same(
    conn.sent.map((c) => c[0]),
    [1, 2, 3, 4],
  )
})

t.test('flush (barge-in) drops queued and waiting audio', async (t) => {
  const conn = new FakeConn()
  const w = new AudioWriter(conn, { highWaterBytes: 10, maxQueueBytes: 10 })
  await w.write(chunk(10))
  await w.write(chunk(10))
  const waiting = w.write(chunk(10))
  t.equal(w.flush(), 20)
  t.equal(await waiting, false)
  t.equal(w.queuedBytes, 0)
  conn.flushKernel()
  t.equal(conn.sent.length, 1)
})

t.test('a chunk larger than the queue is accepted into an empty queue', async (t) => {
  const conn = new FakeConn()
  conn.buffered = 50
  const w = new AudioWriter(conn, { highWaterBytes: 10, maxQueueBytes: 10 })
  t.equal(await w.write(chunk(100)), true)
})

t.test('a dropped send (socket hard limit) keeps the chunk for the next drain', async (t) => {
  const conn = new FakeConn()
  conn.hardLimit = 5
  conn.buffered = 6
  const w = new AudioWriter(conn, { highWaterBytes: 1000, maxQueueBytes: 1000 })
  await w.write(chunk(10, 7))
  t.equal(conn.sent.length, 0)
  t.equal(w.queuedBytes, 10)
  conn.flushKernel()
  t.same(
    conn.sent.map((c) => c[0]),
    [7],
  )
})

t.test('after close, writes resolve false and waiting writes are released', async (t) => {
  const conn = new FakeConn()
  const w = new AudioWriter(conn, { highWaterBytes: 10, maxQueueBytes: 10 })
  await w.write(chunk(10))
  await w.write(chunk(10))
  const waiting = w.write(chunk(10))
  conn.close(1000, 'normal')
  t.equal(await waiting, false)
  t.equal(await w.write(chunk(1)), false)
})

t.test('limits must be positive', async (t) => {
  t.throws(() => new AudioWriter(new FakeConn(), { highWaterBytes: 0 }), RangeError)
})
