// Two call media ends over real UDP on loopback (and one end against a hand-written RTP peer):
// the agent's 8 kHz tone reaches the other end as 8 kHz PCM of the same pitch and level, in PCMU
// and PCMA; DTMF crosses; close sends RTCP BYE and gives the ports back.
import dgram from 'node:dgram'
import t, { type Test } from 'tap'
import { createLogger } from '../../../core/index.js'
import { parseRtp, type RtpPacket, RtpPacket as Packet } from '../../../sip/index.js'
import { InlineMediaIo, type MediaIo, openCallMedia, type PhoneCallMedia, RtpPortPool, WorkerMediaIo } from '../../../telephony/media/index.js'
import { concat, freePortRange, negotiated, RecordingInput, recordingSignals, rmsOf, toneFrames, voiced, waitFor, zeroCrossingHz } from './media-helpers.js'

const logger = createLogger('silent')
const HOST = '127.0.0.1'

type IoKind = 'inline' | 'worker'

/** `pairs` RTP/RTCP port pairs of the io under test, closed when the test ends. */
async function ioOf(t: Test, kind: IoKind, pairs: number): Promise<MediaIo> {
  const base = await freePortRange(2 * pairs)
  const ports = { minPort: base, maxPort: base + 2 * pairs - 1 }
  const io = kind === 'inline' ? new InlineMediaIo(new RtpPortPool(ports)) : new WorkerMediaIo(ports)
  t.teardown(() => io.close())
  return io
}

async function open(io: MediaIo): Promise<PhoneCallMedia & { input: RecordingInput; ended: string[] }> {
  const { signals, ended } = recordingSignals()
  const media = await openCallMedia({ io, host: HOST, signals, logger })
  const input = new RecordingInput()
  media.transport.attach(input)
  return Object.assign(media, { input, ended })
}

/** Writes frames every 20 ms of real time, computed from the start (no drift). */
async function paced(frames: readonly Int16Array[], write: (frame: Int16Array) => void): Promise<void> {
  const start = performance.now()
  for (let i = 0; i < frames.length; i++) {
    const wait = start + 20 * i - performance.now()
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
    write(frames[i]!)
  }
}

for (const kind of ['inline', 'worker'] as const) {
  for (const [codec, payloadType] of [
    ['PCMU', 0],
    ['PCMA', 8],
  ] as const) {
    t.test(`${kind}: ${codec}: a 440 Hz tone written as 8 kHz frames MUST arrive as 8 kHz PCM of the same frequency and level`, async (t) => {
      const p = await ioOf(t, kind, 2)
      const a = await open(p)
      const b = await open(p)
      t.teardown(() => {
        a.close()
        b.close()
      })
      a.apply(negotiated({ remotePort: b.localPort, codec, payloadType }))
      b.apply(negotiated({ remotePort: a.localPort, codec, payloadType }))
      await paced(toneFrames(50, 440, 8000), (frame) => void a.transport.writeAudio(frame))
      t.ok(await waitFor(() => b.stats().jitter.played >= 50), `played ${b.stats().jitter.played}`)
      const heard = voiced(concat(b.input.audioFrames))
      const hz = zeroCrossingHz(heard, 8000)
      const level = rmsOf(heard.subarray(160, -160))
      t.ok(heard.length >= 49 * 160, `${heard.length} samples of tone`)
      t.ok(Math.abs(hz - 440) < 5, `${hz.toFixed(1)} Hz`)
      t.ok(Math.abs(20 * Math.log10(level / (8000 / Math.SQRT2))) < 0.5, `RMS ${level.toFixed(0)}`)
      t.same([...b.input.rates], [8000])
      const stats = b.stats()
      t.equal(stats.packetsIn, 50)
      t.equal(stats.framesDelivered, stats.ticks, 'one frame per tick')
      t.equal(a.stats().packetsOut, 50)
      t.comment(`b: ${JSON.stringify({ ...stats.jitter, ticks: stats.ticks, skippedTicks: stats.skippedTicks })}`)
    })
  }

  t.test(`${kind}: against a hand-written peer: sequence, timestamp, SSRC and marker on the wire; its RTP heard; strangers dropped`, async (t) => {
    const p = await ioOf(t, kind, 1)
    const a = await open(p)
    const peer = dgram.createSocket('udp4')
    const stranger = dgram.createSocket('udp4')
    await Promise.all([peer, stranger].map((s) => new Promise<void>((resolve) => s.bind(0, HOST, resolve))))
    t.teardown(() => {
      a.close()
      peer.close()
      stranger.close()
    })
    const got: RtpPacket[] = []
    peer.on('message', (msg) => {
      const parsed = parseRtp(msg)
      if (parsed.ok) got.push(parsed.packet)
    })
    const peerPort = peer.address().port
    a.apply(negotiated({ remotePort: peerPort, rtcpPort: peerPort }))
    await paced(toneFrames(10), (frame) => void a.transport.writeAudio(frame))
    t.ok(await waitFor(() => got.length >= 10))
    got.forEach((packet, i) => {
      t.equal(packet.ssrc, got[0]!.ssrc)
      t.equal(packet.sequenceNumber, (got[0]!.sequenceNumber + i) & 0xffff)
      t.equal(packet.timestamp, (got[0]!.timestamp + 160 * i) >>> 0)
      t.equal(packet.marker, i === 0)
    })
    const payload = new Uint8Array(160).fill(0x20)
    for (let i = 0; i < 5; i++) {
      const bytes = new Packet({ marker: i === 0, payloadType: 0, sequenceNumber: i, timestamp: 160 * i, ssrc: 99, payload }).serialize()
      peer.send(bytes, a.localPort, HOST)
      stranger.send(bytes, a.localPort, HOST)
    }
    t.ok(await waitFor(() => a.stats().packetsIn === 5 && a.stats().dropped.wrong_port === 5), JSON.stringify(a.stats().dropped))
    t.ok(await waitFor(() => a.input.audioFrames.some((f) => f.some((s) => s !== 0))), "the peer's audio reached the call")
  })

  t.test(`${kind}: DTMF over UDP: sendDtmf('12#') at one end MUST give the other end's call exactly 1, 2, #`, async (t) => {
    const p = await ioOf(t, kind, 2)
    const a = await open(p)
    const b = await open(p)
    t.teardown(() => {
      a.close()
      b.close()
    })
    a.apply(negotiated({ remotePort: b.localPort }))
    b.apply(negotiated({ remotePort: a.localPort }))
    await a.transport.sendDtmf('12#')
    t.ok(await waitFor(() => b.input.digits().length >= 3))
    t.equal(b.input.digits(), '12#')
    t.equal(b.stats().dtmfIn, 3)
  })

  t.test(`${kind}: close MUST send RTCP BYE, stop the tick, release the ports (idempotent); a 2-pair pool allocates again`, async (t) => {
    const p = await ioOf(t, kind, 2)
    const a = await open(p)
    const b = await open(p)
    t.teardown(() => b.close())
    a.apply(negotiated({ remotePort: b.localPort }))
    b.apply(negotiated({ remotePort: a.localPort }))
    await t.rejects(openCallMedia({ io: p, host: HOST, logger, signals: recordingSignals().signals }), { code: 'ports_exhausted' })
    a.close()
    a.close()
    t.ok(await waitFor(() => b.stats().rtcpIn >= 1), 'the BYE arrived')
    t.equal(a.transport.closed, true)
    t.same(a.input.frames.at(-1), { type: 'caller_left', how: 'dropped' }, 'a call still attached hears the media go')
    const ticks = a.stats().ticks
    const c = await openCallMedia({ io: p, host: HOST, logger, signals: recordingSignals().signals })
    t.equal(c.localPort, a.localPort, "the released pair, since it is the pool's only free one")
    c.close()
    t.equal(a.stats().ticks, ticks, 'no tick after close (phone-transport.test.ts checks no timer is left)')
  })
}
