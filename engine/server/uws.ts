/**
 * uWebSockets.js implementation of EngineSocketServer. uWS rules that shape this file:
 * - an HttpRequest is valid only synchronously inside the upgrade handler: read everything first;
 * - an async upgrade must register res.onAborted, and completes *outside* res.cork: in this uWS
 *   build, cork() checks after its callback whether the response was upgraded by comparing
 *   pointers, and when adopting the socket as a WebSocket reuses its memory in place, it reads
 *   the new socket's bytes as HTTP state and may close the WebSocket it just opened (uWebSockets
 *   issue #1928, fixed upstream in PR #1929). We saw 1–2 of 100 web calls die with 1006 within
 *   ms of `hello`. uWS.js prints a one-time warning about the uncorked write;
 * - message ArrayBuffers are neutered after the callback returns: copy before handing them on;
 * - touching a WebSocket after its close handler ran crashes the process: every call is guarded.
 */
import type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket, us_socket_context_t, WebSocket } from 'uWebSockets.js'
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

type Uws = typeof import('uWebSockets.js')
interface UserData {
  auth: Authorization<unknown>
  conn?: UwsConn
}

const decoder = new TextDecoder()
/** The message uWS gives its close handler when it dropped a socket for invalid UTF-8 text (uWebSockets ERR_INVALID_TEXT). */
const UWS_INVALID_TEXT = 'Received invalid UTF-8'

class UwsConn implements Conn {
  closed = false
  private readonly drainCbs: (() => void)[] = []
  private messageCb: (data: ArrayBuffer | string, isBinary: boolean) => void = () => {}
  private readonly closeCbs: ((code: number, reason: string) => void)[] = []

  constructor(
    private readonly ws: WebSocket<UserData>,
    readonly remoteAddress: string,
    private readonly maxPayloadBytes: number,
  ) {}

  send(data: Uint8Array | string): SendResult {
    if (this.closed) return 'dropped'
    let r = 0
    this.ws.cork(() => {
      r = typeof data === 'string' ? this.ws.send(data, false) : this.ws.send(data, true)
    })
    return r === 1 ? 'ok' : r === 0 ? 'backpressure' : 'dropped'
  }
  bufferedAmount(): number {
    return this.closed ? 0 : this.ws.getBufferedAmount()
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
    if (this.closed) return
    // end() runs the close handler synchronously, which marks us closed.
    this.ws.end(code, reason)
  }

  // Called by the server's behaviour handlers.
  message(data: ArrayBuffer, isBinary: boolean): void {
    if (data.byteLength > this.maxPayloadBytes) return this.close(TOO_LARGE.code, TOO_LARGE.reason)
    // uWS's buffer is valid only during this call: text is decoded (a copy) and binary parsed
    // (parseBinary copies the samples) before it returns, so no copy of the message is made here.
    this.messageCb(isBinary ? data : decoder.decode(data), isBinary)
  }
  drained(): void {
    for (const cb of this.drainCbs) cb()
  }
  closedBy(code: number, reason: string): void {
    this.closed = true
    for (const cb of this.closeCbs) cb(code, reason)
  }
}

export class UwsServer implements EngineSocketServer {
  readonly kind = 'uws' as const
  readonly fallbackReason = undefined
  private readonly app: TemplatedApp
  private listenSocket: us_listen_socket | null = null
  private readonly sockets = new Set<WebSocket<UserData>>()

  constructor(
    private readonly uws: Uws,
    private readonly handler: ConnectionHandler<unknown>,
    private readonly options: ResolvedSocketOptions,
  ) {
    this.app = uws.App()
    this.app.ws<UserData>(options.path, {
      compression: uws.DISABLED,
      maxPayloadLength: hardPayloadCap(options),
      maxBackpressure: options.maxBackpressureBytes,
      idleTimeout: options.idleTimeoutS,
      sendPingsAutomatically: options.idleTimeoutS > 0,
      upgrade: (res, req, context) => this.upgrade(res, req, context),
      open: (ws) => this.open(ws),
      message: (ws, message, isBinary) => ws.getUserData().conn?.message(message, isBinary),
      drain: (ws) => ws.getUserData().conn?.drained(),
      close: (ws, code, message) => {
        this.sockets.delete(ws)
        const reason = decoder.decode(message)
        // uWS's own force-close on invalid UTF-8 text (see INVALID_UTF8 for why the wire says 1006).
        const invalidText = code === 1006 && reason === UWS_INVALID_TEXT
        ws.getUserData().conn?.closedBy(invalidText ? INVALID_UTF8.code : code, invalidText ? INVALID_UTF8.reason : reason)
      },
    })
    this.app.any('/*', (res) => {
      // Close the connection: a keep-alive HTTP socket would hold the engine's shutdown for 10 s.
      res.writeStatus('404 Not Found').end('not found', true)
    })
  }

  private upgrade(res: HttpResponse, req: HttpRequest, context: us_socket_context_t): void {
    const headers: Record<string, string> = {}
    req.forEach((k, v) => {
      headers[k] = v
    })
    const query = req.getQuery() ?? ''
    const url = req.getUrl() + (query ? `?${query}` : '')
    const key = headers['sec-websocket-key'] ?? ''
    const protocol = headers['sec-websocket-protocol'] ?? ''
    const extensions = headers['sec-websocket-extensions'] ?? ''
    const ip = decoder.decode(res.getRemoteAddressAsText())
    let aborted = false
    res.onAborted(() => {
      aborted = true
    })
    const finish = (auth: Authorization<unknown>): void => {
      if (aborted) {
        if (auth.ok) this.handler.abandoned?.(auth.context)
        return
      }
      // Not inside res.cork (see the top of this file): the warning it costs is printed once.
      res.upgrade<UserData>({ auth }, key, protocol, extensions, context)
    }
    this.handler
      .authorize({ url, query: new URLSearchParams(query), headers, ip })
      .then(finish, () => finish({ ok: false, closeCode: 1011, reason: 'internal_error' }))
  }

  private open(ws: WebSocket<UserData>): void {
    const data = ws.getUserData()
    this.sockets.add(ws)
    if (!data.auth.ok) {
      ws.end(data.auth.closeCode, data.auth.reason)
      return
    }
    const conn = new UwsConn(ws, decoder.decode(ws.getRemoteAddressAsText()), this.options.maxPayloadBytes)
    data.conn = conn
    this.handler.open(conn, data.auth.context)
  }

  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      this.app.listen(host, port, (socket) => {
        if (!socket) return reject(new Error(`uWebSockets.js could not listen on ${host}:${port}`))
        this.listenSocket = socket
        resolve(this.uws.us_socket_local_port(socket as never))
      })
    })
  }

  async close(): Promise<void> {
    for (const ws of [...this.sockets]) ws.end(1001, 'server_shutdown')
    if (this.listenSocket) this.uws.us_listen_socket_close(this.listenSocket)
    this.listenSocket = null
  }
}
