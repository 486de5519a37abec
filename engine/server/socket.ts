/**
 * The engine's WebSocket layer behind one small interface, so the session code never knows which
 * library carries it. uWebSockets.js is preferred (lower latency and memory per socket); its npm
 * build ships binaries for Node 16/18/20 only, so where it cannot load `ws` on node:http takes over.
 * Both pass the same conformance suite (test/engine/server/socket-conformance.test.ts).
 */
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { CloseCode, CloseReason } from './protocol.js'

export type SocketKind = 'uws' | 'ws'

/** uWS send semantics: sent, sent but buffered (wait for drain), or dropped (over maxBackpressure). */
export type SendResult = 'ok' | 'backpressure' | 'dropped'

export interface Conn {
  /** Binary for a Uint8Array, text for a string. After close: 'dropped', never a throw. */
  send(data: Uint8Array | string): SendResult
  /** Bytes written but not yet accepted by the kernel. */
  bufferedAmount(): number
  /** Called whenever buffered bytes drain; check bufferedAmount() to decide whether to write more. */
  onDrain(cb: () => void): void
  /**
   * Binary messages are copies owned by the callee; text arrives decoded (UTF-8 validated by the
   * transport: invalid text closes the socket, reported to onClose as INVALID_UTF8).
   */
  onMessage(cb: (data: ArrayBuffer | string, isBinary: boolean) => void): void
  onClose(cb: (code: number, reason: string) => void): void
  /** Sends a close frame with the code and reason; idempotent. */
  close(code: number, reason: string): void
  readonly closed: boolean
  readonly remoteAddress: string
}

export interface UpgradeRequest {
  url: string
  query: URLSearchParams
  /** Lower-cased names. */
  headers: Record<string, string>
  ip: string
}

export type Authorization<C> = { ok: true; context: C } | { ok: false; closeCode: number; reason: string }

export interface ConnectionHandler<C = unknown> {
  /**
   * Decides on an upgrade. A refusal still completes the upgrade and then closes with the code and
   * reason: a browser cannot read the HTTP status of a failed upgrade, but it can read a close code.
   */
  authorize(req: UpgradeRequest): Promise<Authorization<C>>
  open(conn: Conn, context: C): void
  /** An authorized upgrade whose client vanished before the socket opened: release what authorize took. */
  abandoned?(context: C): void
}

export interface SocketServerOptions {
  prefer?: SocketKind
  /** Upgrade path, e.g. /v1/calls/ws; anything else gets 404. */
  path: string
  /**
   * Larger messages close the socket with 1009 `message_too_large` in both implementations. The
   * transports' own hard cap is twice this: above it uWS drops the connection without a close frame
   * (the client sees 1006) while ws still sends 1009.
   */
  maxPayloadBytes: number
  /** Per socket: sends are dropped while more than this is buffered (default 1 MiB). */
  maxBackpressureBytes?: number
  /** A socket silent this long (pings answered count) is closed; 0 disables (default 120). */
  idleTimeoutS?: number /** A uWS native binary to load instead of the package's one for this Node (a self-built one). */
  uwsBinaryPath?: string
}

export interface EngineSocketServer {
  readonly kind: SocketKind
  /** Why uWS is not running although it was preferred; undefined when it runs or was not wanted. */
  readonly fallbackReason?: string
  /** Resolves with the bound port (pass 0 for any free port). */
  listen(host: string, port: number): Promise<number>
  /** Closes every socket with 1001 `server_shutdown`, then stops listening. */
  close(): Promise<void>
}

export const DEFAULT_SOCKET_OPTIONS = { maxBackpressureBytes: 1024 * 1024, idleTimeoutS: 120 }

/** The uWS native module path for this Node ABI, or why there is none. */
export function locateUwsBinary(): { file: string } | { reason: string } {
  let entry: string
  try {
    entry = createRequire(import.meta.url).resolve('uWebSockets.js')
  } catch {
    return { reason: 'uWebSockets.js is not installed' }
  }
  // The package's own loader silently swaps in a slow pure-JS emulation when the binary is missing,
  // so we load the binary ourselves and fall back to `ws` instead.
  const file = path.join(path.dirname(entry), '..', 'binaries', `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`)
  if (!fs.existsSync(file))
    return { reason: `no uWebSockets.js binary for Node ${process.version} (${process.platform}-${process.arch}, ABI ${process.versions.modules})` }
  return { file }
}

export async function createSocketServer<C>(handler: ConnectionHandler<C>, options: SocketServerOptions): Promise<EngineSocketServer> {
  const o = { ...DEFAULT_SOCKET_OPTIONS, ...options }
  let fallbackReason: string | undefined
  if ((o.prefer ?? 'uws') === 'uws') {
    const found = o.uwsBinaryPath
      ? fs.existsSync(o.uwsBinaryPath)
        ? { file: o.uwsBinaryPath }
        : { reason: `${o.uwsBinaryPath} does not exist` }
      : locateUwsBinary()
    if ('file' in found) {
      try {
        const native = createRequire(import.meta.url)(found.file) as typeof import('uWebSockets.js')
        const { UwsServer } = await import('./uws.js')
        return new UwsServer(native, handler, o)
      } catch (err) {
        fallbackReason = `uWebSockets.js failed to load: ${(err as Error).message}`
      }
    } else {
      fallbackReason = found.reason
    }
  }
  const { WsServer } = await import('./ws.js')
  return new WsServer(handler, o, fallbackReason)
}

export type ResolvedSocketOptions = SocketServerOptions & typeof DEFAULT_SOCKET_OPTIONS

/** The transport hard cap; see SocketServerOptions.maxPayloadBytes. */
export const hardPayloadCap = (o: ResolvedSocketOptions): number => o.maxPayloadBytes * 2
export const TOO_LARGE = { code: CloseCode.tooLarge, reason: CloseReason[CloseCode.tooLarge] } as const
/**
 * Invalid UTF-8 in a text message (RFC 6455 §8.1: fail the connection; §7.4.1: 1007). Both
 * transports report it to the session as this, whatever reached the wire: ws sends a 1007 close
 * frame, while uWS validates in native code and drops the TCP connection without one (its close
 * handler says 1006 "Received invalid UTF-8"; no uWS option skips the check), so there the client sees 1006.
 */
export const INVALID_UTF8 = { code: 1007, reason: 'invalid_utf8' } as const
