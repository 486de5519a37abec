/**
 * The end-of-call report of calls a crash left active. SessionsRepo.abandonLive marks them failed
 * ("interrupted") at their last recorded activity; their recorder died before it could send
 * session.completed, so a receiver waiting for the report would wait forever. The report is built
 * from what was recorded (transcript lines, per-turn metrics, the last saved variables), the same
 * shape a call that ended normally sends, and leaves through the webhook outbox like it.
 */
import type { EventBus } from '../../core/index.js'
import type { AbandonedSession, Repos, SessionEventRow } from '../../db/index.js'
import { completionReport } from '../sessions/report.js'

export function reportAbandonedCalls(repos: Repos, bus: EventBus, abandoned: readonly AbandonedSession[]): void {
  for (const call of abandoned) {
    const scope = { organizationId: call.organization_id, environmentId: call.environment_id }
    const row = repos.sessions.get(scope, call.id)
    if (!row) continue
    const events = repos.sessions.events(call.id)
    const report = completionReport(row, transcriptOf(events), variablesOf(row.state), turnsOf(events))
    bus.publish({ type: 'session.completed', ...scope, occurredAt: call.ended_at, data: report })
  }
}

function transcriptOf(events: readonly SessionEventRow[]): { role: 'user' | 'assistant'; text: string }[] {
  const lines: { role: 'user' | 'assistant'; text: string }[] = []
  for (const e of events) {
    if (e.kind !== 'user_message' && e.kind !== 'agent_message') continue
    const text = (JSON.parse(e.data) as { text?: unknown }).text
    if (typeof text === 'string') lines.push({ role: e.kind === 'user_message' ? 'user' : 'assistant', text })
  }
  return lines
}

function turnsOf(events: readonly SessionEventRow[]): ({ duration_ms: number } & Record<string, unknown>)[] {
  return events
    .filter((e) => e.kind === 'turn')
    .map((e) => {
      const data = JSON.parse(e.data) as Record<string, unknown>
      return { ...data, duration_ms: typeof data['duration_ms'] === 'number' ? data['duration_ms'] : 0 }
    })
}

function variablesOf(state: string): Record<string, unknown> {
  const variables = (JSON.parse(state) as { variables?: unknown }).variables
  return variables !== null && typeof variables === 'object' ? (variables as Record<string, unknown>) : {}
}
