// Issue #21 item 8's figures: through a UDP relay that drops 5 % of the packets and delays each by
// 0-40 ms (seeded; reordering follows), the call still gets one frame per tick, every packet that
// came through is played or counted late, and concealment covers about the lost frames. The
// figures (concealment, target delay) are measured and printed, not asserted against time.
import dgram from 'node:dgram'
import t from 'tap'
import { createLogger } from '../../../core/index.js'
import { DEFAULT_JITTER_BUFFER, looksLikeRtcp } from '../../../sip/index.js'
import { openCallMedia, WorkerMediaIo } from '../../../telephony/media/index.js'
import {
  concat,
  freePortRange,
  negotiated,
  RecordingInput,
  recordingSignals,
  seededRandom,
  toneFrames,
  voiced,
  waitFor,
  zeroCrossingHz,
} from './media-helpers.js'

const HOST = '127.0.0.1'
const FRAMES = 200
const LOSS = 0.05
const MAX_DELAY_MS = 40

/** Forwards A's RTP to B, losing and delaying packets by a seeded draw. */
async function relay(seed: number) {
  const random = seededRandom(seed)
  const fromA = dgram.createSocket('udp4')
  const toB = dgram.createSocket('udp4')
  await Promise.all([fromA, toB].map((s) => new Promise<void>((resolve) => s.bind(0, HOST, resolve))))
  const state = { target: 0, forwarded: 0, lost: [] as number[], pending: 0, index: 0 }
  fromA.on('message', (msg) => {
    if (looksLikeRtcp(msg)) return
    const index = state.index++
    // The first packet always passes: it is what starts the far end's buffer.
    if (index > 0 && random() < LOSS) return void state.lost.push(index)
    state.pending++
    setTimeout(() => {
      state.pending--
      state.forwarded++
      toB.send(msg, state.target, HOST)
    }, random() * MAX_DELAY_MS)
  })
  return {
    state,
    portForA: fromA.address().port,
    portForB: toB.address().port,
    close: () => {
      fromA.close()
      toB.close()
    },
  }
}

t.test('5 % loss and 0-40 ms of jitter: one frame per tick, every arrived packet played or late, concealment ≈ the lost frames', async (t) => {
  const base = await freePortRange(4)
  // The media worker, as npm start runs calls' media.
  const io = new WorkerMediaIo({ minPort: base, maxPort: base + 3 })
  t.teardown(() => io.close())
  const logger = createLogger('silent')
  const a = await openCallMedia({ io, host: HOST, logger, signals: recordingSignals().signals })
  const b = await openCallMedia({ io, host: HOST, logger, signals: recordingSignals().signals })
  const net = await relay(2104)
  t.teardown(() => {
    a.close()
    b.close()
    net.close()
  })
  net.state.target = b.localPort
  a.apply(negotiated({ remotePort: net.portForA, rtcpPort: net.portForA }))
  b.apply(negotiated({ remotePort: net.portForB }))
  const input = new RecordingInput()
  b.transport.attach(input)

  const frames = toneFrames(FRAMES, 440, 8000)
  const start = performance.now()
  for (let i = 0; i < FRAMES; i++) {
    const wait = start + 20 * i - performance.now()
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
    void a.transport.writeAudio(frames[i]!)
  }
  const arrived = FRAMES - net.state.lost.length
  t.ok(await waitFor(() => net.state.index === FRAMES && net.state.pending === 0 && b.stats().packetsIn === arrived), 'every forwarded packet reached B')
  // Then the buffer plays out and, after its tail rule (pauseAfterFrames), stops concealing.
  const settled = () => {
    const j = b.stats().jitter
    return j.played + j.lateDropped === arrived && j.bufferedFrames === 0
  }
  t.ok(await waitFor(settled))
  // Run dry, the buffer conceals up to pauseAfterFrames frames, then counts the stream as stopped.
  const tail = DEFAULT_JITTER_BUFFER.pauseAfterFrames
  const until = b.stats().ticks + tail + 2
  t.ok(await waitFor(() => b.stats().ticks >= until))

  const stats = b.stats()
  const { jitter } = stats
  const lost = net.state.lost.length
  const growth = (DEFAULT_JITTER_BUFFER.maxDelayMs - DEFAULT_JITTER_BUFFER.minDelayMs) / DEFAULT_JITTER_BUFFER.frameMs
  t.comment(
    JSON.stringify({
      sent: FRAMES,
      lost,
      arrived,
      played: jitter.played,
      lateDropped: jitter.lateDropped,
      concealed: jitter.concealed,
      concealedInStream: jitter.concealed - tail,
      underruns: jitter.underruns,
      targetDelayMs: jitter.targetDelayMs,
      ticks: stats.ticks,
      skippedTicks: stats.skippedTicks,
    }),
  )
  t.ok(lost >= 4 && lost <= 20, `the seed loses ${lost} of ${FRAMES}`)
  t.equal(stats.framesDelivered, stats.ticks, 'one frame handed to the call per tick, no stall')
  t.equal(input.audioFrames.length, stats.ticks)
  t.equal(jitter.played + jitter.lateDropped, arrived, 'every packet that came through was played or counted late')
  t.equal(jitter.overflowDropped + jitter.duplicates + jitter.undecodable, 0)
  const missing = lost + jitter.lateDropped
  t.ok(jitter.concealed >= missing, `concealed ${jitter.concealed} ≥ lost ${lost} + late ${jitter.lateDropped}`)
  t.ok(jitter.concealed <= missing + growth + tail, `concealed ${jitter.concealed} ≤ missing ${missing} + delay growth ${growth} + tail ${tail}`)
  const heard = voiced(concat(input.audioFrames))
  t.ok(Math.abs(zeroCrossingHz(heard, 8000) - 440) < 10, `still a 440 Hz tone: ${zeroCrossingHz(heard, 8000).toFixed(1)} Hz`)
})
