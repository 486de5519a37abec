import type { DomainEvent, EventBus } from '../../core/index.js'
import type { Repos } from '../../db/index.js'
import { EVENT_TYPE_NAMES } from './catalog.js'
import type { WebhookDispatcher } from './dispatcher.js'

/**
 * Turns bus events into outbox rows: one pending delivery per subscribed, enabled endpoint,
 * written synchronously inside publish(). When the publisher runs in a transaction the rows are
 * part of it (a rolled-back change announces nothing); either way they are on disk before any
 * attempt, so a crash after this point loses no delivery.
 */
export function subscribeOutbox(bus: EventBus, repos: Repos, dispatcher: WebhookDispatcher): () => void {
  return bus.subscribe((event) => {
    if (!EVENT_TYPE_NAMES.has(event.type)) return
    const endpoints = repos.webhooks
      .subscribers(event.organizationId, event.environmentId)
      .filter((e) => (JSON.parse(e.events) as string[]).includes(event.type))
    if (!endpoints.length) return
    const body = deliveryBody(event)
    repos.transaction(() => {
      for (const endpoint of endpoints) repos.webhooks.insertDelivery(endpoint, event.type, body, event.occurredAt)
    })
    for (const endpoint of endpoints) dispatcher.notify(endpoint.id)
  })
}

/** The body every attempt sends, byte for byte: `{ "event": <type>, "data": <payload> }`. */
export function deliveryBody(event: DomainEvent): string {
  return JSON.stringify({ event: event.type, data: { ...event.data, occurred_at: new Date(event.occurredAt).toISOString() } })
}
