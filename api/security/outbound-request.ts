/**
 * One outbound HTTP exchange to a tenant-chosen destination, through the SSRF guard: the URL is
 * checked, the socket is pinned to the checked addresses, redirects are returned (never followed),
 * the whole exchange has a deadline, and the response body is read up to a byte limit. Used by
 * integration actions; webhook delivery needs the same guarantees.
 */
import http from 'node:http'
import https from 'node:https'
import { assertPublicUrl, DestinationRefusedError, pinnedLookup, type GuardOptions } from '../../core/index.js'

export interface OutboundRequest {
  method: string
  url: string
  headers?: Record<string, string>
  body?: string | Buffer
}

export interface OutboundLimits extends GuardOptions {
  /** Deadline of the whole exchange: resolving, connecting, sending, and reading the body. */
  timeoutMs: number
  /** Bytes of response body kept; the rest is not read and `truncated` is set. */
  maxResponseBytes: number
  signal?: AbortSignal
}

export interface OutboundResponse {
  status: number
  headers: Record<string, string>
  body: Buffer
  truncated: boolean
}

export type OutboundFailure = 'destination_refused' | 'timeout' | 'aborted' | 'network'

/** Why an exchange produced no response. The message is safe to show to the tenant who asked. */
export class OutboundError extends Error {
  constructor(
    readonly code: OutboundFailure,
    message: string,
  ) {
    super(message)
    this.name = 'OutboundError'
  }
}

// Response headers beyond this are a protocol error (node's default is 16 KiB as well).
const MAX_HEADER_BYTES = 16 * 1024

/** Performs the exchange; throws OutboundError when there is no response to report. */
export async function outboundRequest(req: OutboundRequest, limits: OutboundLimits): Promise<OutboundResponse> {
  const deadline = AbortSignal.timeout(limits.timeoutMs)
  const signal = limits.signal ? AbortSignal.any([limits.signal, deadline]) : deadline
  const failure = (): OutboundError =>
    deadline.aborted
      ? new OutboundError('timeout', `No complete response within ${limits.timeoutMs} ms.`)
      : new OutboundError('aborted', 'The request was cancelled.')
  if (signal.aborted) throw failure()

  let checked
  try {
    checked = await raceAbort(assertPublicUrl(req.url, limits), signal)
  } catch (err) {
    if (err instanceof DestinationRefusedError) throw new OutboundError('destination_refused', err.message)
    if (signal.aborted) throw failure()
    throw err
  }

  const transport = checked.url.protocol === 'https:' ? https : http
  return new Promise<OutboundResponse>((resolve, reject) => {
    let settled = false
    const settle = (outcome: OutboundResponse | Error) => {
      if (settled) return
      settled = true
      if (outcome instanceof Error) reject(outcome)
      else resolve(outcome)
    }
    const cutOff = () => (signal.aborted ? failure() : new OutboundError('network', 'The connection closed before the response was complete.'))
    let request: http.ClientRequest
    try {
      request = transport.request(checked.url, {
        method: req.method,
        headers: req.headers,
        lookup: pinnedLookup(checked),
        // A fresh connection each time: a pooled socket could have been opened for another check.
        agent: false,
        maxHeaderSize: MAX_HEADER_BYTES,
        signal,
      })
    } catch (err) {
      // node refuses some header names and values synchronously (ERR_INVALID_CHAR, …).
      return settle(new OutboundError('network', `The request could not be built: ${(err as NodeJS.ErrnoException).code ?? 'invalid request'}.`))
    }
    request.on('error', (err: NodeJS.ErrnoException) => {
      settle(signal.aborted ? failure() : new OutboundError('network', `The request failed: ${err.code ?? 'connection error'}.`))
    })
    request.on('response', (res) => {
      const parts: Buffer[] = []
      let kept = 0
      const finish = (truncated: boolean) => settle({ status: res.statusCode ?? 0, headers: flatHeaders(res.headers), body: Buffer.concat(parts), truncated })
      res.on('data', (chunk: Buffer) => {
        const room = limits.maxResponseBytes - kept
        if (chunk.length <= room) {
          parts.push(chunk)
          kept += chunk.length
          return
        }
        parts.push(chunk.subarray(0, room))
        kept += room
        finish(true)
        // Nothing more is read: the socket goes, so a huge or endless body costs no more.
        res.destroy()
      })
      res.on('end', () => finish(false))
      res.on('error', () => settle(cutOff()))
      res.on('close', () => settle(cutOff()))
    })
    request.end(req.body)
  })
}

function flatHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value
  return out
}

function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}
