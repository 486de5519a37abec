/**
 * What a call session reports for keeping: events, transcript lines, per-turn metrics and how the
 * call ended. Persistence (batched SQLite writes, webhooks) implements this later; the session
 * never awaits it, so a recorder must not block (buffer and write elsewhere).
 */

/** Why the call ended, as recorded (finer than the wire's `ended.reason`). */
export type CallEndReason =
  | 'client_hangup'
  | 'dropped'
  /** The client broke the protocol: 4400 after malformed messages in a row, or 1007 invalid UTF-8. */
  | 'protocol_error'
  | 'agent_ended'
  | 'idle_timeout'
  | 'max_duration'
  | 'error'
  | 'server_shutdown'
  | 'ended_by_api'
  | 'transfer'

export interface TurnMetricsRecord {
  turnId: string
  endpointingMs: number | null
  sttMs: number | null
  llmFirstTokenMs: number | null
  ttsFirstByteMs: number | null
  engineMs: number | null
  voiceToVoiceMs: number | null
  /** Barge-in: the caller-audio window that decided speech had arrived → agent audio stopped. */
  bargeInStopMs: number | null
  /** The reply was cut by a barge-in. */
  interrupted: boolean
}

export interface CallRecorder {
  event(kind: string, data: Record<string, unknown>): void
  transcript(role: 'user' | 'agent', text: string, o: { interrupted: boolean; turnId: string }): void
  metrics(turn: TurnMetricsRecord): void
  ended(reason: CallEndReason): void
}

/** Keeps everything in arrays (tests, debugging). Bounded: the oldest events go first. */
export class MemoryRecorder implements CallRecorder {
  readonly events: { kind: string; data: Record<string, unknown>; at: number }[] = []
  readonly transcripts: { role: 'user' | 'agent'; text: string; interrupted: boolean; turnId: string }[] = []
  readonly turns: TurnMetricsRecord[] = []
  endReason: CallEndReason | null = null

  constructor(private readonly maxEvents = 10_000) {}

  event(kind: string, data: Record<string, unknown>): void {
    this.events.push({ kind, data, at: Date.now() })
    if (this.events.length > this.maxEvents) this.events.shift()
  }

  transcript(role: 'user' | 'agent', text: string, o: { interrupted: boolean; turnId: string }): void {
    this.transcripts.push({ role, text, ...o })
  }

  metrics(turn: TurnMetricsRecord): void {
    this.turns.push(turn)
  }

  ended(reason: CallEndReason): void {
    this.endReason ??= reason
  }
}
