import type { SessionRow } from '../../db/index.js'

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

/**
 * The data of `session.completed`, the end-of-session report, for text sessions and calls alike:
 * transcript, variables, cost, latency per turn, and no recording address (as the spec says).
 */
export function completionReport(
  row: SessionRow,
  transcript: readonly unknown[],
  variables: Record<string, unknown>,
  turns: readonly ({ duration_ms: number } & Record<string, unknown>)[],
): Record<string, unknown> {
  return {
    session_uuid: row.id,
    workflow_uuid: row.workflow_id,
    version: row.workflow_version,
    channel: row.channel,
    status: row.status,
    disposition: row.disposition,
    started_at: iso(row.started_at),
    ended_at: iso(row.ended_at),
    duration_ms: (row.ended_at ?? row.updated_at) - row.started_at,
    transcript,
    variables,
    // Token counts are exact; a money amount arrives with billing (until then null, not a guess).
    cost: { prompt_tokens: row.prompt_tokens, completion_tokens: row.completion_tokens, amount_minor: null, currency: null },
    latency: { turns, average_turn_ms: turns.length ? Math.round(turns.reduce((s, t) => s + t.duration_ms, 0) / turns.length) : null },
  }
}
