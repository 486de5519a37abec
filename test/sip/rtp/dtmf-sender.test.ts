// Sending a key press (RFC 4733 §2.5.1): one timestamp, marker on the first packet, growing
// durations every 20 ms, then the E bit three times.
import t from 'tap'
import { DEFAULT_DTMF_SEND, DtmfReceiver, dtmfPackets, TelephoneEvent } from '../../../sip/rtp/index.js'

t.test("a 100 ms '5' MUST be four updates then three end packets, all at the onset's timestamp", async (t) => {
  t.match(DEFAULT_DTMF_SEND, { durationMs: 100, packetIntervalMs: 20, endPackets: 3 })
  const packets = dtmfPackets('5', 0xfffffff0)
  t.same(
    packets.map((p) => [p.atMs, p.marker, p.timestamp, ...p.payload]),
    [
      [20, true, 0xfffffff0, 5, 0x0a, 0x00, 0xa0], // 160
      [40, false, 0xfffffff0, 5, 0x0a, 0x01, 0x40], // 320
      [60, false, 0xfffffff0, 5, 0x0a, 0x01, 0xe0], // 480
      [80, false, 0xfffffff0, 5, 0x0a, 0x02, 0x80], // 640
      [100, false, 0xfffffff0, 5, 0x8a, 0x03, 0x20], // 800, E
      [120, false, 0xfffffff0, 5, 0x8a, 0x03, 0x20],
      [140, false, 0xfffffff0, 5, 0x8a, 0x03, 0x20],
    ],
  )
})

t.test('options: duration, interval, volume; bad ones refused', async (t) => {
  const packets = dtmfPackets('#', 0, { durationMs: 250, packetIntervalMs: 50, volume: 20 })
  t.same(
    packets.map((p) => [p.atMs, TelephoneEvent.deserialize(p.payload)!.duration, TelephoneEvent.deserialize(p.payload)!.end]),
    [
      [50, 400, false],
      [100, 800, false],
      [150, 1200, false],
      [200, 1600, false],
      [250, 2000, true],
      [300, 2000, true],
      [350, 2000, true],
    ],
  )
  t.equal(TelephoneEvent.deserialize(packets[0]!.payload)!.volume, 20)
  t.throws(() => dtmfPackets('X' as '1', 0), RangeError)
  t.throws(() => dtmfPackets('1', 0, { durationMs: 10 }), RangeError)
  t.throws(() => dtmfPackets('1', 0, { durationMs: 9000 }), RangeError, 'past 65535 timestamp units')
})

t.test('what the sender sends, the receiver MUST read as one press of the same length', async (t) => {
  const receiver = new DtmfReceiver()
  const out = dtmfPackets('9', 1234, { durationMs: 160 }).flatMap((p) => receiver.receive(p, 1000 + p.atMs))
  t.same(out, [
    { kind: 'start', digit: '9', timestamp: 1234 },
    { kind: 'end', digit: '9', timestamp: 1234, durationMs: 160, reason: 'end' },
  ])
})
