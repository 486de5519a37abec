// Reception statistics per RFC 3550 §A.1 (sequence validation, probation), §A.3 (expected, lost,
// fraction) and §A.8 (interarrival jitter), checked against values worked out by hand.
import t from 'tap'
import { ReceiverStats } from '../../../sip/rtp/index.js'

/** Feeds sequence numbers with timestamps 160 apart, arriving 20 ms apart: zero jitter. */
function feed(stats: ReceiverStats, seqs: number[], startMs = 0): boolean[] {
  return seqs.map((seq, i) => stats.receive(seq, seq * 160, startMs + i * 20))
}

t.test('a new source MUST stay on probation until MIN_SEQUENTIAL (2) packets in sequence (§A.1)', async (t) => {
  const stats = new ReceiverStats(1)
  t.same(feed(stats, [500, 900, 901]), [false, false, true], 'a jump restarts probation')
  t.ok(stats.valid)
  t.equal(stats.received, 1, 'the packet that ends probation is the first counted')
  t.equal(stats.expected, 1)
})

t.test('expected and lost MUST follow the extended highest sequence (§A.3)', async (t) => {
  const stats = new ReceiverStats(1)
  feed(stats, [100, 101, 102, 103, 104, 106, 107, 108, 109])
  // Base 101 (where probation ended) to 109: 9 expected, 8 received.
  t.same([stats.extendedHighestSequence, stats.expected, stats.received, stats.cumulativeLost], [109, 9, 8, 1])
  const block = stats.reportBlock(1000)
  t.equal(block.fractionLost, Math.floor(256 / 9), 'fraction lost = 1/9 as an 8-bit fixed point: 28')
  t.same([block.cumulativeLost, block.extendedHighestSequence], [1, 109])
  feed(stats, [110, 111, 112, 113], 200)
  t.equal(stats.reportBlock(2000).fractionLost, 0, 'the fraction covers only the interval since the last report')
})

t.test('the sequence number MUST wrap into the cycle count', async (t) => {
  const stats = new ReceiverStats(1)
  feed(stats, [65530, 65531, 65532, 65533, 65534, 65535, 0, 1, 2])
  t.equal(stats.extendedHighestSequence, 65536 + 2)
  t.same([stats.expected, stats.cumulativeLost], [8, 0])
})

t.test('duplicates are counted, so cumulative lost MAY go negative (§6.4.1)', async (t) => {
  const stats = new ReceiverStats(1)
  feed(stats, [10, 11, 12, 12, 12, 11])
  t.same([stats.expected, stats.received, stats.cumulativeLost], [2, 5, -3])
  t.equal(stats.reportBlock(0).fractionLost, 0, 'a negative interval loss reports 0')
})

t.test('a late packet within MAX_MISORDER MUST NOT move the highest sequence', async (t) => {
  const stats = new ReceiverStats(1)
  feed(stats, [1000, 1001, 1002, 1003, 950])
  t.same([stats.extendedHighestSequence, stats.received], [1003, 4])
})

t.test('a jump past MAX_DROPOUT is set aside, and two in sequence after it restart the count (§A.1)', async (t) => {
  const stats = new ReceiverStats(1)
  feed(stats, [1000, 1001, 1002])
  t.equal(stats.receive(9000, 0, 100), false, 'one packet far ahead is dropped')
  t.equal(stats.extendedHighestSequence, 1002)
  t.equal(stats.receive(9001, 160, 120), true, 'the next in sequence means the sender restarted')
  t.same([stats.extendedHighestSequence, stats.expected, stats.received], [9001, 1, 1])
})

t.test('interarrival jitter MUST follow J += (|D| - J)/16 in timestamp units (§A.8)', async (t) => {
  const stats = new ReceiverStats(1)
  // Timestamps 160 apart (20 ms at 8 kHz). Arrivals 0, 20, 50, 60 ms: transits 0, 0, 80, 0 in
  // timestamp units (the first packet is on probation and not counted).
  stats.receive(0, 0, 0)
  stats.receive(1, 160, 20)
  stats.receive(2, 320, 50)
  t.equal(stats.jitter, 5, 'D = 80: J = 80/16')
  stats.receive(3, 480, 60)
  t.equal(stats.jitter, 9, 'D = -80: J = 5 + (80 - 5)/16 = 9.6875, reported as 9')
  t.equal(stats.reportBlock(100).jitter, 9)
})

t.test('jitter MUST stay zero for a steady stream across the 32-bit timestamp wrap', async (t) => {
  const stats = new ReceiverStats(1)
  for (let i = 0; i < 50; i++) stats.receive(i, (2 ** 32 - 160 * 25 + 160 * i) >>> 0, 1_700_000_000_000 + i * 20)
  t.equal(stats.jitter, 0)
})

t.test('LSR and DLSR MUST come from the last SR: its middle NTP bits and the delay in 1/65536 s', async (t) => {
  const stats = new ReceiverStats(0xabc)
  feed(stats, [1, 2, 3])
  t.same([stats.reportBlock(0).lastSr, stats.reportBlock(0).delaySinceLastSr], [0, 0], 'no SR yet: both 0')
  stats.receiveSenderReport(0x7e818000, 1000)
  const block = stats.reportBlock(1500)
  t.same([block.ssrc, block.lastSr, block.delaySinceLastSr], [0xabc, 0x7e818000, 32768])
})

t.test('options MUST be validated up front', async (t) => {
  t.throws(() => new ReceiverStats(1, { clockRateHz: 0 }), RangeError)
})
