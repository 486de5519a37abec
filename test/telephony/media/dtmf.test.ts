// DTMF both ways (RFC 4733): the agent's digits as timed events on the clock, the caller's as
// exactly one dtmf frame per key press, whatever packets of an event were lost.
import t from 'tap'
import { FakePlayoutClock } from '../../../engine/pipeline/playout-clock.js'
import { parseRtp, type RtpPacket, TelephoneEvent } from '../../../sip/index.js'
import { DtmfError, DtmfOut, PhoneCallTransport } from '../../../telephony/media/index.js'
import { capturingSession, negotiated, RecordingInput, recordingSignals, type Sent, toneFrames } from './media-helpers.js'

/** End A sends digits; end B (its transport attached) hears them. Packets cross by hand, `drop` says which get lost. */
function pair(drop: (packet: RtpPacket, index: number) => boolean = () => false) {
  const clock = new FakePlayoutClock(0)
  const a = capturingSession()
  a.session.apply(negotiated({ remotePort: 40_002 }))
  const aDtmf = new DtmfOut(a.session.sender, clock)
  const aTransport = new PhoneCallTransport({ session: a.session, dtmf: aDtmf, clock, signals: recordingSignals().signals })
  const b = capturingSession()
  b.session.apply(negotiated({ remotePort: 40_000 }))
  const bTransport = new PhoneCallTransport({ session: b.session, dtmf: new DtmfOut(b.session.sender, clock), clock, signals: recordingSignals().signals })
  const input = new RecordingInput()
  bTransport.attach(input)
  const log: { atMs: number; packet: RtpPacket }[] = []
  const deliver = () => {
    for (const s of a.sent.splice(0)) {
      if (s.channel !== 'rtp') continue
      const packet = (parseRtp(s.bytes) as { ok: true; packet: RtpPacket }).packet
      const index = log.length
      log.push({ atMs: clock.now(), packet })
      if (!drop(packet, index)) bTransport.receive(s.bytes, 'rtp', '127.0.0.1', 40_000)
    }
  }
  const run = (ms: number) => {
    for (let i = 0; i < ms; i++) {
      clock.advance(1)
      deliver()
    }
  }
  return { clock, a, aTransport, b, input, log, run }
}

t.test("sendDtmf('12#') MUST send each digit's RFC 4733 packets on time and resolve after the last end packet", async (t) => {
  const { aTransport, log, run } = pair()
  let resolvedAt: number | undefined
  const done = aTransport.sendDtmf('12#').then(() => (resolvedAt = log.at(-1)?.atMs))
  run(800)
  await done
  const events = log.map(({ atMs, packet }) => {
    const event = TelephoneEvent.deserialize(packet.payload)!
    return [atMs, event.digit, event.end, packet.marker, packet.payloadType]
  })
  // Each digit: updates at 20-80 ms, the end three times at 100-140 ms; digits 200 ms apart (100 ms tone, 100 ms pause).
  const expected = ['1', '2', '#'].flatMap((digit, d) => [
    ...[20, 40, 60, 80].map((ms, i) => [200 * d + ms, digit, false, i === 0, 101]),
    ...[100, 120, 140].map((ms) => [200 * d + ms, digit, true, false, 101]),
  ])
  t.same(events, expected)
  t.equal(resolvedAt, 540)
  const timestamps = [0, 7, 14].map((i) => log[i]!.packet.timestamp)
  t.ok(
    timestamps.every((ts, i) => i === 0 || ((ts - timestamps[i - 1]!) | 0) >= 1600),
    'each event at its own, later timestamp (200 ms apart on the media clock)',
  )
})

t.test('each RFC 4733 event MUST reach the other end as exactly one dtmf frame, also with an end packet lost', async (t) => {
  for (const [name, drop] of [
    ['no loss', () => false],
    ['the first end packet of each digit lost', (p: RtpPacket) => TelephoneEvent.deserialize(p.payload)!.end && p.sequenceNumber % 7 !== 0],
    ['every end packet of the middle digit lost', (_p: RtpPacket, i: number) => i >= 11 && i <= 13],
    ['the first packet (with the marker) lost', (p: RtpPacket) => p.marker],
  ] as const) {
    const { aTransport, input, run } = pair(drop)
    const sent = aTransport.sendDtmf('1*9')
    run(2000)
    await sent
    t.equal(input.digits(), '1*9', name)
  }
})

t.test('audio MUST pause while an event is sent and resume after it with a marker', async (t) => {
  const { clock, a, aTransport, run, log } = pair()
  const frames = toneFrames(20)
  void aTransport.sendDtmf('5')
  for (let i = 0; i < 10; i++) {
    void aTransport.writeAudio(frames[i]!)
    run(20)
  }
  const audio = (sent: { packet: RtpPacket }[]) => sent.filter(({ packet }) => packet.payloadType === 0)
  t.equal(audio(log).length, 3, 'the frames from the last end packet (at 140 ms) on: 140, 160, 180')
  t.equal(audio(log)[0]!.packet.marker, true)
  t.equal(a.session.stats().framesSuppressed, 7)
  void clock
})

t.test('invalid, too many, un-negotiated or late digits MUST be refused with a typed error', async (t) => {
  const { aTransport } = pair()
  const code = (p: Promise<void>) =>
    p.then(
      () => 'sent',
      (err: unknown) => (err instanceof DtmfError ? err.code : String(err)),
    )
  t.equal(await code(aTransport.sendDtmf('12X')), 'invalid_digit')
  t.equal(await code(aTransport.sendDtmf('1 2')), 'invalid_digit')
  t.equal(await code(aTransport.sendDtmf('1'.repeat(33))), 'too_long')
  const pending = code(aTransport.sendDtmf('1'.repeat(30)))
  t.equal(await code(aTransport.sendDtmf('1234')), 'too_long', 'the bound counts queued digits (29 left after the first started)')
  aTransport.end('agent_ended')
  t.equal(await pending, 'closed', 'queued digits reject when the call ends')
  t.equal(await code(aTransport.sendDtmf('1')), 'closed')

  const clock = new FakePlayoutClock(0)
  const { session } = capturingSession()
  session.apply(negotiated({ dtmfPayloadType: undefined }))
  const transport = new PhoneCallTransport({ session, dtmf: new DtmfOut(session.sender, clock), clock, signals: recordingSignals().signals })
  t.equal(await code(transport.sendDtmf('1')), 'not_negotiated')
})

t.test('on hold, digits MUST NOT be sent (the promise still resolves)', async (t) => {
  const { a, aTransport, log, run } = pair()
  a.session.apply(negotiated({ remotePort: 40_002, onHold: true }))
  const sent = aTransport.sendDtmf('12')
  run(600)
  await sent
  t.equal(log.length, 0)
  void ([] as Sent[])
})
