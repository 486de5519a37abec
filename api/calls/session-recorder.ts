/**
 * A voice call recorded as a session (channel "web", or "phone" for a call over SIP). The row is inserted when the call starts
 * (session.started). Transcript lines, events and per-turn metrics are buffered, each with the
 * time it happened: the call's own work never waits on SQLite. Every FLUSH_EVERY_MS while the call
 * is live (off the audio path, on a timer) the buffer is written in one transaction together with
 * a live mark (the session's updated_at), publishing transcript.updated for the lines it wrote; so
 * GET /calls/{uuid} follows a live call, and a crash loses at most the last FLUSH_EVERY_MS. When
 * the call ends, the rest goes out in one transaction with the runtime's final state, turn count
 * and usage, then session.completed (the report text sessions send).
 *
 * Status by end reason: agent_ended, client_hangup, dropped (the socket went away without a
 * `stop`: a closed tab is a hang-up), idle_timeout and max_duration are `completed`; error,
 * server_shutdown and protocol_error (the client broke the protocol: 4400, or 1007 invalid UTF-8)
 * are `failed` (error_code: the error's code, "server_shutdown" or "protocol_error"). A session
 * left `active` by a crash is marked failed ("interrupted") at the next start, ended at its last
 * recorded activity (SessionsRepo.abandonLive).
 */
import type { Clock, EventBus, Logger } from '../../core/index.js'
import type { Repos } from '../../db/index.js'
import type { RuntimeState } from '../../engine/graph-runtime/index.js'
import type { CallEndReason, CallRecorder, TurnMetricsRecord } from '../../engine/pipeline/call/index.js'
import { completionReport, functionCalledData, type SessionMeter } from '../sessions/report.js'

/** Billing's side of a live call (api/billing): its cost at the end, and a watch on the credit while it runs. */
export interface CallMeter extends SessionMeter {
  watchCall(
    call: { organizationId: string; callId: string; config: string; channel: 'web' | 'phone' },
    counts: () => { callMs: number; sttAudioMs: number; promptTokens: number; completionTokens: number; ttsCharacters: number },
    exhausted: () => void,
  ): (() => void) | null
}

/** Events beyond this many are counted, not kept (transcript lines and turns are always kept). */
const MAX_EVENTS = 5000
/** How often a live call's buffered events and its live mark are written. */
export const FLUSH_EVERY_MS = 2000
/** Noisy per-frame-ish events that say nothing a transcript and metrics do not. */
const SKIPPED = new Set(['speech_start', 'speech_end'])

export interface SessionCallRecorderOptions {
  repos: Repos
  bus: EventBus
  clock: Clock
  logger: Logger
  organizationId: string
  environmentId: string
  /** Null for a transient agent. */
  workflowId: string | null
  version: number | null
  definition: string
  config: string
  initial: RuntimeState
  /** The call's id, which is the session's id. */
  callId: string
  /** The row exists already (a pending call of POST /calls): open() activates it instead of inserting. */
  pending: boolean
  /** Default "web". */
  channel?: 'web' | 'phone'
  meter?: CallMeter
  /** The credit ran out mid-call: make the call say a line and end (the disposition becomes insufficient_credit). */
  outOfCredit?: () => void
}

export class SessionCallRecorder implements CallRecorder {
  readonly sessionId: string
  private readonly buffered: { kind: string; data: Record<string, unknown>; at: number }[] = []
  private readonly lines: { role: 'user' | 'assistant'; text: string }[] = []
  private readonly turns: (TurnMetricsRecord & { turn: number })[] = []
  private dropped = 0
  private events = 0
  private errorCode: string | null = null
  private usage = { p: 0, c: 0 }
  /** The engine's own counts, reported with call_ended. */
  private engineCounts = { sttAudioMs: 0, ttsCharacters: 0 }
  private spokenCharacters = 0
  private openedAt = 0
  private stopCreditWatch: (() => void) | null = null
  private creditExhausted = false
  private endReason: CallEndReason | null = null
  /** The close code of the socket_closed event, when the client's socket closed first. */
  private closeCode: number | null = null
  private finalState: () => RuntimeState
  /** Lines before this index have had their transcript.updated. */
  private announced = 0
  private flushTimer: NodeJS.Timeout | null = null
  private opened = false
  /** Settles once the session is written (or the write failed and was logged). */
  readonly done: Promise<void>
  private resolveDone!: () => void

  constructor(private readonly options: SessionCallRecorderOptions) {
    this.sessionId = options.callId
    this.finalState = () => options.initial
    this.done = new Promise((r) => (this.resolveDone = r))
  }

  /** Where the final variables come from (the call's runtime). */
  stateFrom(get: () => RuntimeState): void {
    this.finalState = get
  }

  /**
   * Inserts the active session (or activates the pending one) and announces it. False when a
   * pending call is pending no more (it expired a moment ago): nothing is announced or written later.
   */
  open(): boolean {
    const o = this.options
    const now = o.clock.now()
    if (o.pending) {
      if (!o.repos.sessions.activate({ organizationId: o.organizationId, environmentId: o.environmentId }, this.sessionId, now)) {
        this.endReason = 'error'
        this.resolveDone()
        return false
      }
    } else
      o.repos.sessions.insert({
        id: this.sessionId,
        organization_id: o.organizationId,
        environment_id: o.environmentId,
        workflow_id: o.workflowId,
        workflow_version: o.version,
        channel: o.channel ?? 'web',
        definition: o.definition,
        config: o.config,
        state: JSON.stringify(o.initial),
        started_by_user: null,
        started_by_key: null,
        started_at: now,
      })
    this.opened = true
    this.openedAt = now
    this.stopCreditWatch =
      o.meter?.watchCall(
        { organizationId: o.organizationId, callId: o.callId, config: o.config, channel: o.channel ?? 'web' },
        () => this.liveCounts(),
        () => {
          this.creditExhausted = true
          o.outOfCredit?.()
        },
      ) ?? null
    this.schedule()
    this.publish('session.started', { ...this.base(), version: o.version, channel: o.channel ?? 'web', call_id: o.callId, variables: o.initial.variables }, now)
    return true
  }

  event(kind: string, data: Record<string, unknown>): void {
    if (kind === 'usage') {
      this.usage.p += Number(data['prompt_tokens'] ?? 0) || 0
      this.usage.c += Number(data['completion_tokens'] ?? 0) || 0
    }
    if ((kind === 'error' || kind === 'runtime_error') && this.errorCode === null && typeof data['code'] === 'string') this.errorCode = data['code']
    if (kind === 'socket_closed' && typeof data['code'] === 'number') this.closeCode = data['code']
    if (kind === 'call_ended') this.engineCounts = { sttAudioMs: Number(data['stt_audio_ms']) || 0, ttsCharacters: Number(data['tts_characters']) || 0 }
    if (kind === 'tool_call') {
      // Announced when it happens (a receiver may act on it during the call), but off the audio
      // path: publishing writes the webhook outbox.
      const payload = functionCalledData(this.base(), data)
      setImmediate(() => this.publish('function.called', payload, this.options.clock.now()))
    }
    if (SKIPPED.has(kind)) return
    if (this.events >= MAX_EVENTS) {
      this.dropped++
      return
    }
    this.events++
    const at = this.options.clock.now()
    this.buffered.push({ kind, data: { ...data, at_ms: at }, at })
  }

  transcript(role: 'user' | 'agent', text: string, o: { interrupted: boolean; turnId: string }): void {
    this.lines.push({ role: role === 'agent' ? 'assistant' : 'user', text })
    if (role === 'agent') this.spokenCharacters += text.length
    this.buffered.push({
      kind: role === 'agent' ? 'agent_message' : 'user_message',
      data: { text, turn_id: o.turnId, interrupted: o.interrupted },
      at: this.options.clock.now(),
    })
  }

  metrics(turn: TurnMetricsRecord): void {
    const t = { ...turn, turn: this.turns.length + 1 }
    this.turns.push(t)
    this.buffered.push({
      kind: 'turn',
      data: { turn: t.turn, duration_ms: turn.voiceToVoiceMs ?? turn.engineMs ?? 0, ...snake(turn) },
      at: this.options.clock.now(),
    })
  }

  private schedule(): void {
    if (this.flushTimer !== null || this.endReason !== null || !this.opened) return
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null
      this.flush()
    }, FLUSH_EVERY_MS)
    this.flushTimer.unref()
  }

  /**
   * Writes what is buffered and the live mark (one transaction), announces the lines it wrote,
   * and comes back in FLUSH_EVERY_MS while the call lasts: a call silent for minutes is still
   * marked live, so a crash's record ends within FLUSH_EVERY_MS of where the call really stopped.
   */
  private flush(): void {
    if (this.endReason !== null) return
    const now = this.options.clock.now()
    const batch = this.buffered.splice(0)
    try {
      this.options.repos.sessions.appendEvents(this.sessionId, batch, now)
    } catch (err) {
      // Kept for the next batch or the final write; the call goes on either way.
      this.buffered.unshift(...batch)
      this.options.logger.warn({ err, session_id: this.sessionId }, 'web call: a batch of events could not be written yet')
      return this.schedule()
    }
    this.announceLines(now)
    this.schedule()
  }

  private announceLines(now: number): void {
    for (const line of this.lines.slice(this.announced)) this.publish('transcript.updated', { ...this.base(), role: line.role, text: line.text }, now)
    this.announced = this.lines.length
  }

  ended(reason: CallEndReason): void {
    if (this.endReason !== null) return
    this.endReason = reason
    this.stopCreditWatch?.()
    if (this.flushTimer !== null) clearTimeout(this.flushTimer)
    this.flushTimer = null
    // Off the call's path: the session's last frames and close go out first.
    setImmediate(() => {
      try {
        this.write(reason)
      } catch (err) {
        this.options.logger.error({ err, session_id: this.sessionId }, 'web call: the session could not be recorded')
      } finally {
        this.resolveDone()
      }
    })
  }

  private write(reason: CallEndReason): void {
    const o = this.options
    const now = o.clock.now()
    const state = structuredClone(this.finalState())
    const disposition =
      reason === 'agent_ended' && state.disposition ? state.disposition : reason === 'ended_by_api' && this.creditExhausted ? 'insufficient_credit' : reason
    // The graph runtime ends a call it failed on itself (runtime_error, template_too_large) with
    // disposition "error": a failure with its code, as the same failure in a text session is.
    const runtimeFailed = disposition === 'error' && this.errorCode !== null
    const failed = reason === 'error' || reason === 'server_shutdown' || reason === 'protocol_error' || runtimeFailed
    state.ended = true
    state.nodeId = null
    state.disposition = disposition
    const errorCode = failed ? (reason === 'error' || runtimeFailed ? (this.errorCode ?? 'internal_error') : reason) : null
    if (this.dropped) this.buffered.push({ kind: 'events_dropped', data: { count: this.dropped }, at: now })
    this.buffered.push({ kind: 'end', data: { disposition, reason, ...(this.closeCode !== null && { close_code: this.closeCode }) }, at: now })
    o.repos.sessions.saveTurn(
      this.sessionId,
      {
        state: JSON.stringify(state),
        status: failed ? 'failed' : 'completed',
        disposition,
        turns: this.turns.length,
        prompt_tokens: this.usage.p,
        completion_tokens: this.usage.c,
        error_code: errorCode,
        ended_at: now,
      },
      this.buffered.splice(0),
      now,
    )
    this.announceLines(now)
    const row = o.repos.sessions.get({ organizationId: o.organizationId, environmentId: o.environmentId }, this.sessionId)!
    const turns = this.turns.map((t) => ({ turn: t.turn, duration_ms: t.voiceToVoiceMs ?? t.engineMs ?? 0, ...snake(t) }))
    const cost = o.meter?.settle(row, this.engineCounts)
    this.publish('session.completed', completionReport(row, this.lines, state.variables, turns, cost), now)
  }

  /** What the call has used so far (the engine's exact counts arrive when it ends; until then the call's length and the lines said). */
  private liveCounts() {
    const callMs = Math.max(0, this.options.clock.now() - this.openedAt)
    return { callMs, sttAudioMs: callMs, promptTokens: this.usage.p, completionTokens: this.usage.c, ttsCharacters: this.spokenCharacters }
  }

  private base() {
    return { session_uuid: this.sessionId, workflow_uuid: this.options.workflowId }
  }

  private publish(type: string, data: Record<string, unknown>, now: number): void {
    this.options.bus.publish({ type, organizationId: this.options.organizationId, environmentId: this.options.environmentId, occurredAt: now, data })
  }
}

function snake(t: TurnMetricsRecord) {
  return {
    turn_id: t.turnId,
    endpointing_ms: t.endpointingMs,
    stt_ms: t.sttMs,
    llm_first_token_ms: t.llmFirstTokenMs,
    tts_first_byte_ms: t.ttsFirstByteMs,
    engine_ms: t.engineMs,
    voice_to_voice_ms: t.voiceToVoiceMs,
    barge_in_stop_ms: t.bargeInStopMs,
    interrupted: t.interrupted,
  }
}
