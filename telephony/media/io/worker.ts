/**
 * The media worker (worker-io.ts starts it): every call's RTP and RTCP sockets live here, so a
 * packet leaves at its time even while the main thread's JavaScript is busy or its heap is being
 * collected, and the main thread gets no event per datagram.
 *
 * - Out: the main thread writes each packet with the time it should leave into the `toWorker`
 *   ring; they wait in a SendSchedule and leave when due. RTP data packets are numbered here, as
 *   they leave (RFC 3550 §5.1: +1 a packet sent), so audio dropped by a barge-in before it left
 *   leaves no hole in the sequence.
 * - In: each datagram goes into the `fromWorker` ring with the time it came, and the main
 *   thread's doorbell rings.
 * The worker reads its ring when rung (a packet due soon) and at least every POLL_MS while a pair
 * is open (packets written ahead of their time do not ring).
 */
import type dgram from 'node:dgram'
import { performance } from 'node:perf_hooks'
import { parentPort, workerData } from 'node:worker_threads'
import { type RtpEndpoint, RtpPortPool } from '../port-pool.js'
import { ByteRing } from './byte-ring.js'
import { Doorbell } from './doorbell.js'
import {
  AddressCache,
  CHANNELS,
  FLAG_SEQUENCED,
  type FromWorker,
  KIND_CLOSE,
  KIND_DATAGRAM,
  KIND_FLUSH,
  KIND_SEND,
  MAX_DATAGRAM_BYTES,
  POLL_MS,
  RECORD_HEADER_BYTES,
  type ToWorker,
  type WorkerInit,
  writeAddress,
} from './protocol.js'
import { SendSchedule, SLOT_BYTES } from './send-schedule.js'
import { monotonicOffsetMs } from './timebase.js'

/** Packets waiting or in flight at once: 200 ms of audio for ~800 calls. */
const SLOTS = 8192
/**
 * A packet leaves when the timer finds it due within this: Node counts a timer from its loop's
 * cached time, so one fires up to a millisecond before its delay is up, and waiting out the rest
 * would cost a second wake-up and make the packet late instead.
 */
const EARLY_MS = 1

interface Pair {
  readonly endpoint: RtpEndpoint
  readonly sockets: readonly [dgram.Socket, dgram.Socket]
  /** The next RTP sequence number out; taken from the first sequenced packet. */
  nextSeq: number
  seqStarted: boolean
}

const init = workerData as WorkerInit
const port = parentPort!
const post = (message: FromWorker) => port.postMessage(message)
const toMainTime = monotonicOffsetMs() - init.mainOffsetMs
const now = () => performance.now() - toMainTime

const outbox = new ByteRing(init.toWorker)
const inbox = new ByteRing(init.fromWorker)
const mainBell = new Doorbell(init.mainBell)
const workerBell = new Doorbell(init.workerBell)
const pool = new RtpPortPool({ minPort: init.minPort, maxPort: init.maxPort })
const schedule = new SendSchedule(SLOTS)
const pairs = new Map<number, Pair>()
const addresses = new AddressCache()
let nextPair = 1
let timer: NodeJS.Timeout | undefined
let timerDue = Number.POSITIVE_INFINITY
const overflow = { toWorker: 0, fromWorker: 0, reported: 0 }

/** One send callback per slot, made once: frees the slot, reports a failure. */
const sent = Array.from({ length: SLOTS }, (_, slot) => (err: Error | null) => {
  const pair = schedule.pair[slot]!
  schedule.release(slot)
  if (err) post({ type: 'send_error', pair, message: err.message })
})

port.on('message', (message: ToWorker) => {
  if (message.type === 'bind') void bind(message.request, message.host)
  else if (message.type === 'stop') stop()
})
workerBell.listen(service)
post({ type: 'ready' })

async function bind(request: number, host: string): Promise<void> {
  // A pair closed just before this request was written to the ring first: free it before binding.
  service()
  try {
    const endpoint = await pool.allocate(host)
    const id = nextPair++
    const sockets = [endpoint.rtp, endpoint.rtcp] as const
    pairs.set(id, { endpoint, sockets, nextSeq: 0, seqStarted: false })
    sockets.forEach((socket, channel) => {
      socket.on('message', (msg, rinfo) => received(id, channel, msg, rinfo.address, rinfo.port))
      socket.on('error', (err) => post({ type: 'socket_error', pair: id, channel: CHANNELS[channel]!, message: err.message }))
    })
    post({ type: 'bound', request, pair: id, rtpPort: endpoint.rtpPort, rtcpPort: endpoint.rtcpPort })
    arm(now() + POLL_MS)
  } catch (err) {
    const e = err as NodeJS.ErrnoException
    post({ type: 'bind_failed', request, code: e.code ?? e.name ?? 'Error', message: e.message })
  }
}

function received(pair: number, channel: number, msg: Buffer, address: string, peerPort: number): void {
  if (msg.length > MAX_DATAGRAM_BYTES) return // no RTP or RTCP of ours is this long: the receiver would drop it too
  const at = inbox.reserve(RECORD_HEADER_BYTES + address.length + msg.length)
  if (at < 0) {
    overflow.fromWorker++
    return
  }
  const view = inbox.view
  const addressLength = writeAddress(inbox.bytes, at + RECORD_HEADER_BYTES, address)
  view.setUint8(at, KIND_DATAGRAM)
  view.setUint8(at + 1, channel)
  view.setUint8(at + 2, 0)
  view.setUint8(at + 3, Math.max(0, addressLength))
  view.setUint32(at + 4, pair, true)
  view.setFloat64(at + 8, now(), true)
  view.setUint16(at + 16, peerPort, true)
  view.setUint16(at + 18, msg.length, true)
  inbox.bytes.set(msg, at + RECORD_HEADER_BYTES + Math.max(0, addressLength))
  inbox.commit()
  // No ring per datagram: the main thread reads the ring before each call's receive tick (and on
  // a slow timer between), which is when the audio is wanted. Waking it for every packet cost more
  // than the 'message' events the worker took over. Only a ring more than half full rings.
  if (inbox.usedBytes > inbox.capacity >> 1) mainBell.ring()
}

/** Reads the ring, sends what is due, and sets the next wake-up. */
function service(): void {
  if (timer) clearTimeout(timer)
  timer = undefined
  timerDue = Number.POSITIVE_INFINITY
  outbox.read(take)
  const t = now()
  schedule.takeDue(t + EARLY_MS, send)
  reportOverflow(t)
  arm(Math.min(schedule.nextDue(), pairs.size > 0 ? t + POLL_MS : Number.POSITIVE_INFINITY))
}

function take(offset: number, length: number): void {
  const view = outbox.view
  const kind = view.getUint8(offset)
  const pair = view.getUint32(offset + 4, true)
  if (kind === KIND_FLUSH) {
    const { packets, octets } = schedule.drop(pair, 'sequenced')
    // The sender counts payload octets (RFC 3550 §6.4.1) and writes RTP's fixed 12-octet header
    // with no CSRC or extension (rtp-sender.ts).
    if (packets > 0) post({ type: 'unsent', pair, packets, octets: octets - 12 * packets })
  } else if (kind === KIND_CLOSE) close(pair)
  else if (kind === KIND_SEND && pairs.has(pair)) {
    const addressLength = view.getUint8(offset + 3)
    const payloadAt = offset + RECORD_HEADER_BYTES + addressLength
    const payloadLength = view.getUint16(offset + 18, true)
    if (payloadAt + payloadLength > offset + length) return // malformed: not from our writer
    const slot = schedule.add(
      pair,
      view.getUint8(offset + 1),
      (view.getUint8(offset + 2) & FLAG_SEQUENCED) !== 0,
      view.getFloat64(offset + 8, true),
      addresses.read(outbox.bytes, offset + RECORD_HEADER_BYTES, addressLength),
      view.getUint16(offset + 16, true),
      outbox.bytes.subarray(payloadAt, payloadAt + payloadLength),
    )
    if (slot < 0) overflow.toWorker++
  }
}

function send(slot: number): void {
  const pair = pairs.get(schedule.pair[slot]!)
  if (!pair) return schedule.release(slot)
  const start = slot * SLOT_BYTES
  if (schedule.sequenced[slot] === 1) {
    if (!pair.seqStarted) {
      pair.nextSeq = schedule.data.readUInt16BE(start + 2)
      pair.seqStarted = true
    }
    schedule.data.writeUInt16BE(pair.nextSeq, start + 2)
    pair.nextSeq = (pair.nextSeq + 1) & 0xffff
  }
  try {
    pair.sockets[schedule.channel[slot]!]!.send(schedule.data, start, schedule.length[slot]!, schedule.port[slot]!, schedule.address[slot]!, sent[slot])
  } catch (err) {
    // The socket closed under us (ERR_SOCKET_DGRAM_NOT_RUNNING): the call is over.
    schedule.release(slot)
    post({ type: 'send_error', pair: schedule.pair[slot]!, message: (err as Error).message })
  }
}

/** What was due goes now (an RTCP BYE just written), the rest is dropped, and the ports go back. */
function close(id: number): void {
  const pair = pairs.get(id)
  if (!pair) return
  schedule.takeDue(now() + EARLY_MS, send)
  schedule.drop(id, 'all')
  pairs.delete(id)
  pool.release(pair.endpoint)
}

function arm(due: number): void {
  if (due >= timerDue) return
  if (timer) clearTimeout(timer)
  timerDue = due
  timer = due === Number.POSITIVE_INFINITY ? undefined : setTimeout(service, Math.max(0, Math.ceil(due - now())))
}

function reportOverflow(t: number): void {
  if (overflow.toWorker + overflow.fromWorker === 0 || t - overflow.reported < 1000) return
  post({ type: 'overflow', toWorker: overflow.toWorker, fromWorker: overflow.fromWorker })
  overflow.toWorker = 0
  overflow.fromWorker = 0
  overflow.reported = t
}

function stop(): void {
  workerBell.stop()
  if (timer) clearTimeout(timer)
  for (const id of [...pairs.keys()]) close(id)
  port.close()
}
