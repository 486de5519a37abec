/**
 * The plumbing the REST stand-ins (Slack, Cal.com, HubSpot) share: listening on a free loopback
 * port, reading bodies, answering JSON, injected failures, and the request log. Each stand-in keeps
 * only its provider's wire rules.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'

/** One failure, used by the next request that reaches the provider's endpoint. */
export type InjectedFailure =
  /** An error status with the provider's error body; `retryAfterS` sets Retry-After. */
  | { kind: 'status'; status: number; retryAfterS?: number }
  /** Accepts the request and never answers. */
  | { kind: 'hang' }
  /** Answers normally after a delay. */
  | { kind: 'delay'; ms: number }

export interface LoggedRequest {
  method: string
  path: string
  query: URLSearchParams
  headers: http.IncomingHttpHeaders
  /** The raw body as received. */
  raw: string
  /** The body parsed by its content type (JSON or form); null when it could not be. */
  body: Record<string, unknown> | null
  /** The status answered; 0 while (or if never) answered. */
  status: number
  /** What was answered, parsed. */
  response: unknown
}

export type Handler = (req: LoggedRequest, failure: InjectedFailure | undefined) => Promise<Answer | null> | Answer | null
export interface Answer {
  status: number
  body: unknown
  headers?: Record<string, string>
}

export interface RunningStandIn {
  /** http://127.0.0.1:<port> */
  origin: string
  requests: LoggedRequest[]
  fail(...failures: InjectedFailure[]): void
  close(): Promise<void>
}

/** Parses a body by its Content-Type: JSON objects and URL-encoded forms; anything else is null. */
export function parseBody(contentType: string | undefined, raw: string): Record<string, unknown> | null {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase()
  if (type === 'application/x-www-form-urlencoded') return Object.fromEntries(new URLSearchParams(raw))
  if (type !== 'application/json') return null
  try {
    const value: unknown = JSON.parse(raw)
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null
  } catch {
    return null
  }
}

/**
 * Starts a stand-in on `host` (loopback by default). `handle` answers each request; returning
 * null leaves it unanswered (a hang). Failures are handed to the handler in order, one per request.
 */
export async function startStandIn(handle: Handler, o: { host?: string; port?: number } = {}): Promise<RunningStandIn> {
  const requests: LoggedRequest[] = []
  const failures: InjectedFailure[] = []
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = []
    req.on('data', (c: Buffer) => parts.push(c))
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stand-in')
      const raw = Buffer.concat(parts).toString('utf8')
      const logged: LoggedRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        raw,
        body: parseBody(req.headers['content-type'], raw),
        status: 0,
        response: undefined,
      }
      requests.push(logged)
      const failure = failures.shift()
      void (async () => {
        if (failure?.kind === 'hang') return
        if (failure?.kind === 'delay') await new Promise((r) => setTimeout(r, failure.ms))
        const answer = await handle(logged, failure)
        if (!answer || res.destroyed) return
        logged.status = answer.status
        logged.response = answer.body
        res.writeHead(answer.status, { 'content-type': 'application/json; charset=utf-8', ...answer.headers })
        res.end(JSON.stringify(answer.body))
      })().catch(() => res.destroy())
    })
  })
  await new Promise<void>((resolve) => server.listen(o.port ?? 0, o.host ?? '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    origin: `http://${o.host ?? '127.0.0.1'}:${port}`,
    requests,
    fail: (...f) => void failures.push(...f),
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
