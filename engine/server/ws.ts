/**
 * `ws` on node:http implementation of EngineSocketServer, for Node builds uWS has no binary for.
 * It mirrors the uWS semantics the rest of the engine relies on: send() reports backpressure and
 * drops over maxBackpressure, drain fires as buffered bytes reach the kernel, refusals complete the
 * upgrade and then close with the code, and oversized messages close with 1009.
 */
import http from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { WebSocketServer, WebSocket, type RawData } from 'ws'
import {
  INVALID_UTF8,
  TOO_LARGE,
  hardPayloadCap,
  type Authorization,
  type Conn,
  type ConnectionHandler,
  type EngineSocketServer,
  type ResolvedSocketOptions,
  type SendResult,
} from './socket.js'

const toArrayBuffer = (b: Buffer): ArrayBuffer => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer
const rawToBuffer = (d: RawData): Buffer => (Array.isArray(d) ? Buffer.concat(d) : Buffer.isBuffer(d) ? d : Buffer.from(d))

class WsConn implements Conn {
  private readonly drainCbs: (() => void)[] = []
  private readonly closeCbs: ((code: number, reason: string) => void)[] = []
  private messageCb: (data: ArrayBuffer | string, isBinary: boolean) => void = () => {}
  /** Set when a send left bytes buffered; each later flush fires drain until the buffer is empty. */
  private backlogged = false
  private readonly afterWrite = (): void => {
    if (!this.backlogged) return
    if (this.ws.bufferedAmount === 0) this.backlogged = false
    for (const cb of this.drainCbs) cb()
  }
  closed = false

  constructor(
    private readonly ws: WebSocket,
    readonly remoteAddress: string,
    private readonly options: ResolvedSocketOptions,
  ) {
    ws.on('message', (data, isBinary) => {
      const buf = rawToBuffer(data)
      if (buf.byteLength > options.maxPayloadBytes) return this.close(TOO_LARGE.code, TOO_LARGE.reason)
      this.messageCb(isBinary ? toArrayBuffer(buf) : buf.toString('utf8'), isBinary)
    })
    ws.on('close', (code, reason) => this.finish(code, reason.toString('utf8')))
    // ws has already sent the 1007 close frame; its own 'close' would say 1006 (the peer's frame
    // never came), so the session is told the cause here, first.
    ws.on('error', (err: Error & { code?: string }) => {
      if (err.code === 'WS_ERR_INVALID_UTF8') this.finish(INVALID_UTF8.code, INVALID_UTF8.reason)
    })
  }

  /** Close callbacks run exactly once: on our close() (as uWS end() does) or on the peer's. */
  private finish(code: number, reason: string): void {
    if (this.closed) return
    this.closed = true
    for (const cb of this.closeCbs) cb(code, reason)
  }

  send(data: Uint8Array | string): SendResult {
    if (this.closed || this.ws.readyState !== WebSocket.OPEN) return 'dropped'
    if (this.ws.bufferedAmount > this.options.maxBackpressureBytes) return 'dropped'
    this.ws.send(data, { binary: typeof data !== 'string' }, this.afterWrite)
    if (this.ws.bufferedAmount > 0) {
      this.backlogged = true
      return 'backpressure'
    }
    return 'ok'
  }
  bufferedAmount(): number {
    return this.closed ? 0 : this.ws.bufferedAmount
  }
  onDrain(cb: () => void): void {
    this.drainCbs.push(cb)
  }
  onMessage(cb: (data: ArrayBuffer | string, isBinary: boolean) => void): void {
    this.messageCb = cb
  }
  onClose(cb: (code: number, reason: string) => void): void {
    this.closeCbs.push(cb)
  }
  close(code: number, reason: string): void {
    if (this.closed || this.ws.readyState >= WebSocket.CLOSING) return
    this.ws.close(code, reason)
    // Like uWS end(): the session sees its close now, not after the peer's close frame.
    this.finish(code, reason)
  }
}

export class WsServer implements EngineSocketServer {
  readonly kind = 'ws' as const
  private readonly http: http.Server
  private readonly wss: WebSocketServer
  /** Open sockets and whether each was heard from since the last heartbeat. */
  private readonly sockets = new Map<WebSocket, { alive: boolean }>()
  private heartbeat: NodeJS.Timeout | undefined

  constructor(
    private readonly handler: ConnectionHandler<unknown>,
    private readonly options: ResolvedSocketOptions,
    readonly fallbackReason?: string,
  ) {
    this.wss = new WebSocketServer({ noServer: true, maxPayload: hardPayloadCap(options), perMessageDeflate: false, clientTracking: false })
    this.http = http.createServer((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/plain', connection: 'close' }).end('not found')
    })
    this.http.on('upgrade', (req, socket, head) => this.upgrade(req, socket as Socket, head))
  }

  private upgrade(req: http.IncomingMessage, socket: Socket, head: Buffer): void {
    const url = req.url ?? '/'
    const q = url.indexOf('?')
    const pathname = q < 0 ? url : url.slice(0, q)
    if (pathname !== this.options.path) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n')
      return
    }
    const headers: Record<string, string> = {}
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v
    const ip = socket.remoteAddress ?? ''
    let aborted = false
    socket.once('close', () => {
      aborted = true
    })
    const finish = (auth: Authorization<unknown>): void => {
      if (aborted || socket.destroyed) {
        if (auth.ok) this.handler.abandoned?.(auth.context)
        return
      }
      this.wss.handleUpgrade(req, socket, head, (ws) => this.open(ws, auth, ip))
    }
    this.handler
      .authorize({ url, query: new URLSearchParams(q < 0 ? '' : url.slice(q + 1)), headers, ip })
      .then(finish, () => finish({ ok: false, closeCode: 1011, reason: 'internal_error' }))
  }

  private open(ws: WebSocket, auth: Authorization<unknown>, ip: string): void {
    const state = { alive: true }
    this.sockets.set(ws, state)
    ws.on('close', () => this.sockets.delete(ws))
    // A client that breaks the protocol (oversized or invalid UTF-8) is closed by ws itself (1009/1007).
    ws.on('error', () => {})
    if (!auth.ok) {
      ws.close(auth.closeCode, auth.reason)
      return
    }
    ws.on('pong', () => (state.alive = true))
    ws.on('message', () => (state.alive = true))
    this.handler.open(new WsConn(ws, ip, this.options), auth.context)
  }

  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      this.http.once('error', reject)
      this.http.listen(port, host, () => {
        this.http.off('error', reject)
        if (this.options.idleTimeoutS > 0) this.startHeartbeat()
        resolve((this.http.address() as AddressInfo).port)
      })
    })
  }

  /** uWS's idleTimeout + sendPingsAutomatically: ping every half period, drop the silent. */
  private startHeartbeat(): void {
    this.heartbeat = setInterval(
      () => {
        for (const [ws, state] of this.sockets) {
          if (!state.alive) ws.terminate()
          else ws.ping()
          state.alive = false
        }
      },
      (this.options.idleTimeoutS * 1000) / 2,
    )
    this.heartbeat.unref()
  }

  async close(): Promise<void> {
    clearInterval(this.heartbeat)
    for (const ws of this.sockets.keys()) ws.close(1001, 'server_shutdown')
    await new Promise<void>((resolve) => {
      this.http.close(() => resolve())
      // Sockets whose peers never answer the close frame must not hold shutdown open.
      setTimeout(() => {
        for (const ws of this.sockets.keys()) ws.terminate()
        this.http.closeAllConnections()
      }, 1000).unref()
    })
  }
}
