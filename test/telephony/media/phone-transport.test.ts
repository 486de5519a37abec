// The phone transport on a fake clock: one caller frame per 20 ms tick, drift-free and bounded
// catch-up; end / callerLeft once; transfer to the SIP side; the agent's audio out.
import t from 'tap'
import { FakePlayoutClock } from '../../../engine/pipeline/playout-clock.js'
import { parseRtp } from '../../../sip/index.js'
import { DtmfOut, PhoneCallTransport } from '../../../telephony/media/index.js'
import { capturingSession, concat, negotiated, RecordingInput, recordingSignals, rmsOf, toneFrames, voiced, zeroCrossingHz } from './media-helpers.js'

function setup(lateness: () => number = () => 0) {
  const clock = new FakePlayoutClock(1000, lateness)
  const { session, sent } = capturingSession()
  session.apply(negotiated())
  const dtmf = new DtmfOut(session.sender, clock)
  const recorded = recordingSignals()
  const transport = new PhoneCallTransport({ session, dtmf, clock, signals: recorded.signals })
  const input = new RecordingInput()
  return { clock, session, sent, transport, input, ...recorded }
}

t.test("attached, the transport MUST hand the call exactly one 20 ms frame per tick, at the line's 8 kHz (160 samples)", async (t) => {
  const { clock, transport, input } = setup()
  transport.attach(input)
  clock.advance(19)
  t.equal(input.audioFrames.length, 0)
  clock.advance(1)
  t.equal(input.audioFrames.length, 1)
  clock.advance(1000)
  t.equal(input.audioFrames.length, 51)
  t.same([...input.rates], [8000])
  t.equal(transport.lineRate, 8000, 'the call is told its line is 8 kHz')
  t.ok(input.audioFrames.every((f) => f.length === 160))
  t.equal(transport.ticks, 51)
  t.equal(clock.pendingTimers, 1, 'one timer at a time')
})

t.test('late timers MUST NOT drift the tick, and a stall MUST catch up at most 3 frames', async (t) => {
  let late = 7
  const { clock, transport, input } = setup(() => late)
  transport.attach(input)
  clock.advance(2010) // every timer 7 ms late: still one frame per 20 ms of clock
  t.equal(input.audioFrames.length, 100)
  late = 500
  clock.advance(20) // tick 101 at 2027 sets the next timer, which will fire at 2540
  t.equal(transport.ticks, 101)
  late = 0
  clock.advance(510)
  t.equal(transport.ticks, 104, 'the stall: 3 frames caught up at once')
  t.equal(transport.skippedTicks, 23, 'and the other 23 due skipped')
  clock.advance(100)
  t.equal(transport.ticks + transport.skippedTicks, 132, 'the media clock kept its count: 2640 ms / 20')
  t.equal(input.audioFrames.length, transport.ticks)
})

t.test('caller audio sent by the other end MUST arrive as the same tone, at 8 kHz, each frame an array of its own', async (t) => {
  const { clock, session, transport, input } = setup()
  const peer = capturingSession()
  peer.session.apply(negotiated({ remotePort: 40_002 }))
  transport.attach(input)
  const frames = toneFrames(50, 440, 8000)
  for (const frame of frames) {
    peer.session.writeFrame(frame, clock.now())
    for (const s of peer.sent.splice(0)) session.receive(s.bytes, 'rtp', '127.0.0.1', 40_000, clock.now() + 5)
    clock.advance(20)
  }
  clock.advance(500)
  const heard = voiced(concat(input.audioFrames))
  t.ok(heard.length >= 49 * 160, `${heard.length} samples heard`)
  t.ok(Math.abs(zeroCrossingHz(heard, 8000) - 440) < 5, `${zeroCrossingHz(heard, 8000).toFixed(1)} Hz`)
  const level = rmsOf(heard.subarray(160, -160))
  t.ok(Math.abs(20 * Math.log10(level / (8000 / Math.SQRT2))) < 0.5, `level ${level.toFixed(0)} vs ${(8000 / Math.SQRT2).toFixed(0)}`)
  const { jitter } = session.stats()
  t.equal(jitter.played, 50, 'every packet played')
  // After the stream, the buffer conceals until it counts the stream as stopped (pauseAfterFrames).
  t.ok(jitter.concealed <= 11, `concealed ${jitter.concealed}: the tail only`)
  // The jitter buffer reuses its frame; the call keeps what it was given (its STT queues frames).
  const kept = input.audioFrames.filter((f) => f.some((x) => x !== 0))
  t.ok(kept.length >= 49, `${kept.length} frames of tone kept`)
  t.ok(
    kept.every((f, i) => i === 0 || f.buffer !== kept[i - 1]!.buffer || f.byteOffset !== kept[i - 1]!.byteOffset),
    'no two frames share memory',
  )
})

t.test('writeAudio MUST send one packet now and resolve at once; after end() nothing more is sent', async (t) => {
  const { transport, sent, signals, ended } = setup()
  const [frame] = toneFrames(1)
  await transport.writeAudio(frame!)
  t.equal(sent.length, 1)
  t.ok(parseRtp(sent[0]!.bytes).ok)
  transport.end('agent_ended')
  transport.end('error')
  t.same(ended, ['agent_ended'], 'signals.ended exactly once')
  t.equal(transport.closed, true)
  await transport.writeAudio(frame!)
  t.equal(sent.length, 1)
  transport.callerLeft('hangup')
  t.same(ended, ['agent_ended'])
  void signals
})

t.test('callerLeft MUST give the call caller_left once and close the transport; ticks stop', async (t) => {
  const { clock, transport, input, ended } = setup()
  transport.attach(input)
  clock.advance(100)
  transport.callerLeft('hangup')
  transport.callerLeft('dropped')
  transport.end('agent_ended')
  t.same(
    input.frames.filter((f) => f.type === 'caller_left'),
    [{ type: 'caller_left', how: 'hangup' }],
  )
  t.same(ended, [], 'the caller left: no BYE to send')
  const frames = input.audioFrames.length
  clock.advance(1000)
  t.equal(input.audioFrames.length, frames)
  t.equal(clock.pendingTimers, 0)
})

t.test('a hang-up before the call attached MUST reach the call when it attaches', async (t) => {
  const { transport, input } = setup()
  transport.callerLeft('dropped')
  transport.attach(input)
  t.same(input.frames, [{ type: 'caller_left', how: 'dropped' }])
})

t.test('emit: a transfer MUST go to signals.transfer; transcripts and status are ignored', async (t) => {
  const { transport, transfers } = setup()
  transport.emit({ type: 'status', status: 'listening' })
  transport.emit({ type: 'transcript', role: 'agent', text: 'hi', final: true, turnId: 't', interrupted: false })
  transport.emit({ type: 'transfer', target: 'sip:sales@example.com' })
  t.same(transfers, ['sip:sales@example.com'])
})

t.test('clearAudio MUST make the next agent packet start a talkspurt', async (t) => {
  const { clock, transport, sent } = setup()
  const frames = toneFrames(3)
  await transport.writeAudio(frames[0]!)
  clock.advance(20)
  transport.clearAudio()
  await transport.writeAudio(frames[1]!)
  const markers = sent.map((s) => (parseRtp(s.bytes) as { ok: true; packet: { marker: boolean } }).packet.marker)
  t.same(markers, [true, true])
})

t.test('dtmfReceived (SIP INFO) MUST give one dtmf frame per digit; anything else is ignored', async (t) => {
  const { transport, input } = setup()
  transport.attach(input)
  transport.dtmfReceived('5')
  transport.dtmfReceived('a')
  transport.dtmfReceived('X')
  transport.dtmfReceived('12')
  t.same(input.frames, [
    { type: 'dtmf', digits: '5' },
    { type: 'dtmf', digits: 'A' },
  ])
})

t.test('writeAudio MUST read the frame before it returns (writesAudioAtOnce): refilling it after cannot change what is sent', async (t) => {
  const { session, sent, transport } = setup()
  t.equal(transport.writesAudioAtOnce, true)
  // 40 ms packets: the first 20 ms frame waits in the sender's FIFO for the second.
  session.apply(negotiated({ ptimeMs: 40 }))
  const frame = toneFrames(1)[0]!
  const tone = frame.slice()
  void transport.writeAudio(frame)
  t.equal(sent.length, 0, 'half a packet: nothing sent yet')
  frame.fill(0) // the playout refills its one array with the next frame: silence here
  void transport.writeAudio(frame)
  t.equal(sent.length, 1)
  const packet = parseRtp(sent[0]!.bytes)
  t.ok(packet.ok)
  const payload = (packet as { ok: true; packet: { payload: Uint8Array } }).packet.payload
  t.equal(payload.length, 320)
  t.notSame([...payload.subarray(0, 160)], [...payload.subarray(160)], 'the first 20 ms is the tone as written, not the silence it was refilled with')
  t.ok(rmsOf(tone) > 1000)
})
