import { performance } from 'node:perf_hooks'
import type { Clock, GuardOptions, Logger } from '../../core/index.js'
import type { AttemptResult, Repos, WebhookDeliveryRow, WebhookEndpointRow } from '../../db/index.js'
import { OutboundError, outboundRequest, type OutboundResponse } from '../security/outbound-request.js'
import type { EndpointSealer } from './sealing.js'
import { signatureHeader } from './signing.js'

/** Bytes of a receiver's answer kept with the attempt. */
export const RESPONSE_EXCERPT_BYTES = 1024
const USER_AGENT = 'Ozan-Webhooks/1.0 (+https://github.com/ozan)'
// Ids taken from the outbox per endpoint at a time: memory stays bounded whatever the backlog.
const PAGE = 200

export interface DispatcherOptions {
  /** Attempts in flight at once, all endpoints together. */
  maxInFlight: number
  /** Attempts in flight at once to one endpoint: a slow receiver holds at most this many slots. */
  maxPerEndpoint: number
  /** Finished deliveries older than this are deleted (hourly). */
  retentionDays: number
}

export interface DispatcherDeps {
  repos: Repos
  sealer: EndpointSealer
  clock: Clock
  logger: Logger
  guard: GuardOptions
  options: DispatcherOptions
}

interface Prepared {
  row: WebhookEndpointRow
  headers: Record<string, string>
  secret: string
  previous: string | null
  previousExpiresAt: number | null
  auth: string | null
}

interface EndpointQueue {
  ids: number[]
  /** The highest id taken from the outbox; the next page starts after it. */
  cursor: number
  /** The outbox may hold more pending rows for this endpoint than `ids`. */
  more: boolean
  running: number
}

/**
 * Sends the outbox: every pending delivery gets one attempt. The database is the queue, so
 * nothing is lost across a restart; in memory there is only a page of ids per endpoint. Endpoints
 * are served in turn, each capped at maxPerEndpoint attempts in flight, all capped at maxInFlight,
 * so a receiver that hangs until its timeout never delays the others.
 */
export class WebhookDispatcher {
  private readonly queues = new Map<number, EndpointQueue>()
  private readonly inFlight = new Map<number, AbortController>()
  private turn: number[] = []
  private running = 0
  private scheduled = false
  private pruneTimer: NodeJS.Timeout | undefined
  private closed = false
  /** After close(): the database may be gone, so late results are dropped (the rows were put back). */
  private stopped = false
  private idleWaiters: (() => void)[] = []
  private outcomes: { delivery: WebhookDeliveryRow; result: AttemptResult; now: number; resolve(): void }[] = []
  private readonly endpoints = new Map<number, Prepared>()

  constructor(private readonly deps: DispatcherDeps) {}

  /** Puts back what a stop interrupted, then sends everything pending. */
  start(): void {
    this.prune()
    this.pruneTimer = setInterval(() => this.prune(), 3_600_000).unref()
    const resumed = this.deps.repos.webhooks.resumeInterrupted(this.deps.clock.now())
    if (resumed) this.deps.logger.warn({ deliveries: resumed }, 'webhook attempts interrupted by the last stop are sent again')
    for (const id of this.deps.repos.webhooks.endpointsWithPending()) this.notify(id)
  }

  /** New pending rows for an endpoint; `rescan` when older ids came back (a redelivery). */
  notify(endpointId: number, rescan = false): void {
    if (this.closed) return
    let q = this.queues.get(endpointId)
    if (!q) {
      q = { ids: [], cursor: 0, more: true, running: 0 }
      this.queues.set(endpointId, q)
      this.turn.push(endpointId)
    }
    q.more = true
    if (rescan) q.cursor = 0
    // Deferred: the publisher may still be inside a transaction that holds the new rows.
    this.schedulePump()
  }

  /** Resolves when nothing is pending in memory or in flight (tests and the bench wait on it). */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve()
    return new Promise((resolve) => this.idleWaiters.push(resolve))
  }

  /**
   * Stops taking work, lets attempts in flight finish for up to `graceMs`, then cuts the rest;
   * those go back to pending (attempt marked interrupted) and are sent at the next start.
   */
  async close(graceMs: number): Promise<void> {
    if (this.closed) return
    this.closed = true
    clearInterval(this.pruneTimer)
    if (this.running) {
      let timer: NodeJS.Timeout | undefined
      await Promise.race([this.idle(), new Promise<void>((r) => (timer = setTimeout(r, graceMs)))])
      clearTimeout(timer)
      for (const c of this.inFlight.values()) c.abort()
    }
    this.flush()
    this.deps.repos.webhooks.resumeInterrupted(this.deps.clock.now())
    this.stopped = true
  }

  /** Deletes finished deliveries past the retention period; returns how many. */
  prune(): number {
    return this.deps.repos.webhooks.prune(this.deps.clock.now() - this.deps.options.retentionDays * 86_400_000)
  }

  private isIdle(): boolean {
    return this.running === 0 && [...this.queues.values()].every((q) => q.ids.length === 0 && !q.more)
  }

  /** One pump per turn of the event loop, however many events and completions asked for it. */
  private schedulePump(): void {
    if (this.scheduled) return
    this.scheduled = true
    setImmediate(() => {
      this.scheduled = false
      this.pump()
    })
  }

  /** Starts as many attempts as the caps allow, claiming them all in one transaction. */
  private pump(): void {
    const batch: { id: number; q: EndpointQueue }[] = []
    while (!this.closed && this.running < this.deps.options.maxInFlight) {
      const next = this.nextDelivery()
      if (next === undefined) break
      this.running++
      next.q.running++
      batch.push(next)
    }
    if (batch.length) {
      const now = this.deps.clock.now()
      const claimed = this.deps.repos.webhooks.claimMany(
        batch.map((b) => b.id),
        Math.floor(now / 1000),
        now,
      )
      for (const { id, q } of batch) {
        void this.attempt(claimed.get(id)?.delivery, Math.floor(now / 1000)).finally(() => {
          this.running--
          q.running--
          this.schedulePump()
        })
      }
    }
    if (this.isIdle()) for (const resolve of this.idleWaiters.splice(0)) resolve()
  }

  /** The next id, endpoints taken round-robin; refills an endpoint's page from the outbox. */
  private nextDelivery(): { id: number; q: EndpointQueue } | undefined {
    for (let tries = this.turn.length; tries > 0; tries--) {
      const endpointId = this.turn.shift()!
      this.turn.push(endpointId)
      const q = this.queues.get(endpointId)!
      if (q.running >= this.deps.options.maxPerEndpoint) continue
      if (!q.ids.length && q.more) {
        q.ids = this.deps.repos.webhooks.pendingIds(endpointId, q.cursor, PAGE)
        q.more = q.ids.length === PAGE
        if (q.ids.length) q.cursor = q.ids.at(-1)!
      }
      const id = q.ids.shift()
      if (id !== undefined) return { id, q }
      if (q.running === 0) {
        this.queues.delete(endpointId)
        this.turn = this.turn.filter((e) => e !== endpointId)
      }
    }
    return undefined
  }

  private async attempt(delivery: WebhookDeliveryRow | undefined, signedAt: number): Promise<void> {
    if (!delivery) return // no longer pending: deleted with its endpoint, or taken already
    const endpoint = this.deps.repos.webhooks.endpointById(delivery.endpoint_id)
    let result: AttemptResult
    if (!endpoint) result = failed(null, 'The endpoint was deleted.', 0)
    else {
      try {
        result = await this.send(endpoint, delivery, signedAt)
      } catch (err) {
        // A secret that no longer decrypts (changed encryption key) fails the attempt, visibly.
        this.deps.logger.error({ err, delivery_id: delivery.id }, 'webhook attempt could not be made')
        result = failed(null, `The attempt could not be made: ${(err as Error).message}`, 0)
      }
    }
    if (this.stopped || (this.closed && result.error?.startsWith('aborted'))) return // close() put it back to pending
    await this.record(delivery, result)
  }

  /**
   * Outcomes are written in one transaction per turn of the event loop, not one each: a crash in
   * that window leaves the delivery in `sending`, and it is sent again at the next start.
   */
  private record(delivery: WebhookDeliveryRow, result: AttemptResult): Promise<void> {
    return new Promise((resolve) => {
      this.outcomes.push({ delivery, result, now: this.deps.clock.now(), resolve })
      if (this.outcomes.length === 1) setImmediate(() => this.flush())
    })
  }

  private flush(): void {
    const items = this.outcomes.splice(0)
    if (!items.length || this.stopped) return
    this.deps.repos.webhooks.finishMany(items)
    for (const item of items) item.resolve()
  }

  /**
   * An endpoint's headers and secrets, opened once per version of its row. A version is told by
   * the stored values themselves (every re-seal has a fresh IV), not by updated_at, which two
   * changes within one millisecond share.
   */
  private prepared(endpoint: WebhookEndpointRow): Prepared {
    const cached = this.endpoints.get(endpoint.id)
    if (cached && sameVersion(cached.row, endpoint)) return cached
    const { sealer } = this.deps
    const prepared: Prepared = {
      row: endpoint,
      headers: JSON.parse(endpoint.headers) as Record<string, string>,
      secret: sealer.open(endpoint, 'secret', endpoint.secret_sealed),
      previous: endpoint.previous_secret_sealed ? sealer.open(endpoint, 'previous_secret', endpoint.previous_secret_sealed) : null,
      previousExpiresAt: endpoint.previous_secret_expires_at,
      auth: sealer.authHeader(endpoint),
    }
    this.endpoints.set(endpoint.id, prepared)
    return prepared
  }

  private async send(endpoint: WebhookEndpointRow, delivery: WebhookDeliveryRow, signedAt: number): Promise<AttemptResult> {
    const p = this.prepared(endpoint)
    const secrets = p.previous !== null && p.previousExpiresAt !== null && p.previousExpiresAt > this.deps.clock.now() ? [p.secret, p.previous] : [p.secret]
    const headers: Record<string, string> = {
      ...p.headers,
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'x-ozan-event': delivery.event_type,
      'x-ozan-delivery': String(delivery.id),
      'x-ozan-signature': signatureHeader(secrets, signedAt, delivery.body),
    }
    if (p.auth !== null) headers.authorization = p.auth
    const controller = new AbortController()
    this.inFlight.set(delivery.id, controller)
    const started = performance.now()
    const took = () => Math.round((performance.now() - started) * 10) / 10
    try {
      const res = await outboundRequest(
        { method: 'POST', url: endpoint.url, headers, body: delivery.body },
        { ...this.deps.guard, timeoutMs: endpoint.timeout_seconds * 1000, maxResponseBytes: RESPONSE_EXCERPT_BYTES, signal: controller.signal },
      )
      return outcome(res, took())
    } catch (err) {
      if (!(err instanceof OutboundError)) throw err
      return failed(null, `${err.code === 'network' ? 'unreachable' : err.code}: ${err.message}`, took())
    } finally {
      this.inFlight.delete(delivery.id)
    }
  }
}

const sameBytes = (a: Buffer | null, b: Buffer | null) => (a === null || b === null ? a === b : a.equals(b))

function sameVersion(a: WebhookEndpointRow, b: WebhookEndpointRow): boolean {
  return (
    a.headers === b.headers &&
    a.previous_secret_expires_at === b.previous_secret_expires_at &&
    sameBytes(a.secret_sealed, b.secret_sealed) &&
    sameBytes(a.previous_secret_sealed, b.previous_secret_sealed) &&
    sameBytes(a.auth_header_sealed, b.auth_header_sealed)
  )
}

function failed(status: number | null, error: string, durationMs: number, body: string | null = null): AttemptResult {
  return { outcome: 'failed', response_status: status, error, duration_ms: durationMs, response_body: body }
}

/** 2xx succeeds; anything else fails, a redirect included (it is never followed). */
function outcome(res: OutboundResponse, durationMs: number): AttemptResult {
  const body = res.body.length ? res.body.subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8') : null
  if (res.status >= 200 && res.status < 300)
    return { outcome: 'succeeded', response_status: res.status, error: null, duration_ms: durationMs, response_body: body }
  if (res.status >= 300 && res.status < 400) {
    const to = res.headers.location ? ` to ${res.headers.location.slice(0, 300)}` : ''
    return failed(res.status, `redirect: the endpoint answered ${res.status}${to}; redirects are not followed.`, durationMs, body)
  }
  return failed(res.status, `http_status: the endpoint answered ${res.status}.`, durationMs, body)
}
