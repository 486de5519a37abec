import net from 'node:net'
import { DEFAULT_LIMITS, type SipLimits, type SipMessage, SipStreamParser } from '../message/index.js'
import type { Peer } from '../transaction/index.js'
import { admitMessage, type ListenerStats, type MessageHandler, newStats } from './inbound.js'
import { SourceLimiter, type SourceLimits } from './source-limiter.js'

export interface TcpLimits {
  /** Open connections in all (accepted and dialled). */
  maxConnections: number
  maxConnectionsPerSource: number
  /** A connection with no bytes either way for this long is closed (a silent peer holds no slot). */
  idleTimeoutMs: number
  /** Bytes queued for a peer that does not read; past it the connection is cut. */
  maxQueuedBytes: number
  connectTimeoutMs: number
}

export const DEFAULT_TCP_LIMITS: TcpLimits = {
  maxConnections: 4096,
  maxConnectionsPerSource: 32,
  // Longer than a registration refresh or a session-timer re-INVITE would leave a trunk quiet.
  idleTimeoutMs: 300_000,
  maxQueuedBytes: 1 << 20,
  connectTimeoutMs: 5000,
}

export interface TcpListenerOptions {
  host: string
  port: number
  onMessage: MessageHandler
  limits?: Partial<SipLimits>
  sourceLimits?: Partial<SourceLimits>
  tcpLimits?: Partial<TcpLimits>
  now?: () => number
}

interface Connection {
  id: string
  socket: net.Socket
  parser: SipStreamParser
  peer: Peer
}

/**
 * SIP over TCP (§18.3): messages framed by Content-Length out of each connection's stream.
 * Responses go back on the connection a request came on (`Peer.connectionId`, §18.2.2); a request to
 * a peer reuses an open connection to its address and port, else dials one. Every connection is
 * bounded: count (in all and per source), idle time, bytes held for a message (the parser's limit)
 * and bytes queued for a peer that stops reading.
 */
export class TcpSipListener {
  readonly stats: ListenerStats = newStats()
  readonly limiter: SourceLimiter
  readonly #server: net.Server
  readonly #options: TcpListenerOptions
  readonly #limits: SipLimits
  readonly #tcp: TcpLimits
  readonly #connections = new Map<string, Connection>()
  #nextId = 1
  #port = 0

  private constructor(options: TcpListenerOptions) {
    this.#options = options
    this.#limits = { ...DEFAULT_LIMITS, ...options.limits }
    this.#tcp = { ...DEFAULT_TCP_LIMITS, ...options.tcpLimits }
    this.limiter = new SourceLimiter(options.sourceLimits)
    this.#server = net.createServer((socket) => this.#accept(socket))
    this.#server.on('error', () => {})
  }

  static async listen(options: TcpListenerOptions): Promise<TcpSipListener> {
    const listener = new TcpSipListener(options)
    await new Promise<void>((resolve, reject) => {
      listener.#server.once('error', reject)
      listener.#server.listen(options.port, options.host, () => {
        listener.#server.off('error', reject)
        resolve()
      })
    })
    listener.#port = (listener.#server.address() as net.AddressInfo).port
    return listener
  }

  get port(): number {
    return this.#port
  }

  get connections(): number {
    return this.#connections.size
  }

  async send(message: SipMessage, target: Peer): Promise<void> {
    const usable = (c: Connection | undefined) => c !== undefined && c.socket.writable && !c.socket.destroyed
    let connection = target.connectionId === undefined ? undefined : this.#connections.get(target.connectionId)
    if (!usable(connection)) connection = [...this.#connections.values()].find((c) => c.peer.host === target.host && c.peer.port === target.port && usable(c))
    // A connection the peer closed (its FIN may not have reached us as 'close' yet) is not reused:
    // a write into it would be lost without an error and the request would wait out its timeout.
    connection ??= await this.#dial(target)
    const { socket } = connection
    if (socket.writableLength > this.#tcp.maxQueuedBytes) {
      socket.destroy()
      throw new Error('the peer is not reading: connection closed')
    }
    await new Promise<void>((resolve, reject) => socket.write(message.serialize(), (err) => (err ? reject(err) : resolve())))
  }

  async close(): Promise<void> {
    for (const c of this.#connections.values()) c.socket.destroy()
    await new Promise<void>((resolve) => this.#server.close(() => resolve()))
  }

  #accept(socket: net.Socket): void {
    const host = socket.remoteAddress
    if (!host || this.#connections.size >= this.#tcp.maxConnections || this.#fromSource(host) >= this.#tcp.maxConnectionsPerSource) {
      socket.destroy()
      return
    }
    this.#adopt(socket, { transport: 'TCP', host, port: socket.remotePort ?? 0 })
  }

  #fromSource(host: string): number {
    let n = 0
    for (const c of this.#connections.values()) if (c.peer.host === host) n++
    return n
  }

  #dial(target: Peer): Promise<Connection> {
    if (net.isIP(target.host) === 0) return Promise.reject(new Error(`TCP connect needs an IP address, got ${target.host}`))
    if (this.#connections.size >= this.#tcp.maxConnections) return Promise.reject(new Error('too many SIP connections'))
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: target.host, port: target.port })
      const timer = setTimeout(() => socket.destroy(new Error('connect timeout')), this.#tcp.connectTimeoutMs)
      socket.once('connect', () => {
        clearTimeout(timer)
        socket.off('error', reject)
        resolve(this.#adopt(socket, { transport: 'TCP', host: target.host, port: target.port }))
      })
      socket.once('error', (err) => {
        clearTimeout(timer)
        reject(err)
      })
    })
  }

  #adopt(socket: net.Socket, at: Omit<Peer, 'connectionId'>): Connection {
    const id = `tcp-${this.#nextId++}`
    const connection: Connection = { id, socket, parser: new SipStreamParser({ limits: this.#limits }), peer: { ...at, connectionId: id } }
    this.#connections.set(id, connection)
    socket.setNoDelay(true)
    socket.setTimeout(this.#tcp.idleTimeoutMs, () => socket.destroy())
    socket.on('data', (chunk) => this.#receive(connection, chunk))
    // The peer's FIN: we will send nothing more on it either (its requests were answered or are lost).
    socket.on('end', () => socket.end())
    socket.on('error', () => {})
    socket.on('close', () => this.#connections.delete(id))
    return connection
  }

  #receive(c: Connection, chunk: Buffer): void {
    for (const event of c.parser.push(chunk)) {
      if (event.type === 'keepalive') {
        c.socket.write('\r\n') // RFC 5626 §4.4.1: a CRLFCRLF ping gets a CRLF pong.
        continue
      }
      const parsed = event.type === 'message' ? ({ ok: true, message: event.message } as const) : ({ ok: false, error: event.error } as const)
      admitMessage({
        parsed,
        source: c.peer,
        limiter: this.limiter,
        nowMs: this.#options.now ? this.#options.now() : performance.now(),
        stats: this.stats,
        reply: (response) => c.socket.write(response.serialize()),
        deliver: this.#options.onMessage,
      })
      if (event.type === 'error' && event.fatal) {
        c.socket.end()
        return
      }
    }
  }
}
