// The receive side: only the negotiated peer's RTP is taken (RFC 4961 latching opt-in), payload
// types routed (G.711 to the jitter buffer, telephone-event to key presses), everything else
// dropped and counted; a flood costs the jitter buffer's fixed ring and no more.
import t from 'tap'
import { decodeMulaw, encodeAlaw, RtpPacket } from '../../../sip/index.js'
import { capturingSession, negotiated, toneFrames } from './media-helpers.js'

const PEER = '127.0.0.1'
const PEER_PORT = 40_000

function receiving(latch = false) {
  const { session, sent } = capturingSession({ latch })
  session.apply(negotiated({ remoteAddress: PEER, remotePort: PEER_PORT }))
  return { session, sent }
}

const packet = (i: number, init: Partial<ConstructorParameters<typeof RtpPacket>[0]> = {}) =>
  new RtpPacket({
    marker: i === 0,
    payloadType: 0,
    sequenceNumber: 100 + i,
    timestamp: 8000 + 160 * i,
    ssrc: 0xabc,
    payload: new Uint8Array(160).fill(0x20),
    ...init,
  }).serialize()

t.test('RTP from another address or another port MUST be dropped and counted by reason', async (t) => {
  const { session } = receiving()
  session.receive(packet(0), 'rtp', '127.0.0.2', PEER_PORT, 0)
  session.receive(packet(1), 'rtp', PEER, PEER_PORT + 2, 0)
  session.receive(packet(2), 'rtp', PEER, PEER_PORT, 0)
  const stats = session.stats()
  t.match(stats.dropped, { wrong_address: 1, wrong_port: 1 })
  t.equal(stats.packetsIn, 1)
  t.equal(stats.latched, false)
})

t.test('with latch on, valid RTP from the negotiated address on another port MUST move the send target there, once', async (t) => {
  const { session, sent } = receiving(true)
  t.same(session.receive(new Uint8Array([1, 2, 3]), 'rtp', PEER, 50_000, 0), [], 'not RTP: no latch')
  t.equal(session.stats().latched, false)
  t.same(session.receive(packet(0), 'rtp', PEER, 50_000, 0), [{ kind: 'latched', channel: 'rtp', port: 50_000 }])
  session.receive(packet(1), 'rtp', PEER, 50_002, 20)
  session.receive(packet(2), 'rtp', '127.0.0.9', 50_000, 20)
  session.receive(packet(3), 'rtp', PEER, 50_000, 40)
  session.receive(packet(4), 'rtp', PEER, PEER_PORT, 60)
  const stats = session.stats()
  t.match(stats.dropped, { wrong_port: 1, wrong_address: 1, malformed: 1 })
  t.equal(stats.packetsIn, 3, 'the latched port and the negotiated one')
  session.writeFrame(toneFrames(1)[0]!, 60)
  t.same([sent.at(-1)!.address, sent.at(-1)!.port], [PEER, 50_000], 'we now send to the latched port')
  session.apply(negotiated({ remoteAddress: PEER, remotePort: PEER_PORT + 10 }))
  t.equal(session.stats().latched, false, 'a new remote port resets the latch')
})

t.test('the other G.711 law MUST be decoded (and counted); other payload types, short or odd-sized packets MUST be dropped', async (t) => {
  const { session } = receiving()
  const alaw = new Uint8Array(160)
  encodeAlaw(new Int16Array(160).fill(4000), alaw)
  session.receive(packet(0, { payloadType: 8, payload: alaw }), 'rtp', PEER, PEER_PORT, 0)
  session.receive(packet(1, { payloadType: 13, payload: new Uint8Array(1) }), 'rtp', PEER, PEER_PORT, 20) // comfort noise
  session.receive(packet(2, { payload: new Uint8Array(100) }), 'rtp', PEER, PEER_PORT, 40) // 12.5 ms: no whole 10 ms
  session.receive(new Uint8Array(8), 'rtp', PEER, PEER_PORT, 40)
  const stats = session.stats()
  t.equal(stats.otherCodecPackets, 1)
  t.match(stats.dropped, { payload_type: 1, packet_size: 1, malformed: 1 })
  const frame = session.pull(1000)
  t.equal(frame.kind, 'audio')
  t.ok(Math.abs(frame.pcm[0]! - 4000) < 200, `A-law decoded: ${frame.pcm[0]}`)
})

t.test('a 40 ms packet MUST be played as two 20 ms frames', async (t) => {
  const { session } = receiving()
  const payload = new Uint8Array(320)
  payload.fill(0x10, 0, 160)
  payload.fill(0x90, 160)
  session.receive(packet(0, { payload }), 'rtp', PEER, PEER_PORT, 0)
  const first = session.pull(100)
  const a = first.pcm[0]
  const second = session.pull(120)
  const expected = new Int16Array(2)
  decodeMulaw(Uint8Array.of(0x10, 0x90), expected)
  t.same([first.kind, a, second.kind, second.pcm[0]], ['audio', expected[0], 'audio', expected[1]])
})

t.test('10 ms and 30 ms packets MUST be regrouped into the 20 ms frames played, samples in order', async (t) => {
  for (const ptime of [10, 30]) {
    const { session } = receiving()
    const samples = ptime * 8
    // A ramp of µ-law codes over 120 ms, so every sample's place can be checked after regrouping.
    const codes = Uint8Array.from({ length: 960 }, (_, i) => 0x10 + (i % 100))
    for (let at = 0, i = 0; at < codes.length; at += samples, i++)
      session.receive(
        packet(0, { marker: i === 0, sequenceNumber: 100 + i, timestamp: 8000 + at, payload: codes.slice(at, at + samples) }),
        'rtp',
        PEER,
        PEER_PORT,
        (at / 8) | 0,
      )
    const played = new Int16Array(960)
    for (let f = 0; f < 6; f++) {
      const frame = session.pull(200 + f * 20)
      t.equal(frame.kind, 'audio', `${ptime} ms: frame ${f} is audio`)
      played.set(frame.pcm.subarray(0, 160), f * 160)
    }
    const expected = new Int16Array(960)
    decodeMulaw(codes, expected)
    t.same(played, expected, `${ptime} ms packets: every sample where it was sent`)
    t.equal(session.stats().dropped.packet_size, 0)
  }
})

t.test('a lost 10 ms packet leaves 10 ms of silence in its frame, not the frame lost', async (t) => {
  const { session } = receiving()
  const codes = new Uint8Array(80).fill(0x20)
  // Halves 0-1 (frame 0), 2 lost, 3 (frame 1), then 4-7 (frames 2, 3).
  for (const k of [0, 1, 3, 4, 5, 6, 7])
    session.receive(packet(0, { sequenceNumber: 100 + k, timestamp: 8000 + k * 80, payload: codes }), 'rtp', PEER, PEER_PORT, k * 10)
  // A pulled frame's PCM is valid until the next pull: read it at once.
  const frames = [0, 1, 2, 3].map((f) => {
    const frame = session.pull(200 + f * 20)
    return { kind: frame.kind, first: frame.pcm[0], lastOfHalf: frame.pcm[79], secondHalf: frame.pcm[80] }
  })
  t.same(
    frames.map((f) => f.kind),
    ['audio', 'audio', 'audio', 'audio'],
  )
  const voice = frames[0]!.first
  t.not(voice, 0)
  t.same(frames[1], { kind: 'audio', first: 0, lastOfHalf: 0, secondHalf: voice }, 'the lost half is silent, the half that came is there')
})

t.test('a flood of 10,000 packets from the right address MUST stay within the jitter buffer ring', async (t) => {
  const { session } = receiving()
  const before = process.memoryUsage().heapUsed
  for (let i = 0; i < 10_000; i++) session.receive(packet(i), 'rtp', PEER, PEER_PORT, 0)
  const { jitter, packetsIn } = session.stats()
  t.equal(packetsIn, 10_000)
  t.equal(jitter.bufferedFrames, 64, 'the ring is full, no more')
  t.equal(jitter.overflowDropped, 10_000 - 64)
  const grownKiB = (process.memoryUsage().heapUsed - before) / 1024
  t.comment(`heap after the flood: ${grownKiB.toFixed(0)} KiB more (garbage not yet collected included)`)
  // Nothing keeps packets: a second flood leaves the same state.
  for (let i = 0; i < 10_000; i++) session.receive(packet(i), 'rtp', PEER, PEER_PORT, 0)
  t.equal(session.stats().jitter.bufferedFrames, 64)
})

t.test('RTCP: an SR from the peer MUST be echoed in our RR (LSR), and the peer report of our stream read back', async (t) => {
  let nowMs = 0
  const wallClockMs = () => 1_700_000_000_000 + nowMs
  const a = capturingSession({ wallClockMs })
  const b = capturingSession({ wallClockMs })
  a.session.apply(negotiated({ remotePort: 41_000 }))
  b.session.apply(negotiated({ remotePort: 40_000 }))
  // A talks to B, B only listens.
  toneFrames(10).forEach((frame, i) => a.session.writeFrame(frame, i * 20))
  for (const s of a.sent) b.session.receive(s.bytes, 'rtp', '127.0.0.1', 40_000, 5)
  a.session.report((nowMs = 200))
  const sr = a.sent.at(-1)!
  t.equal(sr.channel, 'rtcp')
  t.equal(sr.port, 41_001, 'RTCP to the RTP port + 1')
  t.equal(sr.bytes[1], 200, 'an SR: A has sent')
  b.session.receive(sr.bytes, 'rtcp', '127.0.0.1', 40_001, (nowMs = 210))
  b.session.report((nowMs = 5000))
  const rr = b.sent.at(-1)!
  t.equal(rr.bytes[1], 201, 'an RR: B has sent nothing')
  a.session.receive(rr.bytes, 'rtcp', '127.0.0.1', 41_001, (nowMs = 5020))
  const remote = a.session.stats().remote
  t.ok(remote, 'A read its report block')
  t.equal(remote!.fractionLost, 0)
  t.equal(remote!.cumulativeLost, 0)
  // §6.4.1: A - LSR - DLSR = (5020 - 200) - (5000 - 210) ms, within NTP short units.
  t.ok(Math.abs(remote!.rttMs! - 30) < 0.1, `round trip from LSR/DLSR: ${remote!.rttMs} ms`)
  t.equal(b.session.stats().rtcpIn, 1)
  a.session.receive(rr.bytes, 'rtcp', '127.0.0.3', 41_001, 5010)
  t.equal(a.session.stats().dropped.wrong_address, 1, 'RTCP from elsewhere is dropped too')
  a.session.receive(new Uint8Array([0x80, 200, 0, 9]), 'rtcp', '127.0.0.1', 41_001, 5010)
  t.equal(a.session.stats().dropped.rtcp_malformed, 1)
})

t.test('with rtcp-mux, RTCP MUST be sent to and taken from the RTP port', async (t) => {
  const { session, sent } = capturingSession()
  session.apply(negotiated({ rtcpMux: true, rtcpPort: PEER_PORT }))
  session.report(0)
  t.same([sent[0]!.channel, sent[0]!.port], ['rtp', PEER_PORT])
  const other = capturingSession()
  other.session.apply(negotiated({ rtcpMux: true, rtcpPort: PEER_PORT }))
  other.session.receive(sent[0]!.bytes, 'rtp', PEER, PEER_PORT, 0)
  t.equal(other.session.stats().rtcpIn, 1)
  t.equal(other.session.stats().dropped.malformed, 0)
})
