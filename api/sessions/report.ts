import type { SessionRow } from '../../db/index.js'

/** What a session cost (api/billing's Cost): itemised lines and their sum in minor units. */
export interface SessionCost {
  items: readonly unknown[]
  amount_minor: number
  currency: string
}

/**
 * Prices and records what an ended session used (api/billing); the engine's counts are what its
 * row does not hold. Absent (a bare SessionService in tests), or billing off: the report's amount stays null.
 */
export interface SessionMeter {
  /** Null when billing is off: nothing is metered. */
  settle(row: SessionRow, counts: { sttAudioMs: number; ttsCharacters: number }): SessionCost | null
  /** 402 insufficient_credit when billing is on and the organization's balance is exhausted. */
  assertCredit(organizationId: string): void
}

/** The event a spoken turn of a text session records its speech usage in (service.ts advance). */
export const SPEECH_USAGE_EVENT = 'speech_usage'

/**
 * A text session's engine counts: its tokens are on its row, its spoken turns' audio into STT and
 * characters into TTS in their `speech_usage` events.
 */
export function textSessionCounts(events: readonly { kind: string; data: string }[]): { sttAudioMs: number; ttsCharacters: number } {
  const counts = { sttAudioMs: 0, ttsCharacters: 0 }
  for (const e of events) {
    if (e.kind !== SPEECH_USAGE_EVENT) continue
    const d = JSON.parse(e.data) as { stt_audio_ms?: unknown; tts_characters?: unknown }
    if (typeof d.stt_audio_ms === 'number') counts.sttAudioMs += d.stt_audio_ms
    if (typeof d.tts_characters === 'number') counts.ttsCharacters += d.tts_characters
  }
  return counts
}

/** The data of `function.called`, for text sessions and calls alike (`tool`: a library tool's id, name and version). */
export function functionCalledData(
  base: Record<string, unknown>,
  e: { call_id?: unknown; integration?: unknown; action?: unknown; input?: unknown; tool?: unknown },
): Record<string, unknown> {
  return { ...base, call_id: e.call_id, integration: e.integration, action: e.action, input: e.input, ...(e.tool !== undefined && { tool: e.tool }) }
}

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
  cost: SessionCost | null | undefined = null,
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
    // Token counts are exact; the amount is the metered cost (api/billing), null when nothing metered it.
    cost: {
      prompt_tokens: row.prompt_tokens,
      completion_tokens: row.completion_tokens,
      amount_minor: cost?.amount_minor ?? null,
      currency: cost?.currency ?? null,
      ...(cost && { items: cost.items }),
    },
    latency: { turns, average_turn_ms: turns.length ? Math.round(turns.reduce((s, t) => s + t.duration_ms, 0) / turns.length) : null },
  }
}

/**
 * A text session's report: its turns from its stored `turn` events, its history and variables from
 * its final state, its cost from the meter (null when billing is off or no meter is wired).
 */
export function textSessionReport(
  row: SessionRow,
  events: readonly { kind: string; data: string }[],
  meter: SessionMeter | undefined,
): Record<string, unknown> {
  const state = JSON.parse(row.state) as { history: unknown[]; variables: Record<string, unknown> }
  const turns = events.filter((e) => e.kind === 'turn').map((e) => JSON.parse(e.data) as { turn: number; duration_ms: number })
  return completionReport(row, state.history, state.variables, turns, meter?.settle(row, textSessionCounts(events)))
}
