import { randomUUID } from 'node:crypto'
import type { Clock, EventBus, Logger } from '../../core/index.js'
import type { Repos, SessionRow, WorkflowRow } from '../../db/index.js'
import { type AgentConfig, GraphRuntime, initialState, type RuntimeEvent, type RuntimeState } from '../../engine/graph-runtime/index.js'
import type { CallControl } from '../../engine/calls/index.js'
import { ApiError } from '../http/errors.js'
import { upstreamApiError } from '../http/upstream.js'
import type { Principal } from '../security/principal.js'
import type { RawBody } from '../http/raw.js'
import type { TurnFields } from './schema.js'
import { functionCalledData, type SessionMeter, textSessionReport } from './report.js'
import type { VoiceProviders } from './voice-providers.js'
import { storedConfig, storedDefinition } from './stored-agent.js'
import { type AgentProviderSources, agentRuntimeIO, agentVoice } from './agent-providers.js'
import { SessionLocks } from './session-locks.js'
import { type Heard, speechUsageEvents, voiceTurn } from './voice-turn.js'
import { sessionDetail, sessionEvent, sessionSummary } from './views.js'
import { analysisView } from '../analysis/index.js'

/** A text turn that takes longer than this is aborted (the session stays as it was). */
export const TURN_TIMEOUT_MS = 120_000

/** The LLM, tools, knowledge and voice providers come from AgentProviderSources (agent-providers.ts). */
export interface SessionDeps extends AgentProviderSources {
  repos: Repos
  bus: EventBus
  clock: Clock
  logger: Logger
  /**
   * Deadline of a whole turn (every LLM round and tool call), default TURN_TIMEOUT_MS. It bounds
   * what the provider's own timeouts do not: a reply trickling in just under them, or many rounds.
   */
  turnTimeoutMs?: number
  meter?: SessionMeter
}

/** What a session runs: a workflow's version (null: its draft), or a transient agent (workflowId null). */
export interface SessionAgent {
  workflowId: string | null
  version: number | null
  definition: string
  config: string
}

interface Which {
  use_draft: boolean
  version?: number
}

const scope = (p: Principal) => ({ organizationId: p.organizationId, environmentId: p.environmentId })

/** Text sessions and single text runs over the graph runtime. */
export class SessionService {
  /** Messages to one session run one after another, never interleaved. */
  private readonly locks = new SessionLocks()

  constructor(private readonly deps: SessionDeps) {}

  async start(p: Principal, workflowId: string, input: Which & { variables: Record<string, unknown> }, channel: 'chat' | 'run' = 'chat') {
    const wf = this.workflow(p, workflowId)
    const { definition, config, version } = this.pick(wf, input)
    const turn = await this.open(p, { workflowId: wf.id, version, definition, config }, input.variables, channel)
    return { ...turn, workflow_id: wf.id, version }
  }

  /**
   * Inserts a session of `agent` (a workflow's version, or a transient agent: workflowId null) and
   * runs its opening. A failed opening removes the session unannounced: starting again is the retry.
   */
  async open(p: Principal, agent: SessionAgent, variables: Record<string, unknown>, channel: 'chat' | 'run'): Promise<TurnFields> {
    this.deps.meter?.assertCredit(p.organizationId)
    const { row: newRow } = newSession(p, agent, variables, channel, this.deps.clock.now())
    const id = newRow.id
    this.deps.repos.sessions.insert(newRow)
    const row = this.deps.repos.sessions.get(scope(p), id)!
    return this.locks.run(id, async () => {
      try {
        return await this.advance(p, row, null)
      } catch (err) {
        this.deps.repos.sessions.discard(scope(p), id)
        throw err
      }
    })
  }

  /** A typed caller turn on a session found by id alone (POST /calls/{uuid}/messages). */
  messageById(p: Principal, sessionId: string, text: string): Promise<TurnFields> {
    return this.callerTurn(p, null, sessionId, () => ({ text }))
  }

  /**
   * Live control of a text session, applied here (its "worker" is the API): `say` adds an agent
   * line, `end` and `transfer` close it (disposition ended_by_api / transfer). Returns 1 when
   * applied, 0 when the session had already ended.
   */
  control(p: Principal, sessionId: string, m: CallControl): Promise<number> {
    return this.locks.run(sessionId, () => {
      const row = this.deps.repos.sessions.get(scope(p), sessionId)
      if (!row) throw new ApiError('not_found')
      if (row.status !== 'active') return 0
      const now = this.deps.clock.now()
      const base = { session_uuid: row.id, workflow_uuid: row.workflow_id }
      if (m.action === 'say') {
        const state = JSON.parse(row.state) as RuntimeState
        state.history.push({ role: 'assistant', text: m.text })
        this.deps.repos.sessions.saveTurn(
          row.id,
          {
            state: JSON.stringify(state),
            status: 'active',
            disposition: row.disposition,
            turns: 0,
            prompt_tokens: 0,
            completion_tokens: 0,
            error_code: row.error_code,
            ended_at: null,
          },
          [{ kind: 'agent_message', data: { text: m.text, source: 'control' } }],
          now,
        )
        this.publish(p, 'transcript.updated', { ...base, role: 'assistant', text: m.text }, now)
      } else if (m.action === 'end') {
        this.close(p, row, 'completed', 'ended_by_api', row.error_code, [{ kind: 'control', data: { action: 'end' } }])
      } else {
        this.close(p, row, 'completed', 'transfer', row.error_code, [{ kind: 'transfer', data: { target: m.target } }])
      }
      return 1
    })
  }

  message(p: Principal, workflowId: string, sessionId: string, text: string): Promise<TurnFields> {
    return this.callerTurn(p, workflowId, sessionId, () => ({ text }))
  }

  /** A spoken turn (voice-turn.ts): transcribed, run as message() is, and answered as a WAV. */
  voice(p: Principal, workflowId: string, sessionId: string, body: RawBody) {
    return voiceTurn({
      body,
      sessionId,
      logger: this.deps.logger,
      timeoutMs: this.deps.turnTimeoutMs ?? TURN_TIMEOUT_MS,
      voiceFor: (config) => this.voiceProviders(p.organizationId, config),
      callerTurn: (hear) => this.callerTurn(p, workflowId, sessionId, hear),
    })
  }

  /** Start plus at most one caller turn, recorded as a session of channel "run" and completed. */
  async run(p: Principal, workflowId: string, input: Which & { variables: Record<string, unknown>; input?: string }) {
    const opening = await this.start(p, workflowId, input, 'run')
    const row = this.deps.repos.sessions.get(scope(p), opening.session_id)!
    const reply =
      input.input !== undefined && !opening.ended
        ? await this.locks.run(row.id, async () => {
            try {
              return await this.advance(p, row, { text: input.input! })
            } catch (err) {
              // The run was announced and is over: recorded failed, never left waiting for a message.
              this.close(p, this.deps.repos.sessions.get(scope(p), row.id)!, 'failed', 'error', err instanceof ApiError ? err.code : 'internal_error')
              throw err
            }
          })
        : null
    const last = reply ?? opening
    const messages = [...opening.messages, ...(reply?.messages ?? [])]
    if (!last.ended) this.close(p, this.deps.repos.sessions.get(scope(p), row.id)!, 'completed', 'run_completed')
    const final = this.deps.repos.sessions.get(scope(p), row.id)!
    return {
      ...last,
      status: final.status,
      disposition: final.disposition,
      ended: true,
      messages,
      output: messages.join(' '),
      reply: last.reply,
      workflow_id: opening.workflow_id,
      version: opening.version,
    }
  }

  /**
   * What a live call of a workflow runs: the newest published version (not_found for a workflow
   * outside the scope, no_published_version without one).
   */
  published(
    s: { organizationId: string; environmentId: string },
    workflowId: string,
  ): { workflow: WorkflowRow; definition: string; config: string; version: number } {
    const wf = this.deps.repos.workflows.get(s, workflowId)
    if (!wf) throw new ApiError('not_found')
    const { definition, config, version } = this.pick(wf, { use_draft: false })
    return { workflow: wf, definition, config, version: version! }
  }

  /** The runtime's io for a session of the scope: what text turns get too (agent-providers.ts). */
  runtimeIO(s: { organizationId: string; environmentId: string }) {
    return agentRuntimeIO(this.deps, s)
  }

  /** STT and TTS for an agent config, as voice turns get them; throws ApiError provider_not_configured. */
  voiceProviders(organizationId: string, config: AgentConfig): VoiceProviders {
    return agentVoice(this.deps, organizationId, config)
  }

  detail(p: Principal, workflowId: string, sessionId: string) {
    const row = this.session(p, workflowId, sessionId)
    return sessionDetail(row, analysisView(row, this.deps.repos.analysis.get(row.id)))
  }

  events(p: Principal, workflowId: string, sessionId: string, at: { limit: number; offset: number }) {
    const page = this.deps.repos.sessions.eventsPage(this.session(p, workflowId, sessionId).id, at)
    return { items: page.items.map(sessionEvent), total: page.total }
  }

  list(p: Principal, q: { workflow_uuid?: string; status?: SessionRow['status']; channel?: SessionRow['channel']; limit: number; offset: number }) {
    const page = this.deps.repos.sessions.page(scope(p), {
      workflowId: q.workflow_uuid ?? null,
      status: q.status ?? null,
      channel: q.channel ?? null,
      limit: q.limit,
      offset: q.offset,
    })
    return { items: page.items.map(sessionSummary), total: page.total }
  }

  /**
   * One caller turn on an active session of the workflow: `hear` gives the caller's words (the
   * text as sent, or a transcription) and runs inside the session's lock, so turns of one session,
   * spoken or typed, never interleave.
   */
  private callerTurn(p: Principal, workflowId: string | null, sessionId: string, hear: (row: SessionRow) => Heard | Promise<Heard>): Promise<TurnFields> {
    return this.locks.run(sessionId, async () => {
      const row = this.session(p, workflowId, sessionId)
      // A web or phone call's runtime lives in the engine: a typed turn here would fork its state.
      if (row.channel === 'web' || row.channel === 'phone') throw new ApiError('voice_session')
      if (row.status !== 'active') throw new ApiError('session_ended')
      return this.advance(p, row, await hear(row))
    })
  }

  /** Runs the opening (heard null) or one caller turn, then stores the outcome in one transaction. */
  private async advance(p: Principal, row: SessionRow, heard: Heard | null): Promise<TurnFields> {
    const text = heard?.text ?? null
    const def = storedDefinition(row.definition)
    const config = storedConfig(row.config)
    const io = this.runtimeIO({ organizationId: row.organization_id, environmentId: row.environment_id })
    const runtime = new GraphRuntime(def, config, io, JSON.parse(row.state) as RuntimeState, {
      session_id: row.id,
      channel: row.channel === 'run' ? 'chat' : row.channel,
    })
    const started = this.deps.clock.now()
    const signal = AbortSignal.timeout(this.deps.turnTimeoutMs ?? TURN_TIMEOUT_MS)
    const seen: RuntimeEvent[] = []
    try {
      for await (const e of text === null ? runtime.start(signal) : runtime.turn(text, signal)) seen.push(e)
    } catch (err) {
      throw upstreamError(err, signal)
    }
    // A missing LLM is a configuration problem, not a turn: nothing is stored, so the caller can
    // configure one and send the same message again.
    const missing = seen.find((e) => e.type === 'error' && e.code === 'provider_not_configured')
    if (missing) throw new ApiError('provider_not_configured')

    const state = runtime.state
    const now = this.deps.clock.now()
    const says = seen.flatMap((e) => (e.type === 'say' ? [e.text] : []))
    const usage = seen.reduce((u, e) => (e.type === 'usage' ? { p: u.p + e.prompt_tokens, c: u.c + e.completion_tokens } : u), { p: 0, c: 0 })
    const failed = state.ended && state.disposition === 'error'
    const stored = [
      ...(text === null ? [] : [{ kind: 'user_message', data: { text } }]),
      // Stored rows name the event in `kind` (a persisted format the events API serves): the runtime's `type` maps onto it.
      ...seen.filter((e) => e.type !== 'text_delta').map(({ type, ...data }) => ({ kind: type === 'say' ? 'agent_message' : type, data })),
      { kind: 'turn', data: { turn: row.turn_count + 1, duration_ms: now - started } },
      ...speechUsageEvents(heard, says),
    ]
    const errorCode = seen.find((e): e is Extract<RuntimeEvent, { type: 'error' }> => e.type === 'error')?.code ?? null
    this.deps.repos.sessions.saveTurn(
      row.id,
      {
        state: JSON.stringify(state),
        status: state.ended ? (failed ? 'failed' : 'completed') : 'active',
        disposition: state.disposition,
        turns: 1,
        prompt_tokens: usage.p,
        completion_tokens: usage.c,
        error_code: errorCode,
        ended_at: state.ended ? now : null,
      },
      stored,
      now,
    )
    const base = { session_uuid: row.id, workflow_uuid: row.workflow_id }
    // Announced once the opening has run, so a start that fails announces nothing.
    if (text === null)
      this.publish(
        p,
        'session.started',
        { ...base, version: row.workflow_version, channel: row.channel, variables: (JSON.parse(row.state) as RuntimeState).variables },
        row.started_at,
      )
    else this.publish(p, 'transcript.updated', { ...base, role: 'user', text }, now)
    for (const line of says) this.publish(p, 'transcript.updated', { ...base, role: 'assistant', text: line }, now)
    for (const e of seen) if (e.type === 'tool_call') this.publish(p, 'function.called', functionCalledData(base, e), now)
    if (state.ended) this.report(p, this.deps.repos.sessions.get(scope(p), row.id)!)
    return {
      session_id: row.id,
      status: state.ended ? (failed ? 'failed' : 'completed') : 'active',
      messages: says,
      reply: says.join(' '),
      node_id: state.nodeId,
      variables: state.variables,
      ended: state.ended,
      disposition: state.disposition,
    }
  }

  private close(
    p: Principal,
    row: SessionRow,
    status: 'completed' | 'failed',
    disposition: string,
    errorCode = row.error_code,
    before: { kind: string; data: unknown }[] = [],
  ): void {
    const now = this.deps.clock.now()
    const state = JSON.parse(row.state) as RuntimeState
    state.ended = true
    state.nodeId = null
    state.disposition = disposition
    this.deps.repos.sessions.saveTurn(
      row.id,
      { state: JSON.stringify(state), status, disposition, turns: 0, prompt_tokens: 0, completion_tokens: 0, error_code: errorCode, ended_at: now },
      [...before, { kind: 'end', data: { disposition } }],
      now,
    )
    this.report(p, this.deps.repos.sessions.get(scope(p), row.id)!)
  }

  /** session.completed: the end-of-session report (no recording address, as the spec says). */
  private report(p: Principal, row: SessionRow): void {
    this.publish(p, 'session.completed', textSessionReport(row, this.deps.repos.sessions.events(row.id), this.deps.meter), this.deps.clock.now())
  }

  private publish(p: Principal, type: string, data: Record<string, unknown>, now: number): void {
    this.deps.bus.publish({ type, organizationId: p.organizationId, environmentId: p.environmentId, occurredAt: now, data })
  }

  private pick(wf: WorkflowRow, which: Which): { definition: string; config: string; version: number | null } {
    if (which.use_draft) return { definition: wf.draft_definition, config: wf.draft_config, version: null }
    const number = which.version ?? wf.latest_version
    if (number === null) throw new ApiError('no_published_version')
    const v = this.deps.repos.workflows.version(wf.id, number)
    if (!v) throw new ApiError('unknown_version')
    return { definition: v.definition, config: v.config, version: number }
  }

  private workflow(p: Principal, id: string): WorkflowRow {
    const wf = this.deps.repos.workflows.get(scope(p), id)
    if (!wf) throw new ApiError('not_found')
    return wf
  }

  /** A session of the scope; with a workflowId, only one of that workflow. */
  private session(p: Principal, workflowId: string | null, sessionId: string): SessionRow {
    const row = this.deps.repos.sessions.get(scope(p), sessionId)
    if (!row || (workflowId !== null && row.workflow_id !== workflowId)) throw new ApiError('not_found')
    return row
  }
}

/** A provider failure, or the turn timeout, as the spec's 502/503. */
function upstreamError(err: unknown, signal: AbortSignal): unknown {
  if (signal.aborted && !(err instanceof ApiError)) return new ApiError('service_unavailable')
  return upstreamApiError(err)
}

/**
 * A new session of `agent` started by `p` at `now`, as the sessions table takes it (active unless
 * the caller says pending), with its runtime state: the one place a session row is made from an
 * agent, for text sessions and runs here and for voice calls (api/calls).
 */
export function newSession(p: Principal, agent: SessionAgent, variables: Record<string, unknown>, channel: SessionRow['channel'], now: number) {
  const state = initialState(storedDefinition(agent.definition), variables)
  const row = {
    id: randomUUID(),
    organization_id: p.organizationId,
    environment_id: p.environmentId,
    workflow_id: agent.workflowId,
    workflow_version: agent.version,
    channel,
    definition: agent.definition,
    config: agent.config,
    state: JSON.stringify(state),
    started_by_user: p.userId,
    started_by_key: p.apiKeyId,
    started_at: now,
  }
  return { row, state }
}
