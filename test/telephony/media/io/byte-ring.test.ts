// The shared ring between the main thread and the media worker: records come out whole and in
// order across wraps, a full ring refuses rather than overwrites, and room comes back as records
// are read.
import t from 'tap'
import { ByteRing } from '../../../../telephony/media/io/index.js'

function write(ring: ByteRing, bytes: Uint8Array): boolean {
  const at = ring.reserve(bytes.length)
  if (at < 0) return false
  ring.bytes.set(bytes, at)
  ring.commit()
  return true
}

function readAll(ring: ByteRing): Uint8Array[] {
  const out: Uint8Array[] = []
  ring.read((offset, length) => out.push(ring.bytes.slice(offset, offset + length)))
  return out
}

/** A record of `length` bytes, each the record's number plus its index. */
const record = (n: number, length: number) => Uint8Array.from({ length }, (_, i) => (n + i) & 0xff)

t.test('records of every size MUST come out whole and in order, through many wraps', async (t) => {
  const ring = new ByteRing(ByteRing.allocate(256))
  let seed = 7
  const random = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32
  let written = 0
  let read = 0
  let wrong = 0
  let overRead = 0
  for (let round = 0; round < 2000; round++) {
    // Write a few, read a few: the indexes go round the ring hundreds of times at every offset.
    for (let k = Math.floor(random() * 4); k >= 0; k--) {
      const length = Math.floor(random() * 90)
      if (write(ring, record(written, length))) written++
    }
    const want = Math.floor(random() * 4)
    let got = 0
    ring.read((offset, length) => {
      const expected = record(read, length)
      if (ring.bytes.subarray(offset, offset + length).some((b, i) => b !== expected[i])) wrong++
      read++
      got++
    }, want)
    if (got > want) overRead++
  }
  read += readAll(ring).length
  t.equal(wrong, 0, 'every record held the bytes written')
  t.equal(overRead, 0, 'read() visited at most max records')
  t.equal(read, written, `${written} written, all read`)
  t.ok(written > 1000)
})

t.test('a full ring MUST refuse a record (reserve answers -1) and never overwrite one unread', async (t) => {
  const ring = new ByteRing(ByteRing.allocate(64))
  let n = 0
  while (write(ring, record(n, 10))) n++
  t.ok(n >= 3, `${n} records of 10 bytes fit in 64`)
  t.equal(ring.reserve(10), -1)
  const first = readAll(ring)
  t.equal(first.length, n, 'the records before the refusal are intact')
  first.forEach((bytes, i) => t.same([...bytes], [...record(i, 10)]))
  t.ok(write(ring, record(99, 10)), 'room is back once read')
  t.equal(ring.usedBytes, 16)
})

t.test('a record longer than the ring can ever hold MUST be refused, and a bad capacity is a RangeError', async (t) => {
  const ring = new ByteRing(ByteRing.allocate(64))
  t.equal(ring.reserve(ring.maxRecord + 1), -1)
  t.ok(ring.reserve(ring.maxRecord) >= 0)
  t.throws(() => ByteRing.allocate(30), RangeError)
  t.throws(() => ByteRing.allocate(66), RangeError)
  t.throws(() => new ByteRing(ByteRing.allocate(64)).commit(), /without reserve/)
})

t.test('two views of the same memory MUST agree: what one side commits, the other reads', async (t) => {
  const memory = ByteRing.allocate(128)
  const producer = new ByteRing(memory)
  const consumer = new ByteRing(memory)
  t.equal(consumer.pending, false)
  write(producer, record(1, 5))
  t.equal(consumer.pending, true)
  t.same(
    readAll(consumer).map((b) => [...b]),
    [[...record(1, 5)]],
  )
  t.equal(producer.usedBytes, 0, "the consumer's read gave the room back to the producer")
})
