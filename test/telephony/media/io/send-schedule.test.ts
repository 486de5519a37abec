// The media worker's waiting packets: due order, arrival order among equals, a barge-in's drop of
// one pair's audio, bounded slots.
import t from 'tap'
import { SendSchedule, SLOT_BYTES } from '../../../../telephony/media/io/index.js'

const bytes = (n: number, length = 172) => new Uint8Array(length).fill(n)

function takeAll(s: SendSchedule, now: number): number[] {
  const firsts: number[] = []
  s.takeDue(now, (slot) => {
    firsts.push(s.bytesOf(slot)[0]!)
    s.release(slot)
  })
  return firsts
}

t.test('packets MUST leave in due order, and those due at the same instant in the order they came', async (t) => {
  const s = new SendSchedule(64)
  const dues = [40, 0, 20, 20, 60, 0, 20]
  dues.forEach((due, i) => s.add(1, 0, true, due, '127.0.0.1', 4000, bytes(i)))
  t.equal(s.nextDue(), 0)
  t.same(takeAll(s, 19.9), [1, 5], 'due by 19.9: the two at 0, first come first')
  t.same(takeAll(s, 20), [2, 3, 6])
  t.same(takeAll(s, 1000), [0, 4])
  t.equal(s.nextDue(), Number.POSITIVE_INFINITY)
})

t.test("a drop MUST take one pair's sequenced packets only, count them, and leave the rest in order", async (t) => {
  const s = new SendSchedule(64)
  for (let i = 0; i < 10; i++) s.add(i % 2 === 0 ? 1 : 2, 0, true, i * 20, '127.0.0.1', 4000, bytes(i, 12 + 160))
  s.add(1, 1, false, 5, '127.0.0.1', 4001, bytes(100, 60)) // RTCP of pair 1: not audio, kept
  t.same(s.drop(1, 'sequenced'), { packets: 5, octets: 5 * 172 })
  t.equal(s.waiting, 6)
  t.same(takeAll(s, 1000), [100, 1, 3, 5, 7, 9])
  s.add(3, 0, true, 0, '::1', 4000, bytes(1))
  s.add(3, 1, false, 0, '::1', 4000, bytes(2))
  t.same(s.drop(3, 'all'), { packets: 1, octets: 172 }, "closing drops the pair's every packet")
  t.equal(s.waiting, 0)
})

t.test('slots MUST be bounded: a full schedule refuses, a released slot is taken again, bytes are copied', async (t) => {
  const s = new SendSchedule(2)
  const source = bytes(7)
  t.ok(s.add(1, 0, true, 0, '127.0.0.1', 1, source) >= 0)
  source.fill(9)
  t.ok(s.add(1, 0, true, 0, '127.0.0.1', 1, bytes(8)) >= 0)
  t.equal(s.add(1, 0, true, 0, '127.0.0.1', 1, bytes(9)), -1)
  const flying: number[] = []
  s.takeDue(0, (slot) => flying.push(slot))
  t.equal(s.bytesOf(flying[0]!)[0], 7, 'the bytes as they were when added')
  t.equal(s.add(1, 0, true, 0, '127.0.0.1', 1, bytes(9)), -1, 'a sent packet holds its slot until release (dgram may still read it)')
  s.release(flying[0]!)
  t.ok(s.add(1, 0, true, 0, '127.0.0.1', 1, bytes(9)) >= 0)
  t.equal(s.add(1, 0, true, 0, '127.0.0.1', 1, new Uint8Array(SLOT_BYTES + 1)), -1, 'longer than a slot')
  t.throws(() => new SendSchedule(0), RangeError)
})
