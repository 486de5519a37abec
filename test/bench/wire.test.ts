import t from 'tap'
import { audioFramesFromPcap, wireJitter } from '../../bench/voice/wire.js'
import { FRAME_BYTES } from '../../bench/voice/caller.js'

// A pcap (link type EN10MB, as tcpdump writes for lo) of TCP segments from port 8081 to `dport`.
// Sequence numbers follow on per socket unless a segment gives its own (a retransmission, a hole).
function pcap(segments: Array<{ ms: number; dport: number; data: Buffer; seq?: number }>): Buffer {
  const nextSeq = new Map<number, number>()
  const head = Buffer.alloc(24)
  head.writeUInt32LE(0xa1b2c3d4, 0)
  head.writeUInt16LE(2, 4)
  head.writeUInt16LE(4, 6)
  head.writeUInt32LE(262144, 16)
  head.writeUInt32LE(1, 20)
  const recs = segments.map(({ ms, dport, data, seq: given }) => {
    const seq = given ?? nextSeq.get(dport) ?? 1000
    nextSeq.set(dport, (seq + data.length) >>> 0)
    const eth = Buffer.alloc(14)
    eth.writeUInt16BE(0x0800, 12)
    const ip = Buffer.alloc(20)
    ip[0] = 0x45
    ip.writeUInt16BE(20 + 20 + data.length, 2)
    ip[9] = 6
    const tcp = Buffer.alloc(20)
    tcp.writeUInt16BE(8081, 0)
    tcp.writeUInt16BE(dport, 2)
    tcp.writeUInt32BE(seq, 4)
    tcp[12] = 5 << 4
    const pkt = Buffer.concat([eth, ip, tcp, data])
    const rec = Buffer.alloc(16)
    rec.writeUInt32LE(Math.floor(ms / 1000), 0)
    rec.writeUInt32LE(Math.round((ms % 1000) * 1000), 4)
    rec.writeUInt32LE(pkt.length, 8)
    rec.writeUInt32LE(pkt.length, 12)
    return Buffer.concat([rec, pkt])
  })
  return Buffer.concat([head, ...recs])
}

const audio = () => Buffer.concat([Buffer.from([0x82, 126, FRAME_BYTES >> 8, FRAME_BYTES & 255]), Buffer.alloc(FRAME_BYTES, 7)])
const text = (s: string) => Buffer.concat([Buffer.from([0x81, s.length]), Buffer.from(s)])

t.test('frames are counted per socket at the segment that completes them', async (t) => {
  const two = Buffer.concat([audio(), audio()])
  const split = audio()
  const frames = audioFramesFromPcap(
    pcap([
      { ms: 1000, dport: 50001, data: two }, // a lead burst: two frames in one segment
      { ms: 1020, dport: 50001, data: Buffer.concat([text('{"type":"status"}'), split.subarray(0, 100)]) }, // an event, then half a frame
      { ms: 1021, dport: 50001, data: split.subarray(100) }, // the rest of it
      { ms: 1005, dport: 50002, data: audio().subarray(300) }, // capture began mid-frame: skipped
      { ms: 1025, dport: 50002, data: audio() },
    ]),
  )
  t.same(frames.get(50001), [1000, 1000, 1021])
  t.same(frames.get(50002), [1025])
})

t.test('a retransmitted segment is not counted twice, whole or in part', async (t) => {
  const a = audio()
  const frames = audioFramesFromPcap(
    pcap([
      { ms: 1000, dport: 50001, data: a, seq: 5000 },
      { ms: 1015, dport: 50001, data: a, seq: 5000 }, // a tail loss probe: the same bytes again
      { ms: 1020, dport: 50001, data: audio(), seq: 5000 + a.length },
      // A retransmission that overlaps the last frame's end and carries the next one.
      { ms: 1040, dport: 50001, data: Buffer.concat([a.subarray(a.length - 10), audio()]), seq: 5000 + 2 * a.length - 10 },
    ]),
  )
  t.same(frames.get(50001), [1000, 1020, 1040], 'each frame once, at its first transmission')
})

t.test('sequence numbers that wrap still follow on', async (t) => {
  const a = audio()
  const start = 2 ** 32 - 100
  const frames = audioFramesFromPcap(
    pcap([
      { ms: 1000, dport: 50001, data: a, seq: start },
      { ms: 1020, dport: 50001, data: audio(), seq: (start + a.length) >>> 0 },
      { ms: 1021, dport: 50001, data: a, seq: start }, // a late retransmission from before the wrap
    ]),
  )
  t.same(frames.get(50001), [1000, 1020])
})

t.test('a segment the capture lost drops the broken frame and resumes at the next frame start', async (t) => {
  const a = audio()
  const frames = audioFramesFromPcap(
    pcap([
      { ms: 1000, dport: 50001, data: a.subarray(0, 300), seq: 1 },
      // bytes 300–399 never captured
      { ms: 1001, dport: 50001, data: a.subarray(400), seq: 401 },
      { ms: 1020, dport: 50001, data: audio(), seq: 1 + a.length },
    ]),
  )
  t.same(frames.get(50001), [1020], 'no frame made of the wrong bytes')
})

t.test("wire jitter is the callers' stretch jitter over those frames", async (t) => {
  // A burst of three (the playout lead), then 20 ms apart, one frame 12 ms late.
  const ats = [1000, 1000.2, 1000.4, 1020.4, 1040.4, 1072.4, 1080.4, 1100.4]
  const j = wireJitter(new Map([[50001, ats]]))
  t.equal(j.length, 6, 'the burst counts by its last frame')
  t.equal(Math.max(...j), 12)
  t.equal(Math.min(...j), 0)
})

t.test('refuses what is not a little-endian pcap', async (t) => {
  t.throws(() => audioFramesFromPcap(Buffer.alloc(40, 1)), /pcap/)
  t.same(audioFramesFromPcap(Buffer.alloc(0)).size, 0)
})
