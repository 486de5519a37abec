/**
 * Warm connections to the HTTP providers (LLM, speech).
 *
 * A reply's first LLM and TTS requests sit on the caller's wait. A kept-alive connection is only
 * kept ~4 s after its last answer (undici's default, shorter when the server says so), and the
 * gap between two turns is usually longer, so most turns used to open a new connection: TCP, and
 * TLS for a real provider, tens of ms across a network and ~0.4 ms on loopback. `prewarm()`
 * opens one while the caller is still speaking, and the pool's connector hands it to the next
 * request that needs a new connection. Nothing is sent on it until a real request uses it: no
 * request the provider would count or bill.
 *
 * One pool for every provider client of the process (connections are per origin, shared by all
 * calls and organizations; a request carries its own key). Each client that expects to ask keeps
 * one warm connection: a reply's LLM stream is still open when its first TTS request goes out, and
 * at OpenAI both go to one origin, so one connection per origin would serve only the first. At most
 * `maxWarmPerOrigin` wait per origin. The pool prefers its idle connections, so while those last a
 * warm one goes unused and is closed after `maxWarmAgeMs`: the waste is bounded by those two.
 *
 * Trust: the process's pool (`providerConnections`) is for the operator's own destinations
 * (OZAN_*_BASE_URL, the SDK defaults). An organization's stored base URL goes through a pool built
 * with a `guard`: every connection it opens, warm or not, is checked by the outbound guard at
 * connect time and opened to the address checked (guarded-connector.ts), so an origin shared with
 * the operator's still never borrows a trusted connection.
 */
import type http from 'node:http'
import type { Socket } from 'node:net'
import type { Readable } from 'node:stream'
import { Agent, buildConnector, fetch as undiciFetch, type Dispatcher } from 'undici'
import { guardedAgent, type DestinationRefusedError, type GuardOptions } from '../../../core/index.js'
import { bareHost, guardedConnector } from './guarded-connector.js'

export interface ProviderConnectionsOptions {
  /** How long an unused warm connection is kept (servers close idle, silent connections too). */
  maxWarmAgeMs: number
  /** Warm connections waiting per origin, whoever asked for them. */
  maxWarmPerOrigin: number
  /** TCP (and TLS) connect timeout, warm or not. */
  connectTimeoutMs: number
  /**
   * null: the operator's destinations, trusted. Set: an organization's, every connection through
   * the outbound guard (OZAN_ALLOW_PRIVATE_CIDRS as `allow`, the server's own addresses as `own`).
   */
  guard: GuardOptions | null
}

export const DEFAULT_PROVIDER_CONNECTIONS: ProviderConnectionsOptions = { maxWarmAgeMs: 10_000, maxWarmPerOrigin: 8, connectTimeoutMs: 10_000, guard: null }

type FetchInput = string | URL | { url: string }
type FetchInit = { method?: string; headers?: unknown; body?: unknown; signal?: AbortSignal | null; [k: string]: unknown }
/** Statuses whose response has no body (a Response refuses one). */
const NULL_BODY_STATUS = new Set([101, 204, 205, 304])

type ConnectCallback = Parameters<buildConnector.connector>[1]
type ConnectOptions = buildConnector.Options

interface Warm {
  /** Who asked for it: one waits per owner (and origin). */
  owner: object
  socket: Socket | null
  /** A request that asked for a connection while this one was still connecting. */
  taker: { opts: ConnectOptions; cb: ConnectCallback } | null
  timer: NodeJS.Timeout
  /** Our listeners while it waits; removed when undici takes the socket. */
  onGone: () => void
}

/**
 * A response body as the web stream a Response needs. Readable.toWeb does the same, ~0.2 ms
 * slower from the first bytes to the reader's first read (measured on loopback): this sits on the
 * turn's path twice (the LLM stream's first phrase, the first TTS audio). Backpressure: one chunk
 * queued pauses the socket's reading until the reader pulls.
 */
function webStream(body: Readable): ReadableStream<Uint8Array> {
  let open = true
  return new ReadableStream<Uint8Array>({
    start(c) {
      body.on('data', (d: Buffer) => {
        if (!open) return
        c.enqueue(new Uint8Array(d.buffer, d.byteOffset, d.length))
        if ((c.desiredSize ?? 1) <= 0) body.pause()
      })
      body.once('end', () => {
        if (open) c.close()
        open = false
      })
      body.once('error', (err) => {
        if (open) c.error(err)
        open = false
      })
    },
    pull() {
      body.resume()
    },
    cancel(reason) {
      open = false
      body.destroy(reason instanceof Error ? reason : undefined)
    },
  })
}

/** "http://host:port", default ports spelled out: the same key from a URL and from undici's connect options. */
function keyOf(protocol: string, hostname: string, port: string | number | null | undefined): string {
  return `${protocol}//${bareHost(hostname)}:${port || (protocol === 'https:' ? 443 : 80)}`
}

export class ProviderConnections {
  readonly agent: Agent
  private readonly options: ProviderConnectionsOptions
  private readonly connector: buildConnector.connector
  /** Per origin, oldest first. */
  private readonly warm = new Map<string, Warm[]>()
  private closed = false

  constructor(options: Partial<ProviderConnectionsOptions> = {}) {
    this.options = { ...DEFAULT_PROVIDER_CONNECTIONS, ...options }
    for (const k of ['maxWarmAgeMs', 'maxWarmPerOrigin', 'connectTimeoutMs'] as const) {
      if (!Number.isFinite(this.options[k]) || this.options[k] <= 0) throw new RangeError(`ProviderConnections: ${k} must be > 0`)
    }
    const direct = buildConnector({ timeout: this.options.connectTimeoutMs })
    this.connector = this.options.guard ? guardedConnector(direct, this.options.guard) : direct
    this.agent = new Agent({ connect: (opts, cb) => this.connect(opts, cb) })
  }

  /**
   * For the SDKs' `fetch` option. A string or byte body (every JSON request) goes through undici's
   * dispatcher API, not its fetch: fetch builds and checks a WHATWG Request, wraps the body in a
   * stream and passes several promise hops before the first byte is written, ~0.3 ms per request
   * on the turn's path (a reply's first LLM and TTS requests). Other bodies (the transcription's
   * multipart form) use undici's fetch. Never follows a redirect (the clients ask for
   * `redirect: 'error'`): a 3xx is answered as it came, which the SDKs report as an error status.
   */
  readonly fetch = ((input: FetchInput, init: FetchInit = {}) => this.request(input, init)) as unknown as typeof globalThis.fetch

  private async request(input: FetchInput, init: FetchInit): Promise<Response> {
    const body = init.body
    if (body != null && typeof body !== 'string' && !(body instanceof Uint8Array))
      return undiciFetch(input as Parameters<typeof undiciFetch>[0], {
        ...(init as Parameters<typeof undiciFetch>[1]),
        dispatcher: this.agent,
      }) as unknown as Response
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url)
    const headers: Record<string, string> = {}
    new Headers(init.headers as HeadersInit | undefined).forEach((v, k) => (headers[k] = v))
    let res: Dispatcher.ResponseData
    try {
      res = await this.agent.request({
        origin: url.origin,
        path: url.pathname + url.search,
        method: (init.method ?? 'GET') as Dispatcher.HttpMethod,
        headers,
        body: body ?? null,
        signal: init.signal ?? undefined,
      })
    } catch (err) {
      // What fetch throws, so the SDKs and their callers see the same shapes: the abort as an
      // AbortError, anything else as "fetch failed" with the network error as its cause.
      if (init.signal?.aborted) throw init.signal.reason ?? new DOMException('This operation was aborted', 'AbortError')
      throw new TypeError('fetch failed', { cause: err })
    }
    const out = new Headers()
    for (const [k, v] of Object.entries(res.headers)) {
      if (Array.isArray(v)) for (const x of v) out.append(k, x)
      else if (v !== undefined) out.append(k, v)
    }
    if (NULL_BODY_STATUS.has(res.statusCode)) {
      res.body.resume()
      return new Response(null, { status: res.statusCode, headers: out })
    }
    return new Response(webStream(res.body), { status: res.statusCode, headers: out })
  }

  /**
   * Makes sure the request `owner` (a provider client) will soon send to `baseUrl` finds an open
   * connection: opens one unless the owner already has one waiting there, or the origin has its
   * maximum. An idle pooled connection is no reason to skip: it may be a second from its
   * keep-alive end. Never throws; a failure to connect is the real request's to report.
   */
  prewarm(baseUrl: string, owner: object): void {
    if (this.closed) return
    let url: URL
    try {
      url = new URL(baseUrl)
    } catch {
      return
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return
    const key = keyOf(url.protocol, url.hostname, url.port)
    const list = this.warm.get(key) ?? []
    if (list.length >= this.options.maxWarmPerOrigin || list.some((w) => w.owner === owner)) return
    const w: Warm = {
      owner,
      socket: null,
      taker: null,
      timer: setTimeout(() => this.discard(key, w), this.options.maxWarmAgeMs).unref(),
      onGone: () => this.discard(key, w),
    }
    list.push(w)
    this.warm.set(key, list)
    this.connector({ protocol: url.protocol, hostname: bareHost(url.hostname), host: url.host, port: url.port }, (err, socket) => {
      const taker = w.taker
      if (err || !socket) {
        this.discard(key, w)
        // The request that was waiting for it connects on its own (and reports what fails).
        if (taker) this.connector(taker.opts, taker.cb)
        return
      }
      const s = socket as Socket
      if (taker) return taker.cb(null, this.handOver(s, w))
      if (!this.warm.get(key)?.includes(w)) return void s.destroy()
      w.socket = s
      // Held, it must not keep the process alive, and a reset must not go unhandled.
      s.unref()
      s.on('error', w.onGone).on('end', w.onGone).on('close', w.onGone)
    })
  }

  /** Whether connections are checked by the outbound guard (an organization's destinations). */
  get guarded(): boolean {
    return this.options.guard !== null
  }

  /**
   * The node Agent one WebSocket connection (the Deepgram SDK's `ws`) opens with, for a ws:/wss:
   * URL: guarded like this pool's connections, `onRefused` told of a refusal (the SDK passes on
   * only an error's message); undefined for a trusted pool.
   */
  webSocketAgent(protocol: string, onRefused?: (err: DestinationRefusedError) => void): http.Agent | undefined {
    if (!this.options.guard) return undefined
    return guardedAgent(protocol === 'wss:' || protocol === 'https:' ? 'wss:' : 'ws:', this.options.guard, onRefused)
  }

  /** Closes the warm connections and the pool. A second call is a no-op (undici rejects it). */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    for (const [key, list] of this.warm) for (const w of [...list]) this.discard(key, w)
    await this.agent.close()
  }

  /** The pool's connector: the oldest warm connection to the origin if there is one, else a new one. */
  private connect(opts: ConnectOptions, cb: ConnectCallback): void {
    const key = keyOf(opts.protocol, opts.hostname, opts.port)
    const list = opts.httpSocket ? undefined : this.warm.get(key)
    while (list?.length) {
      const w = list.shift()!
      if (list.length === 0) this.warm.delete(key)
      clearTimeout(w.timer)
      if (!w.socket) {
        w.taker = { opts, cb }
        return
      }
      if (!w.socket.destroyed && w.socket.readyState === 'open') return cb(null, this.handOver(w.socket, w))
      w.socket.destroy()
    }
    this.connector(opts, cb)
  }

  private handOver(s: Socket, w: Warm): Socket {
    s.off('error', w.onGone).off('end', w.onGone).off('close', w.onGone)
    // undici refs and unrefs its sockets by activity, starting from a ref'd one.
    s.ref()
    return s
  }

  private discard(key: string, w: Warm): void {
    clearTimeout(w.timer)
    const list = this.warm.get(key)
    const i = list ? list.indexOf(w) : -1
    if (i >= 0) list!.splice(i, 1)
    if (list?.length === 0) this.warm.delete(key)
    w.socket?.destroy()
  }
}

/** The process's provider connections: every provider client's requests go through it. */
export const providerConnections = new ProviderConnections()
