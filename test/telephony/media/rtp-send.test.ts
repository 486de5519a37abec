// The send side (RFC 3550 §5.1, RFC 3551 §4.1): random SSRC, sequence and timestamp; +1 and +160
// per 20 ms packet; the marker on a talkspurt's first packet; timestamps follow the media clock
// across pauses; no sending on hold; packet times other than 20 ms.
import t from 'tap'
import { parseRtp, type RtpPacket } from '../../../sip/index.js'
import { RtpSession } from '../../../telephony/media/index.js'
import { capturingSession, negotiated, type Sent, seededRandom, toneFrames } from './media-helpers.js'

const rtp = (sent: Sent[]): RtpPacket[] => sent.filter((s) => s.channel === 'rtp').map((s) => (parseRtp(s.bytes) as { ok: true; packet: RtpPacket }).packet)

t.test('SSRC, first sequence number and first timestamp MUST come from the injected random source', async (t) => {
  const first = (seed: number) => {
    const { session, sent } = capturingSession({ random: seededRandom(seed) })
    session.apply(negotiated())
    session.writeFrame(toneFrames(1)[0]!, 0)
    return rtp(sent)[0]!
  }
  const a = first(1)
  const b = first(1)
  const c = first(2)
  t.same([a.ssrc, a.sequenceNumber, a.timestamp], [b.ssrc, b.sequenceNumber, b.timestamp], 'same seed, same start')
  t.not(a.ssrc, c.ssrc)
  t.not(a.sequenceNumber, c.sequenceNumber)
  t.not(a.timestamp, c.timestamp)
})

t.test('one packet per 20 ms frame: 160 octets, sequence +1, timestamp +160, marker on the first only', async (t) => {
  const { session, sent } = capturingSession()
  session.apply(negotiated({ remotePort: 40_000 }))
  toneFrames(10).forEach((frame, i) => session.writeFrame(frame, i * 20))
  const packets = rtp(sent)
  t.equal(packets.length, 10)
  t.same(
    sent.map((s) => [s.address, s.port]),
    Array.from({ length: 10 }, () => ['127.0.0.1', 40_000]),
  )
  packets.forEach((p, i) => {
    t.equal(p.payload.length, 160)
    t.equal(p.payloadType, 0)
    t.equal(p.ssrc, packets[0]!.ssrc)
    t.equal(p.sequenceNumber, (packets[0]!.sequenceNumber + i) & 0xffff)
    t.equal(p.timestamp, (packets[0]!.timestamp + 160 * i) >>> 0)
    t.equal(p.marker, i === 0)
  })
})

t.test('after a pause the timestamp MUST jump by the pause (media clock, not packet count) and the marker MUST be set', async (t) => {
  const { session, sent } = capturingSession()
  session.apply(negotiated())
  const frames = toneFrames(6)
  for (let i = 0; i < 3; i++) session.writeFrame(frames[i]!, i * 20) // 0, 20, 40: audio to 60 ms
  for (let i = 3; i < 6; i++) session.writeFrame(frames[i]!, 1000 + (i - 3) * 20) // resumes at 1 s
  const packets = rtp(sent)
  const ts0 = packets[0]!.timestamp
  t.same(
    packets.map((p) => [(p.timestamp - ts0) >>> 0, p.marker]),
    [
      [0, true],
      [160, false],
      [320, false],
      [8000, true], // 1000 ms after the first frame: 8000 samples
      [8160, false],
      [8320, false],
    ],
  )
  t.equal(session.stats().talkspurts, 2)
})

t.test('frames sent ahead of real time (the playout lead) stay in one talkspurt', async (t) => {
  const { session, sent } = capturingSession()
  session.apply(negotiated())
  const frames = toneFrames(8)
  // 60 ms lead: three frames at once, then one each 20 ms.
  for (let i = 0; i < 8; i++) session.writeFrame(frames[i]!, Math.max(0, (i - 2) * 20))
  t.same(
    rtp(sent).map((p) => p.marker),
    [true, false, false, false, false, false, false, false],
  )
})

t.test('clearAudio MUST start a new talkspurt: the next packet carries the marker', async (t) => {
  const { session, sent } = capturingSession()
  session.apply(negotiated())
  const frames = toneFrames(4)
  session.writeFrame(frames[0]!, 0)
  session.writeFrame(frames[1]!, 20)
  session.clear()
  session.writeFrame(frames[2]!, 40)
  session.writeFrame(frames[3]!, 60)
  const packets = rtp(sent)
  t.same(
    packets.map((p) => p.marker),
    [true, false, true, false],
  )
  t.ok(((packets[2]!.timestamp - packets[1]!.timestamp) | 0) >= 160, 'the timestamp never goes back')
})

t.test('on hold (peer sendonly/inactive) or when we are recvonly, nothing MUST be sent; resuming starts with a marker', async (t) => {
  const { session, sent } = capturingSession()
  session.apply(negotiated())
  const frames = toneFrames(12)
  session.writeFrame(frames[0]!, 0)
  session.writeFrame(frames[1]!, 20)
  session.apply(negotiated({ onHold: true, direction: 'recvonly' }))
  for (let i = 2; i < 6; i++) session.writeFrame(frames[i]!, i * 20)
  session.apply(negotiated({ direction: 'recvonly' }))
  session.writeFrame(frames[6]!, 120)
  session.apply(negotiated({ remoteAddress: '0.0.0.0' }))
  session.writeFrame(frames[7]!, 140)
  t.equal(rtp(sent).length, 2, 'nothing while held, recvonly, or c=0.0.0.0')
  session.apply(negotiated())
  session.writeFrame(frames[8]!, 160)
  session.writeFrame(frames[9]!, 180)
  const packets = rtp(sent)
  t.same(
    packets.map((p) => p.marker),
    [true, false, true, false],
  )
  t.equal((packets[2]!.timestamp - packets[0]!.timestamp) >>> 0, 160 * 8, 'the timestamp counted the held time')
  t.equal(session.stats().framesSuppressed, 6)
})

t.test('before the first negotiation nothing MUST be sent', async (t) => {
  const { session, sent } = capturingSession()
  session.writeFrame(toneFrames(1)[0]!, 0)
  session.report(0)
  t.equal(sent.length, 0)
})

t.test('packet times 10, 30 and 40 ms MUST give packets of 80, 240 and 320 samples with matching timestamps', async (t) => {
  for (const ptimeMs of [10, 30, 40]) {
    const { session, sent } = capturingSession()
    session.apply(negotiated({ ptimeMs }))
    toneFrames(12).forEach((frame, i) => session.writeFrame(frame, i * 20))
    const packets = rtp(sent)
    const samples = ptimeMs * 8
    t.equal(packets.length, Math.floor((12 * 160) / samples), `ptime ${ptimeMs}: packet count`)
    packets.forEach((p, i) => {
      t.equal(p.payload.length, samples)
      t.equal((p.timestamp - packets[0]!.timestamp) >>> 0, i * samples)
    })
  }
  const { session, sent } = capturingSession()
  session.apply(negotiated({ ptimeMs: 25 }))
  session.writeFrame(toneFrames(1)[0]!, 0)
  t.equal(rtp(sent)[0]!.payload.length, 160, 'an unsupported ptime sends 20 ms')
})

t.test('PCMA MUST be sent with the negotiated payload type and A-law codes', async (t) => {
  const { session, sent } = capturingSession()
  session.apply(negotiated({ codec: 'PCMA', payloadType: 8 }))
  session.writeFrame(new Int16Array(160), 0)
  const [packet] = rtp(sent)
  t.equal(packet!.payloadType, 8)
  t.equal(packet!.payload[100], 0xd5, 'A-law silence')
})

t.test('the send path MUST NOT allocate a buffer per packet: every packet is a view of one buffer', async (t) => {
  const views: Uint8Array[] = []
  const session = new RtpSession((_channel, bytes) => views.push(bytes), { random: seededRandom(3) })
  session.apply(negotiated())
  toneFrames(5).forEach((frame, i) => session.writeFrame(frame, i * 20))
  t.equal(views.length, 5)
  t.ok(
    views.every((v) => v.buffer === views[0]!.buffer && v === views[0]),
    'the same view each time',
  )
})

t.test("each packet MUST carry when it should leave: a talkspurt's first when written, each next 20 ms later, never before written", async (t) => {
  const { session, sent } = capturingSession()
  session.apply(negotiated())
  const frames = toneFrames(8)
  // The playout's pattern: three frames at once (its 60 ms lead), then one every 20 ms, 40 ms early.
  const writes = [1000, 1000, 1000, 1020, 1040, 1060, 1090, 1095]
  frames.forEach((frame, i) => session.writeFrame(frame, writes[i]!))
  t.same(
    sent.map((s) => s.sendAtMs),
    [1000, 1020, 1040, 1060, 1080, 1100, 1120, 1140],
  )
  t.ok(
    sent.every((s) => s.sequenced && s.channel === 'rtp'),
    'audio is sequenced',
  )
  // Frames later than their time leave when written; a pause starts a new talkspurt at its own time.
  session.writeFrame(frames[0]!, 1175)
  session.writeFrame(frames[1]!, 1500)
  t.same(
    sent.slice(8).map((s) => s.sendAtMs),
    [1175, 1500],
  )
  session.report(1600)
  const rtcp = sent.at(-1)!
  t.same([rtcp.channel, rtcp.sendAtMs, rtcp.sequenced], ['rtcp', 1600, false], 'RTCP leaves now and keeps its bytes')
})

t.test('audio dropped before it left (unsent) MUST come off the packet and octet counts the sender reports', async (t) => {
  const { session } = capturingSession()
  session.apply(negotiated())
  toneFrames(10).forEach((frame, i) => session.writeFrame(frame, i * 20))
  t.equal(session.stats().packetsOut, 10)
  t.equal(session.sender.stats.octetCount, 1600)
  session.sender.unsent(4, 640)
  t.equal(session.stats().packetsOut, 6)
  t.equal(session.stats().packetsUnsent, 4)
  t.equal(session.sender.stats.packetCount, 6, "the SR's sender packet count (RFC 3550 §6.4.1)")
  t.equal(session.sender.stats.octetCount, 960)
})
