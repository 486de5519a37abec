// The media worker (npm start's default io): packets leave at their time from its own thread, so
// audio written ahead keeps leaving evenly while the main thread is blocked; a barge-in drops what
// has not left and the stream stays numbered without holes.
import dgram from 'node:dgram'
import { Worker } from 'node:worker_threads'
import t, { type Test } from 'tap'
import { createLogger } from '../../../../core/index.js'
import { parseRtp, type RtpPacket } from '../../../../sip/index.js'
import { openCallMedia, WorkerMediaIo } from '../../../../telephony/media/index.js'
import { freePortRange, negotiated, RecordingInput, recordingSignals, toneFrames, waitFor } from '../media-helpers.js'

const HOST = '127.0.0.1'
const logger = createLogger('silent')
const monotonicMs = () => Number(process.hrtime.bigint()) / 1e6

async function workerIo(t: Test, pairs = 1): Promise<WorkerMediaIo> {
  const base = await freePortRange(2 * pairs)
  const io = new WorkerMediaIo({ minPort: base, maxPort: base + 2 * pairs - 1 })
  t.teardown(() => io.close())
  return io
}

/**
 * A peer in a thread of its own, so it timestamps packets while the main thread is blocked: the
 * monotonic time each PCMU packet came, posted once `count` came.
 */
function threadPeer(count: number): Promise<{ port: number; arrivals: Promise<number[]>; stop: () => Promise<number> }> {
  const code = `
    const { parentPort, workerData } = require('node:worker_threads')
    const socket = require('node:dgram').createSocket('udp4')
    const times = []
    socket.on('message', (m) => {
      if ((m[1] & 0x7f) !== 0) return
      times.push(Number(process.hrtime.bigint()) / 1e6)
      if (times.length === workerData.count) parentPort.postMessage({ times })
    })
    socket.bind(0, '127.0.0.1', () => parentPort.postMessage({ port: socket.address().port }))
  `
  const worker = new Worker(code, { eval: true, workerData: { count } })
  return new Promise((resolve) => {
    let deliver: (times: number[]) => void = () => {}
    const arrivals = new Promise<number[]>((r) => (deliver = r))
    worker.on('message', (m: { port?: number; times?: number[] }) => {
      if (m.port !== undefined) resolve({ port: m.port, arrivals, stop: () => worker.terminate() })
      if (m.times) deliver(m.times)
    })
  })
}

t.test('frames written ahead MUST leave 20 ms apart, and keep leaving while the main thread is blocked', async (t) => {
  const io = await workerIo(t)
  const media = await openCallMedia({ io, host: HOST, logger, signals: recordingSignals().signals })
  const peer = await threadPeer(20)
  t.teardown(async () => {
    media.close()
    await peer.stop()
  })
  media.apply(negotiated({ remotePort: peer.port, rtcpPort: peer.port }))
  for (const frame of toneFrames(20)) void media.transport.writeAudio(frame)
  // 400 ms of audio written at once; the main thread then does nothing else for 250 ms.
  const blockedFrom = monotonicMs()
  while (monotonicMs() - blockedFrom < 250);
  const blockedTo = monotonicMs()
  const times = await peer.arrivals
  const during = times.filter((at) => at > blockedFrom && at < blockedTo)
  const gaps = times.slice(1).map((at, i) => at - times[i]!)
  t.comment(`gaps ms: ${gaps.map((g) => g.toFixed(1)).join(' ')}`)
  t.ok(during.length >= 8, `${during.length} of the ~12 packets due in the 250 ms block left during it`)
  t.ok(times.at(-1)! - times[0]! >= 19 * 20 - 40, `spread over ${(times.at(-1)! - times[0]!).toFixed(0)} ms, not sent at once`)
  const sorted = [...gaps].sort((a, b) => a - b)
  const median = sorted[sorted.length >> 1]!
  t.ok(median > 17 && median < 23, `median gap ${median.toFixed(1)} ms`)
})

t.test('a barge-in MUST drop the audio not yet left; what follows MUST continue the sequence without a hole', async (t) => {
  const io = await workerIo(t)
  const media = await openCallMedia({ io, host: HOST, logger, signals: recordingSignals().signals })
  const peer = dgram.createSocket('udp4')
  await new Promise<void>((resolve) => peer.bind(0, HOST, resolve))
  t.teardown(() => {
    media.close()
    peer.close()
  })
  const got: RtpPacket[] = []
  peer.on('message', (msg) => {
    const parsed = parseRtp(msg)
    if (parsed.ok && parsed.packet.payloadType === 0) got.push(parsed.packet)
  })
  media.apply(negotiated({ remotePort: peer.address().port, rtcpPort: peer.address().port }))
  const frames = toneFrames(50)
  for (const frame of frames) void media.transport.writeAudio(frame)
  await new Promise((resolve) => setTimeout(resolve, 200))
  media.transport.clearAudio()
  t.ok(await waitFor(() => media.stats().packetsUnsent > 0), 'the worker reported what it dropped')
  await new Promise((resolve) => setTimeout(resolve, 150))
  const beforeResume = got.length
  t.ok(beforeResume >= 5 && beforeResume <= 20, `${beforeResume} of 50 packets left before the barge-in`)
  t.equal(media.stats().packetsOut, beforeResume, 'sent = what left: the dropped ones are not counted')
  t.equal(media.stats().packetsUnsent, 50 - beforeResume)
  const sender = (media as unknown as { session: { sender: { stats: { packetCount: number; octetCount: number } } } }).session.sender.stats
  t.same([sender.packetCount, sender.octetCount], [beforeResume, 160 * beforeResume], "the SR's counts: what left, payload octets only")
  for (const frame of frames.slice(0, 3)) void media.transport.writeAudio(frame)
  t.ok(await waitFor(() => got.length === beforeResume + 3))
  got.forEach((p, i) => t.equal(p.sequenceNumber, (got[0]!.sequenceNumber + i) & 0xffff, `packet ${i}: sequence +1 a packet that left`))
  t.equal(got[beforeResume]!.marker, true, 'the next talkspurt is marked')
  t.ok(got[beforeResume]!.timestamp - got[beforeResume - 1]!.timestamp > 160, 'its timestamp follows the media clock over the pause')
})

t.test('a worker that dies MUST end its calls as dropped, and the next call MUST get a new worker', async (t) => {
  const io = await workerIo(t, 2)
  const { signals } = recordingSignals()
  const media = await openCallMedia({ io, host: HOST, logger, signals })
  const input = new RecordingInput()
  media.transport.attach(input)
  await io.terminateWorker()
  t.ok(await waitFor(() => input.frames.some((f) => f.type === 'caller_left')), 'the call heard the media go')
  t.same(input.frames.at(-1), { type: 'caller_left', how: 'dropped' })
  t.equal(media.transport.closed, true)
  const next = await openCallMedia({ io, host: HOST, logger, signals: recordingSignals().signals })
  const peer = dgram.createSocket('udp4')
  await new Promise<void>((resolve) => peer.bind(0, HOST, resolve))
  t.teardown(() => {
    next.close()
    peer.close()
  })
  let packets = 0
  peer.on('message', () => packets++)
  next.apply(negotiated({ remotePort: peer.address().port, rtcpPort: peer.address().port }))
  for (const frame of toneFrames(3)) void next.transport.writeAudio(frame)
  t.ok(await waitFor(() => packets >= 3), 'the new worker sends')
})

t.test('a full ring toward the worker MUST drop packets, count them as send errors and report the overflow', async (t) => {
  const base = await freePortRange(2)
  const overflows: Array<{ toWorker: number; fromWorker: number }> = []
  // Room for about one packet: writing a second of audio at once overflows it.
  const io = new WorkerMediaIo({ minPort: base, maxPort: base + 1, ringBytes: 256, sparePairs: 0, onOverflow: (counts) => overflows.push(counts) })
  t.teardown(() => io.close())
  const media = await openCallMedia({ io, host: HOST, logger, signals: recordingSignals().signals })
  t.teardown(() => media.close())
  media.apply(negotiated({ remotePort: 9, rtcpPort: 9 }))
  for (const frame of toneFrames(50)) void media.transport.writeAudio(frame)
  t.ok(media.stats().sendErrors >= 45, `${media.stats().sendErrors} packets refused`)
  t.equal(overflows.length, 1, 'reported once, not per packet')
  t.ok(overflows[0]!.toWorker >= 1)
})
