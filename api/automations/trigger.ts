/**
 * Turns a bus event into automation runs: one pending run per enabled automation of the event's
 * organization and environment whose trigger names the event type and whose filter passes. It
 * runs synchronously inside publish(), like the webhook outbox: when the publisher is inside a
 * transaction the runs are part of it (a rolled-back change starts nothing), and either way they
 * are on disk before any attempt, so a crash after this point loses no run.
 */
import { createHash, randomUUID } from 'node:crypto'
import type { DomainEvent } from '../../core/index.js'
import type { Repos } from '../../db/index.js'
import { EVENT_TYPE_NAMES } from '../webhooks/catalog.js'
import { deliveryBody } from '../webhooks/outbox.js'
import { passes } from './filter.js'

/** Queues the runs an event starts; returns how many were queued. */
export function queueRuns(repos: Repos, event: DomainEvent, now: number): number {
  if (!EVENT_TYPE_NAMES.has(event.type)) return 0
  const automations = repos.automations.triggered(event.organizationId, event.environmentId, event.type)
  if (!automations.length) return 0
  // The body a webhook receives, byte for byte: filters and templates read the same { event, data }.
  const payload = deliveryBody(event)
  const view = JSON.parse(payload) as Record<string, unknown>
  const eventKey = createHash('sha256').update(payload).digest('hex')
  const matching = automations.filter((a) => passes(a.filter === null ? null : JSON.parse(a.filter), view))
  if (!matching.length) return 0
  return repos.transaction(() => {
    let queued = 0
    for (const a of matching) {
      const run = {
        id: randomUUID(),
        automation_id: a.id,
        organization_id: a.organization_id,
        environment_id: a.environment_id,
        event_type: event.type,
        event_key: eventKey,
        payload,
      }
      if (repos.automationRuns.insert(run, now)) queued++
    }
    return queued
  })
}
