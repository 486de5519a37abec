import { assertPublicUrl, DestinationRefusedError, type Clock, type GuardOptions } from '../../core/index.js'
import type { Repos, WebhookAttemptRow, WebhookDeliveryRow, WebhookEndpointRow } from '../../db/index.js'
import { ApiError } from '../http/errors.js'
import { ValidationError } from '../http/validation.js'
import type { Principal } from '../security/principal.js'
import type { EntitlementGuard } from '../entitlements/index.js'
import { EVENT_TYPES } from './catalog.js'
import type { WebhookDispatcher } from './dispatcher.js'
import type {
  AttemptResponseT,
  DeliveryDetailT,
  DeliveryQueryT,
  DeliveryResponseT,
  EndpointCreatedResponseT,
  EndpointCreateT,
  EndpointResponseT,
  EndpointUpdateT,
} from './schema.js'
import type { EndpointSealer } from './sealing.js'
import { newSigningSecret } from './signing.js'

const iso = (ms: number) => new Date(ms).toISOString()
const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms))

/** Endpoints per environment: enough for every real setup, and a bound on the fan-out of one event. */
export const MAX_ENDPOINTS = 20

export interface WebhookServiceDeps {
  /** The plan's webhook-endpoint limit (402 quota_exceeded), over the whole organization. */
  quota: Pick<EntitlementGuard, 'assertRoom'>
  repos: Repos
  sealer: EndpointSealer
  clock: Clock
  dispatcher: WebhookDispatcher
  /** OZAN_ALLOW_PRIVATE_CIDRS and the resolver, shared with the dispatcher's send-time check. */
  guard: GuardOptions
}

interface Plain {
  secret: string
  previousSecret: string | null
  authHeader: string | null
}

export class WebhookService {
  constructor(private readonly deps: WebhookServiceDeps) {}

  catalog() {
    return EVENT_TYPES.map((e) => ({ type: e.type, description: e.description, example: e.example }))
  }

  list(p: Principal): EndpointResponseT[] {
    return this.deps.repos.webhooks.endpoints(scope(p)).map((row) => endpointResponse(row, this.deps.clock.now()))
  }

  async create(p: Principal, body: EndpointCreateT): Promise<EndpointCreatedResponseT> {
    await this.checkUrl(body.url)
    const { repos, clock, sealer } = this.deps
    const secret = newSigningSecret()
    const now = clock.now()
    const row = repos.transaction(() => {
      if (repos.webhooks.countEndpoints(scope(p)) >= MAX_ENDPOINTS) throw new ApiError('webhook_endpoint_limit')
      this.deps.quota.assertRoom(p.organizationId, 'webhook_endpoints')
      // The sealed values are bound to the endpoint id, known once the row exists.
      const inserted = repos.webhooks.insertEndpoint({
        organization_id: p.organizationId,
        environment_id: p.environmentId,
        url: body.url,
        description: body.description ?? null,
        events: JSON.stringify(body.events),
        timeout_seconds: body.timeout_seconds,
        headers: JSON.stringify(lowerCased(body.headers)),
        enabled: body.enabled ? 1 : 0,
        key_id: sealer.keyId,
        secret_sealed: Buffer.alloc(0),
        previous_secret_sealed: null,
        previous_secret_expires_at: null,
        auth_header_sealed: null,
        created_by: p.userId,
        created_at: now,
        updated_at: now,
      })
      return repos.webhooks.updateEndpoint(
        scope(p),
        inserted.id,
        this.sealAll(inserted, { secret, previousSecret: null, authHeader: body.auth_header ?? null }),
      )!
    })
    return { ...endpointResponse(row, now), secret }
  }

  async update(p: Principal, id: number, body: EndpointUpdateT): Promise<EndpointResponseT> {
    const row = this.endpointRow(p, id)
    if (body.url !== undefined) await this.checkUrl(body.url)
    const changes: Partial<WebhookEndpointRow> = { updated_at: this.deps.clock.now() }
    if (body.url !== undefined) changes.url = body.url
    if (body.description !== undefined) changes.description = body.description
    if (body.events !== undefined) changes.events = JSON.stringify(body.events)
    if (body.timeout_seconds !== undefined) changes.timeout_seconds = body.timeout_seconds
    if (body.headers !== undefined) changes.headers = JSON.stringify(lowerCased(body.headers))
    if (body.enabled !== undefined) changes.enabled = body.enabled ? 1 : 0
    if (body.auth_header !== undefined) Object.assign(changes, this.sealAll(row, { ...this.plain(row), authHeader: body.auth_header }))
    const updated = this.deps.repos.webhooks.updateEndpoint(scope(p), id, changes)
    if (!updated) throw new ApiError('not_found')
    // Pending deliveries of a re-enabled endpoint go out now.
    if (updated.enabled) this.deps.dispatcher.notify(updated.id, true)
    return endpointResponse(updated, this.deps.clock.now())
  }

  remove(p: Principal, id: number): void {
    if (!this.deps.repos.webhooks.deleteEndpoint(scope(p), id)) throw new ApiError('not_found')
  }

  /** A new signing secret; the old one keeps signing too for `overlapSeconds`. */
  rotate(p: Principal, id: number, overlapSeconds: number): EndpointCreatedResponseT {
    const row = this.endpointRow(p, id)
    const now = this.deps.clock.now()
    const secret = newSigningSecret()
    const current = this.plain(row).secret
    const overlap = overlapSeconds > 0
    const changes = {
      ...this.sealAll(row, { secret, previousSecret: overlap ? current : null, authHeader: this.plain(row).authHeader }),
      previous_secret_expires_at: overlap ? now + overlapSeconds * 1000 : null,
      updated_at: now,
    }
    const updated = this.deps.repos.webhooks.updateEndpoint(scope(p), id, changes)!
    return { ...endpointResponse(updated, now), secret }
  }

  deliveries(p: Principal, q: DeliveryQueryT) {
    const { rows, total } = this.deps.repos.webhooks.deliveries({
      ...scope(p),
      eventType: q.event_type,
      status: q.status,
      endpointId: q.endpoint_id,
      limit: q.limit,
      offset: q.offset,
    })
    return { items: rows.map((r) => deliveryResponse(r, r.last_attempt)), total, limit: q.limit, offset: q.offset }
  }

  delivery(p: Principal, id: number): DeliveryDetailT {
    const row = this.deliveryRow(p, id)
    const attempts = this.deps.repos.webhooks.attempts(row.id)
    return { ...deliveryResponse(row, attempts.at(-1) ?? null), body: row.body, attempts: attempts.map(attemptResponse) }
  }

  /**
   * Queues a new attempt of a finished delivery: same id and body, fresh timestamp and signature.
   * Answers at once with the delivery back in `pending`; the attempt shows in its detail.
   */
  redeliver(p: Principal, id: number): DeliveryResponseT {
    const row = this.deliveryRow(p, id)
    const endpoint = this.deps.repos.webhooks.endpoint(scope(p), row.endpoint_id)
    if (!endpoint) throw new ApiError('not_found')
    if (!endpoint.enabled) throw new ApiError('endpoint_disabled')
    if (!this.deps.repos.webhooks.requeue(row.id, this.deps.clock.now())) throw new ApiError('delivery_in_progress')
    this.deps.dispatcher.notify(row.endpoint_id, true)
    const requeued = this.deps.repos.webhooks.deliveryById(row.id)!
    return deliveryResponse(requeued, this.deps.repos.webhooks.lastAttempt(row.id) ?? null)
  }

  /**
   * The creation-time SSRF check (the dispatcher checks again before every send). Plain http is
   * accepted only when every address it resolves to is in a range the operator allows: anywhere
   * else, the body and its signature would cross networks in the clear.
   */
  private async checkUrl(url: string): Promise<void> {
    const refuse = (type: string, msg: string) => new ValidationError([{ type, loc: ['body', 'url'], msg, input: url }])
    let checked
    try {
      checked = await assertPublicUrl(url, this.deps.guard)
    } catch (err) {
      if (err instanceof DestinationRefusedError) throw refuse('destination_refused', err.message)
      throw err
    }
    if (checked.url.protocol === 'http:' && !checked.addresses.every((a) => this.deps.guard.allow?.check(a.address, a.family === 6 ? 'ipv6' : 'ipv4'))) {
      throw refuse('insecure_url', 'Use https: plain http is accepted only to addresses the operator allows (OZAN_ALLOW_PRIVATE_CIDRS).')
    }
  }

  private plain(row: WebhookEndpointRow): Plain {
    const { sealer } = this.deps
    return {
      secret: sealer.open(row, 'secret', row.secret_sealed),
      previousSecret: row.previous_secret_sealed ? sealer.open(row, 'previous_secret', row.previous_secret_sealed) : null,
      authHeader: sealer.authHeader(row),
    }
  }

  /** Every sealed column at once, under the current key, so a row never mixes keys. */
  private sealAll(row: WebhookEndpointRow, v: Plain): Partial<WebhookEndpointRow> {
    const { sealer } = this.deps
    return {
      key_id: sealer.keyId,
      secret_sealed: sealer.seal(row.organization_id, row.id, 'secret', v.secret),
      previous_secret_sealed: v.previousSecret === null ? null : sealer.seal(row.organization_id, row.id, 'previous_secret', v.previousSecret),
      auth_header_sealed: v.authHeader === null ? null : sealer.seal(row.organization_id, row.id, 'auth_header', v.authHeader),
    }
  }

  private endpointRow(p: Principal, id: number): WebhookEndpointRow {
    const row = this.deps.repos.webhooks.endpoint(scope(p), id)
    if (!row) throw new ApiError('not_found')
    return row
  }

  private deliveryRow(p: Principal, id: number): WebhookDeliveryRow {
    const row = this.deps.repos.webhooks.delivery(scope(p), id)
    if (!row) throw new ApiError('not_found')
    return row
  }
}

const scope = (p: Principal) => ({ organizationId: p.organizationId, environmentId: p.environmentId })

function lowerCased(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]))
}

/** `now` hides an overlap that has ended: the previous secret no longer signs. */
function endpointResponse(row: WebhookEndpointRow, now: number): EndpointResponseT {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: JSON.parse(row.events) as string[],
    timeout_seconds: row.timeout_seconds,
    headers: JSON.parse(row.headers) as Record<string, string>,
    auth_header_set: row.auth_header_sealed !== null,
    enabled: row.enabled === 1,
    previous_secret_expires_at: row.previous_secret_expires_at !== null && row.previous_secret_expires_at > now ? iso(row.previous_secret_expires_at) : null,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  }
}

function attemptResponse(a: WebhookAttemptRow): AttemptResponseT {
  return {
    number: a.number,
    trigger: a.trigger,
    started_at: iso(a.started_at),
    finished_at: isoOrNull(a.finished_at),
    outcome: a.outcome,
    response_status: a.response_status,
    error: a.error,
    duration_ms: a.duration_ms,
    response_body: a.response_body,
  }
}

function deliveryResponse(row: WebhookDeliveryRow, last: WebhookAttemptRow | null): DeliveryResponseT {
  return {
    id: row.id,
    endpoint_id: row.endpoint_id,
    event_type: row.event_type,
    status: row.status,
    attempt_count: row.attempt_count,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    last_attempt: last && attemptResponse(last),
  }
}
