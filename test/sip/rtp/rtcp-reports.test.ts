// The compound packets we send (RFC 3550 §6.1, §6.4): SR or RR, then SDES CNAME; the NTP time
// from an injected wall clock; sender counts from SenderStats.
import t from 'tap'
import {
  buildBye,
  buildReceiverReport,
  buildSenderReport,
  ntpFromUnixMs,
  ntpMiddle32,
  parseRtcp,
  type ReportBlock,
  SenderStats,
} from '../../../sip/rtp/index.js'

const block = (ssrc: number): ReportBlock => ({
  ssrc,
  fractionLost: 1,
  cumulativeLost: 2,
  extendedHighestSequence: 3,
  jitter: 4,
  lastSr: 5,
  delaySinceLastSr: 6,
})

t.test('NTP time MUST count seconds from 1900 and a 32-bit fraction (§4)', async (t) => {
  t.same(ntpFromUnixMs(0), { seconds: 2_208_988_800, fraction: 0 })
  t.same(ntpFromUnixMs(1500), { seconds: 2_208_988_801, fraction: 0x80000000 })
  t.equal(ntpMiddle32(ntpFromUnixMs(1500)), 0x7e818000, 'low 16 bits of 0x83AA7E81, high 16 of 0x80000000')
  t.same(ntpFromUnixMs(1_700_000_000_250), { seconds: (1_700_000_000 + 2_208_988_800) >>> 0, fraction: 0x40000000 })
})

t.test('SenderStats MUST count packets and payload octets, and extrapolate the RTP timestamp', async (t) => {
  const sender = new SenderStats(8000)
  t.equal(sender.hasSent, false)
  for (let i = 0; i < 3; i++) sender.sent(160, 1000 + 160 * i, 20 * i)
  t.same([sender.packetCount, sender.octetCount, sender.hasSent], [3, 480, true])
  t.equal(sender.rtpTimestampAt(50), 1320 + 80, '10 ms after the last packet: +80 at 8 kHz')
  const wrap = new SenderStats()
  wrap.sent(160, 0xffffff00, 0)
  t.equal(wrap.rtpTimestampAt(40), (0xffffff00 + 320) >>> 0, 'wraps modulo 2^32')
})

t.test('an SR MUST carry the injected wall clock, the sender counts, then SDES CNAME', async (t) => {
  const sender = new SenderStats()
  sender.sent(160, 8000, 1000)
  sender.sent(160, 8160, 1020)
  const wire = buildSenderReport({ ssrc: 0x1234, cname: 'ozan@host', reports: [block(9)], wallClockMs: 1500, nowMs: 1020, sender })
  const result = parseRtcp(wire)
  t.ok(result.ok)
  if (!result.ok) return
  t.same(result.packets, [
    {
      type: 'sr',
      ssrc: 0x1234,
      sender: { ntpSeconds: 2_208_988_801, ntpFraction: 0x80000000, rtpTimestamp: 8160, packetCount: 2, octetCount: 320 },
      reports: [block(9)],
    },
    { type: 'sdes', chunks: [{ ssrc: 0x1234, items: [{ type: 1, text: 'ozan@host' }] }] },
  ])
  t.same([...wire.subarray(0, 4)], [0x81, 200, 0, 12], 'RC=1, PT=200, 13 words')
})

t.test('more than 31 report blocks MUST spill into further RR packets (§6.4.2)', async (t) => {
  const reports = Array.from({ length: 40 }, (_, i) => block(i))
  const sr = parseRtcp(buildSenderReport({ ssrc: 1, cname: 'c', reports, wallClockMs: 0, nowMs: 0, sender: new SenderStats() }))
  t.same(sr.ok && sr.packets.map((p) => [p.type, 'reports' in p ? p.reports.length : 0]), [
    ['sr', 31],
    ['rr', 9],
    ['sdes', 0],
  ])
  const rr = parseRtcp(buildReceiverReport({ ssrc: 1, cname: 'c', reports }))
  t.same(rr.ok && rr.packets.map((p) => [p.type, 'reports' in p ? p.reports.length : 0]), [
    ['rr', 31],
    ['rr', 9],
    ['sdes', 0],
  ])
})

t.test('an RR with no blocks is still sent, with SDES (every compound packet carries CNAME, §6.1)', async (t) => {
  const wire = buildReceiverReport({ ssrc: 0x99887766, cname: 'x', reports: [] })
  t.same([...wire.subarray(0, 8)], [0x80, 0xc9, 0x00, 0x01, 0x99, 0x88, 0x77, 0x66])
  const result = parseRtcp(wire)
  t.same(result.ok && result.packets.map((p) => p.type), ['rr', 'sdes'])
})

t.test('a BYE MUST come last in a compound packet led by a report (§6.6)', async (t) => {
  const result = parseRtcp(buildBye({ ssrc: 5, cname: 'x', reports: [], reason: 'call ended' }))
  t.same(result.ok && result.packets.map((p) => p.type), ['rr', 'sdes', 'bye'])
  t.same(result.ok && result.packets[2], { type: 'bye', ssrcs: [5], reason: 'call ended' })
})
