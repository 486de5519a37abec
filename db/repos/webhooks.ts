import type { Db } from '../database.js'

export interface WebhookEndpointRow {
  id: number
  organization_id: string
  environment_id: string
  url: string
  description: string | null
  /** JSON array of event types. */
  events: string
  timeout_seconds: number
  /** JSON object of extra headers. */
  headers: string
  enabled: number
  key_id: string
  secret_sealed: Buffer
  previous_secret_sealed: Buffer | null
  previous_secret_expires_at: number | null
  auth_header_sealed: Buffer | null
  created_by: string | null
  created_at: number
  updated_at: number
}
export type NewWebhookEndpoint = Omit<WebhookEndpointRow, 'id'>

export type WebhookDeliveryStatus = 'pending' | 'sending' | 'succeeded' | 'failed'

export interface WebhookDeliveryRow {
  id: number
  organization_id: string
  environment_id: string
  endpoint_id: number
  event_type: string
  body: string
  status: WebhookDeliveryStatus
  attempt_count: number
  created_at: number
  updated_at: number
}

export type AttemptTrigger = 'event' | 'redeliver' | 'resume'
export type AttemptOutcome = 'succeeded' | 'failed' | 'interrupted'

export interface WebhookAttemptRow {
  id: number
  delivery_id: number
  number: number
  trigger: AttemptTrigger
  signed_at: number
  started_at: number
  finished_at: number | null
  outcome: AttemptOutcome | null
  response_status: number | null
  error: string | null
  duration_ms: number | null
  response_body: string | null
}

export interface AttemptResult {
  outcome: 'succeeded' | 'failed'
  response_status: number | null
  error: string | null
  duration_ms: number
  response_body: string | null
}

export interface EndpointScope {
  organizationId: string
  environmentId: string
}

export interface DeliveryFilter extends EndpointScope {
  eventType?: string
  status?: WebhookDeliveryStatus
  endpointId?: number
  limit: number
  offset: number
}

export interface Claimed {
  delivery: WebhookDeliveryRow
  trigger: AttemptTrigger
}

export type DeliveryWithLastAttempt = WebhookDeliveryRow & { last_attempt: WebhookAttemptRow | null }

/**
 * Webhook endpoints, the delivery outbox and its attempts. Endpoint and delivery reads take the
 * organization and environment, so one tenant's ids never reach another; the dispatcher's reads
 * (by id, after the outbox already bound the row to its tenant) do not.
 */
export class WebhooksRepo {
  private readonly statements

  constructor(private readonly db: Db) {
    const p = <P extends unknown[] | object = unknown[], R = unknown>(sql: string) => db.prepare<P, R>(sql)
    this.statements = {
      insertEndpoint: p<[NewWebhookEndpoint], WebhookEndpointRow>(
        `INSERT INTO webhook_endpoints (organization_id, environment_id, url, description, events, timeout_seconds, headers, enabled,
           key_id, secret_sealed, previous_secret_sealed, previous_secret_expires_at, auth_header_sealed, created_by, created_at, updated_at)
         VALUES (@organization_id, @environment_id, @url, @description, @events, @timeout_seconds, @headers, @enabled,
           @key_id, @secret_sealed, @previous_secret_sealed, @previous_secret_expires_at, @auth_header_sealed, @created_by, @created_at, @updated_at)
         RETURNING *`,
      ),
      endpoint: p<[number, string, string], WebhookEndpointRow>('SELECT * FROM webhook_endpoints WHERE id = ? AND organization_id = ? AND environment_id = ?'),
      endpointById: p<[number], WebhookEndpointRow>('SELECT * FROM webhook_endpoints WHERE id = ?'),
      endpoints: p<[string, string], WebhookEndpointRow>('SELECT * FROM webhook_endpoints WHERE organization_id = ? AND environment_id = ? ORDER BY id'),
      countEndpoints: p<[string, string], { n: number }>('SELECT count(*) AS n FROM webhook_endpoints WHERE organization_id = ? AND environment_id = ?'),
      // Organization-wide events (no environment) go to the endpoints of every environment.
      subscribers: p<[string, string | null, string | null], WebhookEndpointRow>(
        `SELECT * FROM webhook_endpoints WHERE organization_id = ? AND enabled = 1 AND (? IS NULL OR environment_id = ?)`,
      ),
      deleteEndpoint: p<[number, string, string]>('DELETE FROM webhook_endpoints WHERE id = ? AND organization_id = ? AND environment_id = ?'),
      insertDelivery: p<[string, string, number, string, string, number, number], { id: number }>(
        `INSERT INTO webhook_deliveries (organization_id, environment_id, endpoint_id, event_type, body, status, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, 'pending', ?, ?) RETURNING id`,
      ),
      delivery: p<[number, string, string], WebhookDeliveryRow>('SELECT * FROM webhook_deliveries WHERE id = ? AND organization_id = ? AND environment_id = ?'),
      deliveryById: p<[number], WebhookDeliveryRow>('SELECT * FROM webhook_deliveries WHERE id = ?'),
      attempts: p<[number], WebhookAttemptRow>('SELECT * FROM webhook_attempts WHERE delivery_id = ? ORDER BY number'),
      lastAttempt: p<[number], WebhookAttemptRow>('SELECT * FROM webhook_attempts WHERE delivery_id = ? ORDER BY number DESC LIMIT 1'),
      pendingIds: p<[number, number, number], { id: number }>(
        `SELECT id FROM webhook_deliveries WHERE status = 'pending' AND endpoint_id = ? AND id > ? ORDER BY id LIMIT ?`,
      ),
      pendingEndpoints: p<[], { endpoint_id: number }>(`SELECT DISTINCT endpoint_id FROM webhook_deliveries WHERE status = 'pending'`),
      claim: p<[number, number]>(
        `UPDATE webhook_deliveries SET status = 'sending', attempt_count = attempt_count + 1, updated_at = ? WHERE id = ? AND status = 'pending'`,
      ),
      insertAttempt: p<[number, number, AttemptTrigger, number, number]>(
        `INSERT INTO webhook_attempts (delivery_id, number, trigger, signed_at, started_at) VALUES (?, ?, ?, ?, ?)`,
      ),
      finishAttempt: p<object>(
        `UPDATE webhook_attempts SET finished_at = @finished_at, outcome = @outcome, response_status = @response_status, error = @error,
           duration_ms = @duration_ms, response_body = @response_body WHERE delivery_id = @delivery_id AND number = @number`,
      ),
      finishDelivery: p<[WebhookDeliveryStatus, number, number]>(
        `UPDATE webhook_deliveries SET status = ?, updated_at = ? WHERE id = ? AND status = 'sending'`,
      ),
      requeue: p<[number, number]>(`UPDATE webhook_deliveries SET status = 'pending', updated_at = ? WHERE id = ? AND status IN ('succeeded', 'failed')`),
      interruptAttempts: p<[number]>(
        `UPDATE webhook_attempts SET outcome = 'interrupted', finished_at = ?, error = 'The service stopped during this attempt; it was sent again.'
         WHERE outcome IS NULL AND delivery_id IN (SELECT id FROM webhook_deliveries WHERE status = 'sending')`,
      ),
      resetSending: p<[number]>(`UPDATE webhook_deliveries SET status = 'pending', updated_at = ? WHERE status = 'sending'`),
      prune: p<[number]>(`DELETE FROM webhook_deliveries WHERE status IN ('succeeded', 'failed') AND updated_at < ?`),
    }
    // Built once: better-sqlite3's transaction() wrapper is not free, and these run per batch.
    this.claimTx = db.transaction((ids: readonly number[], signedAt: number, now: number) => {
      const out = new Map<number, Claimed>()
      for (const id of ids) {
        if (this.statements.claim.run(now, id).changes !== 1) continue
        const delivery = this.statements.deliveryById.get(id)!
        const previous = delivery.attempt_count > 1 ? this.statements.lastAttempt.get(id) : undefined
        const trigger: AttemptTrigger = !previous ? 'event' : previous.outcome === 'interrupted' ? 'resume' : 'redeliver'
        this.statements.insertAttempt.run(id, delivery.attempt_count, trigger, signedAt, now)
        out.set(id, { delivery, trigger })
      }
      return out
    })
    this.finishTx = db.transaction((items: readonly { delivery: WebhookDeliveryRow; result: AttemptResult; now: number }[]) => {
      for (const { delivery, result, now } of items) {
        this.statements.finishAttempt.run({ ...result, finished_at: now, delivery_id: delivery.id, number: delivery.attempt_count })
        this.statements.finishDelivery.run(result.outcome, now, delivery.id)
      }
    })
  }
  private readonly claimTx
  private readonly finishTx

  insertEndpoint(row: NewWebhookEndpoint): WebhookEndpointRow {
    return this.statements.insertEndpoint.get(row)!
  }
  endpoint(scope: EndpointScope, id: number): WebhookEndpointRow | undefined {
    return this.statements.endpoint.get(id, scope.organizationId, scope.environmentId)
  }
  endpointById(id: number): WebhookEndpointRow | undefined {
    return this.statements.endpointById.get(id)
  }
  endpoints(scope: EndpointScope): WebhookEndpointRow[] {
    return this.statements.endpoints.all(scope.organizationId, scope.environmentId)
  }
  countEndpoints(scope: EndpointScope): number {
    return this.statements.countEndpoints.get(scope.organizationId, scope.environmentId)!.n
  }
  /** Enabled endpoints that may receive an event of this organization (and environment, if any). */
  subscribers(organizationId: string, environmentId: string | null): WebhookEndpointRow[] {
    return this.statements.subscribers.all(organizationId, environmentId, environmentId)
  }
  /** Sets the given columns; returns the row as stored, or undefined when out of scope. */
  updateEndpoint(scope: EndpointScope, id: number, changes: Partial<NewWebhookEndpoint>): WebhookEndpointRow | undefined {
    const cols = Object.keys(changes).filter((k) => !['organization_id', 'environment_id', 'created_at', 'created_by'].includes(k))
    if (cols.length) {
      this.db
        .prepare(
          `UPDATE webhook_endpoints SET ${cols.map((c) => `${c} = @${c}`).join(', ')} WHERE id = @id AND organization_id = @org AND environment_id = @env`,
        )
        .run({ ...changes, id, org: scope.organizationId, env: scope.environmentId })
    }
    return this.endpoint(scope, id)
  }
  deleteEndpoint(scope: EndpointScope, id: number): boolean {
    return this.statements.deleteEndpoint.run(id, scope.organizationId, scope.environmentId).changes === 1
  }

  insertDelivery(endpoint: WebhookEndpointRow, eventType: string, body: string, now: number): number {
    return this.statements.insertDelivery.get(endpoint.organization_id, endpoint.environment_id, endpoint.id, eventType, body, now, now)!.id
  }
  delivery(scope: EndpointScope, id: number): WebhookDeliveryRow | undefined {
    return this.statements.delivery.get(id, scope.organizationId, scope.environmentId)
  }
  deliveryById(id: number): WebhookDeliveryRow | undefined {
    return this.statements.deliveryById.get(id)
  }
  attempts(deliveryId: number): WebhookAttemptRow[] {
    return this.statements.attempts.all(deliveryId)
  }
  lastAttempt(deliveryId: number): WebhookAttemptRow | undefined {
    return this.statements.lastAttempt.get(deliveryId)
  }

  /** A page of deliveries, newest first, each with its latest attempt; and how many match. */
  deliveries(f: DeliveryFilter): { rows: DeliveryWithLastAttempt[]; total: number } {
    const where = ['d.organization_id = @org', 'd.environment_id = @env']
    if (f.eventType) where.push('d.event_type = @eventType')
    if (f.status) where.push('d.status = @status')
    if (f.endpointId) where.push('d.endpoint_id = @endpointId')
    const args = {
      org: f.organizationId,
      env: f.environmentId,
      eventType: f.eventType,
      status: f.status,
      endpointId: f.endpointId,
      limit: f.limit,
      offset: f.offset,
    }
    const clause = where.join(' AND ')
    const total = (this.db.prepare(`SELECT count(*) AS n FROM webhook_deliveries d WHERE ${clause}`).get(args) as { n: number }).n
    const rows = this.db
      .prepare(`SELECT d.* FROM webhook_deliveries d WHERE ${clause} ORDER BY d.id DESC LIMIT @limit OFFSET @offset`)
      .all(args) as WebhookDeliveryRow[]
    return { rows: rows.map((r) => ({ ...r, last_attempt: this.lastAttempt(r.id) ?? null })), total }
  }

  /** Ids of an endpoint's pending deliveries after `afterId`, oldest first. */
  pendingIds(endpointId: number, afterId: number, limit: number): number[] {
    return this.statements.pendingIds.all(endpointId, afterId, limit).map((r) => r.id)
  }
  endpointsWithPending(): number[] {
    return this.statements.pendingEndpoints.all().map((r) => r.endpoint_id)
  }

  /**
   * pending → sending, and each attempt row opened, in one transaction. Ids no longer pending
   * (deleted with their endpoint, or claimed already) are left out of the answer.
   */
  claimMany(ids: readonly number[], signedAt: number, now: number): Map<number, Claimed> {
    return this.claimTx(ids, signedAt, now)
  }

  /** Closes each attempt and its delivery with the outcome, in one transaction. */
  finishMany(items: readonly { delivery: WebhookDeliveryRow; result: AttemptResult; now: number }[]): void {
    this.finishTx(items)
  }

  /** Deletes finished deliveries (with their attempts) last touched before `before`; pending ones stay. */
  prune(before: number): number {
    return this.statements.prune.run(before).changes
  }

  /** A finished delivery back to pending for a redelivery; false when it is pending or sending. */
  requeue(id: number, now: number): boolean {
    return this.statements.requeue.run(now, id).changes === 1
  }

  /**
   * After a stop mid-attempt: open attempts are closed as interrupted and their deliveries go back
   * to pending, to be sent again. Returns how many deliveries were put back.
   */
  resumeInterrupted(now: number): number {
    return this.db.transaction(() => {
      this.statements.interruptAttempts.run(now)
      return this.statements.resetSending.run(now).changes
    })()
  }
}
