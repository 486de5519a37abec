import t from 'tap'
import { CallerAudioQueue, DEFAULT_CALLER_AUDIO_QUEUE } from '../../client/src/caller-audio-queue.js'
import { FRAME_BYTES } from '../../client/src/pcm16.js'

// Backpressure on caller audio (client/src/caller-audio-queue.ts): the socket's buffered bytes
// decide what is sent; what waits is bounded and the oldest goes first.

/** A 20 ms frame whose first byte names it. */
const frame = (id: number) => {
  const b = new ArrayBuffer(FRAME_BYTES)
  new Uint8Array(b)[0] = id
  return b
}
const ids = (frames: ArrayBuffer[]) => frames.map((f) => new Uint8Array(f)[0])

t.test('the bounds: 200 ms in the socket, 200 ms more held here', async (t) => {
  t.equal(DEFAULT_CALLER_AUDIO_QUEUE.maxBufferedBytes, 10 * FRAME_BYTES)
  t.equal(DEFAULT_CALLER_AUDIO_QUEUE.maxQueuedFrames, 10)
})

t.test('an idle socket: every frame goes out at once, nothing waits', async (t) => {
  const q = new CallerAudioQueue()
  for (let i = 0; i < 5; i++) t.same(ids(q.push(frame(i), 0)), [i])
  t.equal(q.queued, 0)
  t.equal(q.dropped, 0)
})

t.test('a backed-up socket: frames wait, the oldest is dropped past the bound, the rest go oldest first', async (t) => {
  const q = new CallerAudioQueue()
  const full = DEFAULT_CALLER_AUDIO_QUEUE.maxBufferedBytes
  for (let i = 0; i < 15; i++) t.same(q.push(frame(i), full), [], `frame ${i} waits`)
  t.equal(q.queued, 10, 'never more than maxQueuedFrames')
  t.equal(q.dropped, 5, 'the five oldest were dropped')
  // The socket drained to 3 frames' worth: 7 more fit under the limit.
  t.same(ids(q.drain(3 * FRAME_BYTES)), [5, 6, 7, 8, 9, 10, 11])
  t.same(ids(q.push(frame(15), 0)), [12, 13, 14, 15])
})

t.test('clear forgets queued audio without counting it as dropped', async (t) => {
  const q = new CallerAudioQueue({ maxQueuedFrames: 3 })
  q.push(frame(1), 1e9)
  q.push(frame(2), 1e9)
  q.clear()
  t.equal(q.queued, 0)
  t.equal(q.dropped, 0)
  t.same(ids(q.push(frame(3), 0)), [3])
})

t.test('options are checked up front', async (t) => {
  t.throws(() => new CallerAudioQueue({ maxQueuedFrames: 0 }), RangeError)
  t.throws(() => new CallerAudioQueue({ maxBufferedBytes: -1 }), RangeError)
})
