/**
 * The media worker seen from the main thread (the default io, `OZAN_RTP_IO=worker`): calls write
 * packets with the time they should leave, and the worker (worker.ts) sends them then, from its
 * own thread, so a pause of the main thread (a full GC, a burst of work) no longer stops every
 * call's audio on the wire for as long as it lasts: what the playout wrote ahead (its lead) keeps
 * leaving on time. Datagrams come back through a ring, read before each receive tick and every
 * PUMP_MS (the worker rings only when the ring is half full), so the main thread gets no event
 * per packet.
 *
 * A worker that dies takes its sockets: every open endpoint hears `lost` (its call ends as
 * dropped) and the next allocate() starts a new worker.
 */
import { performance } from 'node:perf_hooks'
import { Worker } from 'node:worker_threads'
import { PortsExhausted } from '../errors.js'
import { ByteRing } from './byte-ring.js'
import { Doorbell } from './doorbell.js'
import {
  AddressCache,
  CHANNELS,
  type Channel,
  FLAG_SEQUENCED,
  type FromWorker,
  KIND_CLOSE,
  KIND_DATAGRAM,
  KIND_FLUSH,
  KIND_SEND,
  MAX_ADDRESS_BYTES,
  MAX_DATAGRAM_BYTES,
  POLL_MS,
  RECORD_HEADER_BYTES,
  type ToWorker,
  type WorkerInit,
  writeAddress,
} from './protocol.js'
import { monotonicOffsetMs } from './timebase.js'
import type { EndpointHandlers, MediaEndpoint, MediaIo } from './types.js'

export interface WorkerMediaIoOptions {
  readonly minPort: number
  readonly maxPort: number
  /** Each ring's bytes: 4 MiB holds ~200 ms of every datagram of ~2,000 calls. */
  readonly ringBytes: number
  /** How long the worker may take to start. */
  readonly startupMs: number
  /** Pairs kept bound ahead for the next calls (per local address). */
  readonly sparePairs: number
  /** Told of rings that overflowed (records dropped), at most once a second. */
  readonly onOverflow?: (counts: { toWorker: number; fromWorker: number }) => void
}

export const DEFAULT_WORKER_MEDIA_IO = Object.freeze({ ringBytes: 4 * 1024 * 1024, startupMs: 15_000, sparePairs: 4 })

/**
 * While a pair is open the main thread reads the ring at least this often, for datagrams of calls
 * not ticking yet (before the engine attaches) or not at all (RTCP of a call on hold).
 */
const PUMP_MS = 20

const BOOT = new URL('./worker-boot.mjs', import.meta.url)

/** A pair being bound ahead; `claimed` by an allocate() that found no spare, it is that call's. */
interface Refill {
  claimed: boolean
  endpoint: Promise<WorkerEndpoint | undefined>
}

interface Running {
  readonly worker: Worker
  readonly toWorker: ByteRing
  readonly fromWorker: ByteRing
  readonly workerBell: Doorbell
  readonly mainBell: Doorbell
  readonly ready: Promise<void>
  exited: boolean
}

export class WorkerMediaIo implements MediaIo {
  private readonly options: WorkerMediaIoOptions
  private running: Running | undefined
  private readonly endpoints = new Map<number, WorkerEndpoint>()
  private readonly requests = new Map<number, { resolve: (e: WorkerEndpoint) => void; reject: (err: Error) => void; host: string }>()
  private nextRequest = 1
  private readonly addresses = new AddressCache()
  /** Pairs bound ahead per host (topUp), and binds for them in flight. */
  private readonly spares = new Map<string, WorkerEndpoint[]>()
  private readonly refills = new Map<string, Refill[]>()
  private closed = false
  private pumpTimer: NodeJS.Timeout | undefined
  /** Records the worker's ring refused (it was full), since the last overflow report. */
  refusedToWorker = 0
  private refusalReportedAt = Number.NEGATIVE_INFINITY

  constructor(options: Pick<WorkerMediaIoOptions, 'minPort' | 'maxPort'> & Partial<WorkerMediaIoOptions>) {
    this.options = { ...DEFAULT_WORKER_MEDIA_IO, ...options }
  }

  /** Starts the worker now rather than at the first call (npm start does, so the first call does not wait for it). */
  async start(): Promise<void> {
    await this.run().ready
  }

  async allocate(host: string): Promise<MediaEndpoint> {
    if (this.closed) throw new Error('the media io is closed')
    let endpoint = this.spares.get(host)?.shift()
    // A pair being bound ahead is this call's: binding another could find the range exhausted by it.
    const inFlight = endpoint ? undefined : this.refills.get(host)?.find((r) => !r.claimed)
    if (inFlight) {
      inFlight.claimed = true
      endpoint = await inFlight.endpoint
    }
    endpoint ??= await this.bind(host)
    this.topUp(host)
    return endpoint
  }

  private async bind(host: string): Promise<WorkerEndpoint> {
    const running = this.run()
    await running.ready
    const request = this.nextRequest++
    return new Promise<WorkerEndpoint>((resolve, reject) => {
      this.requests.set(request, { resolve, reject, host })
      running.worker.postMessage({ type: 'bind', request, host } satisfies ToWorker)
    })
  }

  /**
   * Binds pairs ahead for the next calls on `host`, up to `sparePairs`: a call's setup then takes
   * a bound pair at once instead of waiting for a round trip through two busy event loops (at 250
   * calls on one core that wait put the setup's p95 at 60–70 ms). A refill that finds no port
   * left is not an error: the next allocate() binds, and reports, on its own.
   */
  private topUp(host: string): void {
    const refills = this.refills.get(host) ?? []
    this.refills.set(host, refills)
    let have = (this.spares.get(host)?.length ?? 0) + refills.filter((r) => !r.claimed).length
    for (; have < this.options.sparePairs && !this.closed; have++) {
      const refill: Refill = { claimed: false, endpoint: Promise.resolve(undefined) }
      const settle = (endpoint: WorkerEndpoint | undefined): WorkerEndpoint | undefined => {
        refills.splice(refills.indexOf(refill), 1)
        if (!endpoint || refill.claimed) return endpoint
        if (this.closed) endpoint.close()
        else {
          const list = this.spares.get(host) ?? []
          list.push(endpoint)
          this.spares.set(host, list)
        }
        return undefined
      }
      refill.endpoint = this.bind(host).then(settle, () => settle(undefined))
      refills.push(refill)
    }
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    const running = this.running
    if (!running || running.exited) return
    for (const endpoint of [...this.endpoints.values()]) endpoint.close()
    running.worker.postMessage({ type: 'stop' } satisfies ToWorker)
    running.mainBell.stop()
    await running.worker.terminate()
  }

  /** Ends the worker at once, as a crash would (the tests check that its calls then end as dropped and the next call gets a new worker). */
  async terminateWorker(): Promise<void> {
    await this.running?.worker.terminate()
  }

  /** Delivers every datagram that has come in. */
  pump(): void {
    this.running?.fromWorker.read(this.deliver)
  }

  /** Writes one record for the worker; false when its ring is full (the record is dropped, counted). */
  write(kind: number, pair: number, channel: number, flags: number, time: number, address: string, port: number, payload?: Uint8Array): boolean {
    const running = this.running
    if (!running || running.exited) return false
    const ring = running.toWorker
    const payloadLength = payload?.length ?? 0
    const at =
      address.length > MAX_ADDRESS_BYTES || payloadLength > MAX_DATAGRAM_BYTES ? -1 : ring.reserve(RECORD_HEADER_BYTES + address.length + payloadLength)
    if (at < 0) {
      this.refusedToWorker++
      // The worker reports its own drops; a full ring toward it is only seen here.
      const now = performance.now()
      if (now - this.refusalReportedAt >= 1000) {
        this.refusalReportedAt = now
        this.options.onOverflow?.({ toWorker: this.refusedToWorker, fromWorker: 0 })
        this.refusedToWorker = 0
      }
      return false
    }
    const addressLength = writeAddress(ring.bytes, at + RECORD_HEADER_BYTES, address)
    const view = ring.view
    view.setUint8(at, kind)
    view.setUint8(at + 1, channel)
    view.setUint8(at + 2, flags)
    view.setUint8(at + 3, addressLength)
    view.setUint32(at + 4, pair, true)
    view.setFloat64(at + 8, time, true)
    view.setUint16(at + 16, port, true)
    view.setUint16(at + 18, payloadLength, true)
    if (payload) ring.bytes.set(payload, at + RECORD_HEADER_BYTES + addressLength)
    ring.commit()
    // A packet written ahead of its time is read at the worker's next poll; one due sooner rings.
    if (kind !== KIND_SEND || time < performance.now() + POLL_MS + 1) running.workerBell.ring()
    return true
  }

  forget(pair: number): void {
    this.endpoints.delete(pair)
    if (this.endpoints.size > 0 || !this.pumpTimer) return
    clearInterval(this.pumpTimer)
    this.pumpTimer = undefined
  }

  private readonly deliver = (offset: number, length: number): void => {
    const ring = this.running!.fromWorker
    const view = ring.view
    if (view.getUint8(offset) !== KIND_DATAGRAM) return
    const endpoint = this.endpoints.get(view.getUint32(offset + 4, true))
    if (!endpoint) return // closed meanwhile
    const addressLength = view.getUint8(offset + 3)
    const payloadAt = offset + RECORD_HEADER_BYTES + addressLength
    const payloadEnd = payloadAt + view.getUint16(offset + 18, true)
    if (payloadEnd > offset + length) return
    const address = this.addresses.read(ring.bytes, offset + RECORD_HEADER_BYTES, addressLength)
    endpoint.deliver(
      CHANNELS[view.getUint8(offset + 1)] ?? 'rtp',
      ring.bytes.subarray(payloadAt, payloadEnd),
      address,
      view.getUint16(offset + 16, true),
      view.getFloat64(offset + 8, true),
    )
  }

  private run(): Running {
    if (this.running && !this.running.exited) return this.running
    const memory = { toWorker: ByteRing.allocate(this.options.ringBytes), fromWorker: ByteRing.allocate(this.options.ringBytes) }
    const bells = { workerBell: Doorbell.allocate(), mainBell: Doorbell.allocate() }
    const init: WorkerInit = { ...memory, ...bells, mainOffsetMs: monotonicOffsetMs(), minPort: this.options.minPort, maxPort: this.options.maxPort }
    // The boot file loads TypeScript itself; the parent's loader flags do not take in a Node 20 worker.
    const worker = new Worker(BOOT, { workerData: init, execArgv: [] })
    let started: () => void = () => {}
    let failed: (err: Error) => void = () => {}
    const ready = new Promise<void>((resolve, reject) => {
      started = resolve
      failed = reject
    })
    const running: Running = {
      worker,
      toWorker: new ByteRing(memory.toWorker),
      fromWorker: new ByteRing(memory.fromWorker),
      workerBell: new Doorbell(bells.workerBell),
      mainBell: new Doorbell(bells.mainBell),
      ready,
      exited: false,
    }
    const startup = setTimeout(
      () => void worker.terminate().then(() => failed(new Error(`the media worker did not start within ${this.options.startupMs} ms`))),
      this.options.startupMs,
    )
    worker.on('message', (message: FromWorker) => {
      if (message.type === 'ready') {
        clearTimeout(startup)
        started()
      } else this.onMessage(message)
    })
    let error: Error | undefined
    worker.on('error', (err) => (error = err))
    worker.on('exit', (code) => {
      clearTimeout(startup)
      running.exited = true
      running.mainBell.stop()
      const reason = error ? `the media worker failed: ${error.message}` : `the media worker exited (${code})`
      failed(new Error(reason))
      for (const pending of this.requests.values()) pending.reject(new Error(reason))
      this.requests.clear()
      this.spares.clear()
      for (const endpoint of [...this.endpoints.values()]) endpoint.lose(reason)
      this.endpoints.clear()
      clearInterval(this.pumpTimer)
      this.pumpTimer = undefined
    })
    running.mainBell.listen(() => this.pump())
    this.running = running
    // A failed start surfaces at the allocate() that awaits it, not as an unhandled rejection here.
    ready.catch(() => {})
    return running
  }

  private onMessage(message: FromWorker): void {
    switch (message.type) {
      case 'bound': {
        const pending = this.requests.get(message.request)
        if (!pending) return
        this.requests.delete(message.request)
        const endpoint = new WorkerEndpoint(this, message.pair, pending.host, message.rtpPort, message.rtcpPort)
        this.endpoints.set(message.pair, endpoint)
        this.pumpTimer ??= setInterval(() => this.pump(), PUMP_MS).unref()
        pending.resolve(endpoint)
        return
      }
      case 'bind_failed': {
        const pending = this.requests.get(message.request)
        this.requests.delete(message.request)
        if (message.code === 'ports_exhausted') pending?.reject(new PortsExhausted(this.options.minPort, this.options.maxPort))
        else pending?.reject(Object.assign(new Error(message.message), { code: message.code }))
        return
      }
      case 'unsent':
        return this.endpoints.get(message.pair)?.handlers?.unsent(message.packets, message.octets)
      case 'send_error':
        return this.endpoints.get(message.pair)?.handlers?.sendError(message.message)
      case 'socket_error':
        return this.endpoints.get(message.pair)?.handlers?.socketError(message.channel, message.message)
      case 'overflow': {
        const counts = { toWorker: message.toWorker + this.refusedToWorker, fromWorker: message.fromWorker }
        this.refusedToWorker = 0
        return this.options.onOverflow?.(counts)
      }
    }
  }
}

class WorkerEndpoint implements MediaEndpoint {
  handlers: EndpointHandlers | undefined
  private closed = false

  constructor(
    private readonly io: WorkerMediaIo,
    private readonly pair: number,
    readonly host: string,
    readonly rtpPort: number,
    readonly rtcpPort: number,
  ) {}

  listen(handlers: EndpointHandlers): void {
    this.handlers = handlers
  }

  send(channel: Channel, bytes: Uint8Array, address: string, port: number, sendAtMs: number, sequenced: boolean): void {
    if (this.closed) return
    if (!this.io.write(KIND_SEND, this.pair, channel === 'rtp' ? 0 : 1, sequenced ? FLAG_SEQUENCED : 0, sendAtMs, address, port, bytes))
      this.handlers?.sendError('the media worker is not taking packets (its ring is full, or it stopped)')
  }

  dropUnsent(): void {
    if (!this.closed) this.io.write(KIND_FLUSH, this.pair, 0, 0, 0, '', 0)
  }

  pump(): void {
    this.io.pump()
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    this.io.write(KIND_CLOSE, this.pair, 0, 0, 0, '', 0)
    this.io.forget(this.pair)
  }

  deliver(channel: Channel, bytes: Uint8Array, address: string, port: number, atMs: number): void {
    if (this.closed) return
    // RTCP is parsed with a TextDecoder (its CNAME), which refuses a view of shared memory: a copy
    // (one every few seconds). RTP is read in place.
    this.handlers?.datagram(channel, channel === 'rtcp' || isRtcp(bytes) ? bytes.slice() : bytes, address, port, atMs)
  }

  lose(reason: string): void {
    if (this.closed) return
    this.closed = true
    this.handlers?.lost(reason)
  }
}

/** RFC 5761 §4: on a muxed port, RTCP packet types are 192–223 in the second octet. */
function isRtcp(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[1]! >= 192 && bytes[1]! <= 223
}
