/**
 * The controller's record of one agent reply: where it came from, how far it got, and the
 * timestamps its `metrics` event is computed from.
 */
import type { PlayoutGaps, ReplyFrame } from '../frames.js'
import type { TurnMetrics } from '../../server/protocol.js'
import type { Outbox } from './commands.js'
import type { TurnMetricsRecord } from './recorder.js'

/** Timestamps (clock ms) of one reply, for its `metrics` event. */
export interface ReplyTiming {
  speechEndAt: number | null
  finalAt: number | null
  endOfTurnAt: number | null
  firstTokenAt: number | null
  ttsFirstByteMs: number | null
  firstFrameAt: number | null
  bargeInStopMs: number | null
}

export interface Reply {
  id: string
  /** The caller's words this reply answers; null for the greeting and fixed lines. */
  userText: string | null
  /** When its generation was asked for (a preempted one: when it started early). */
  startedAt: number
  timing: ReplyTiming
  /** A frame of it has reached the caller. */
  speaking: boolean
  /** Cut (barge-in, control) or dropped before it was heard. */
  interrupted: boolean
  /** The workflow ended the call with this reply: the call ends once it is heard. */
  endsCall: boolean
  /** Keys the workflow pressed in this reply (dtmf nodes): sent once what it said before them is over. */
  digits: string
  /** The workflow's transfer node: carried out once the reply is over. */
  transferTo: string | null
}

export const noTiming = (): ReplyTiming => ({
  speechEndAt: null,
  finalAt: null,
  endOfTurnAt: null,
  firstTokenAt: null,
  ttsFirstByteMs: null,
  firstFrameAt: null,
  bargeInStopMs: null,
})

/** The first token's and the first audio byte's times, for the turn's metrics (each kept once). */
export function noteTiming(r: Reply, f: Extract<ReplyFrame, { type: 'reply_text' | 'reply_audio' }>): void {
  if (f.type === 'reply_text') r.timing.firstTokenAt ??= f.at
  else r.timing.ttsFirstByteMs ??= f.ms
}

export function newReply(id: string, userText: string | null, startedAt: number, timing: ReplyTiming = noTiming()): Reply {
  return { id, userText, startedAt, timing, speaking: false, interrupted: false, endsCall: false, digits: '', transferTo: null }
}

const span = (a: number | null, b: number | null): number | null => (a === null || b === null ? null : Math.max(0, Math.round(a - b)))

/** The reply's latency breakdown (ms), null where a step did not happen. */
export function replyMetrics(r: Reply): TurnMetricsRecord {
  const m = r.timing
  return {
    turnId: r.id,
    endpointingMs: span(m.endOfTurnAt, m.speechEndAt),
    sttMs: span(m.finalAt, m.speechEndAt),
    llmFirstTokenMs: span(m.firstTokenAt, r.startedAt),
    ttsFirstByteMs: m.ttsFirstByteMs === null ? null : Math.round(m.ttsFirstByteMs),
    engineMs: span(m.firstFrameAt, m.endOfTurnAt),
    voiceToVoiceMs: span(m.firstFrameAt, m.speechEndAt),
    bargeInStopMs: r.interrupted ? m.bargeInStopMs : null,
    interrupted: r.interrupted,
  }
}

/** The metrics a client is sent: only the figures that exist. */
export function wireMetrics(m: TurnMetricsRecord): TurnMetrics {
  const out: Record<string, number> = {}
  for (const [k, v] of Object.entries(m)) if (typeof v === 'number') out[k] = v
  return out
}

/** Gaps in snake_case, as recorded for operators. */
export const gapsRecord = (turnId: string, g: PlayoutGaps): Record<string, unknown> => ({
  turn_id: turnId,
  underruns: g.underruns,
  underrun_ms: Math.round(g.underrunMs),
  stalls: g.stalls,
  stall_ms: Math.round(g.stallMs),
  phrase_gaps: g.phraseGaps,
  phrase_gap_ms: Math.round(g.phraseGapMs),
})

/** A reply is over: the agent's words as heard (a cut line even when none were), its gaps, its metrics. */
export function reportHeard(out: Outbox, r: Reply, heard: string, interrupted: boolean, gaps: PlayoutGaps | null): void {
  if (heard || interrupted) {
    out.emit({ type: 'transcript', role: 'agent', text: heard, final: true, turnId: r.id, interrupted })
    out.do({ type: 'record', entry: { type: 'transcript', role: 'agent', text: heard, interrupted, turnId: r.id } })
  }
  // Audible gaps in the reply, for operators (and the bench): rare, so only when there were any.
  if (gaps && gaps.underruns + gaps.stalls + gaps.phraseGaps > 0) out.record('playout_gaps', gapsRecord(r.id, gaps))
  // The greeting and fixed lines answer nobody: no turn metrics.
  if (r.userText === null) return
  const metrics = replyMetrics(r)
  out.emit({ type: 'metrics', turnId: r.id, metrics: wireMetrics(metrics) })
  out.do({ type: 'record', entry: { type: 'metrics', metrics } })
}
