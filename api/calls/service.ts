import { randomUUID } from 'node:crypto'
import type { Clock, Config } from '../../core/index.js'
import type { PhoneNumberRow, Repos, SessionChannel, SessionRow } from '../../db/index.js'
import { AgentConfig, initialState, type RuntimeState } from '../../engine/graph-runtime/index.js'
import {
  InProcessCallControlBus,
  InProcessLiveCalls,
  MAX_VARIABLES_BYTES,
  WebCallTokenError,
  WebCallTokens,
  type CallControl,
  type CallControlBus,
  type LiveCalls,
  type MintRequest,
} from '../../engine/calls/index.js'
import { ApiError } from '../http/errors.js'
import { ValidationError } from '../http/validation.js'
import type { Principal } from '../security/principal.js'
import { newSession, type SessionAgent, type SessionService } from '../sessions/service.js'
import { assertValid } from '../workflows/service.js'
import type { CallCreateT, CallListQueryT, PHONE_STATUSES } from './schema.js'
import { assertVoiceReady } from './voice-readiness.js'
import { storedDefinition } from '../sessions/stored-agent.js'
import type { EntitlementGuard } from '../entitlements/index.js'
import type { BillingService, Cost } from '../billing/index.js'
import { analysisView } from '../analysis/index.js'

/** What web calls share between the API (minting) and the engine (admitting): one of each per process. */
export interface WebCalls {
  tokens: WebCallTokens
  liveCalls: LiveCalls
  /** The ws(s):// base URL of the engine's socket path, without query (the engine's bound port once it runs). */
  wsUrl(): string
  /** Told the port the engine bound (the default wsUrl() names it). */
  bound?(port: number): void
  /** Carries POST /calls/{uuid}/control to the engine worker holding the call. */
  control: CallControlBus
}

/** The process's own web-call state: tokens signed with the platform key, an in-process cap. */
export function localWebCalls(o: {
  config: Config
  key: Uint8Array
  repo: Repos['webCallTokens']
  clock: Clock
  /** An organization's live-call cap now (the plan's, api/entitlements); default OZAN_MAX_LIVE_CALLS_PER_ORG. */
  capFor?: (organizationId: string) => number
}): WebCalls {
  const { config } = o
  let port = config.enginePort
  const host = config.engineHost === '0.0.0.0' || config.engineHost === '::' ? 'localhost' : config.engineHost
  return {
    tokens: new WebCallTokens({ key: o.key, repo: o.repo, clock: o.clock, ttlS: config.webCallTokenTtlS }),
    liveCalls: new InProcessLiveCalls(o.capFor ?? (() => config.maxLiveCallsPerOrg)),
    control: new InProcessCallControlBus(),
    wsUrl: () => `${config.enginePublicUrl ?? `ws://${host.includes(':') ? `[${host}]` : host}:${port}`}${WEB_CALL_PATH}`,
    bound(p) {
      port = p
    },
  }
}

export const WEB_CALL_PATH = '/v1/calls/ws'

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())
const scopeOf = (p: Principal) => ({ organizationId: p.organizationId, environmentId: p.environmentId })
/** What each `channel` value of GET /calls lists. */
const LISTED: Record<NonNullable<CallListQueryT['channel']>, SessionChannel[]> = {
  calls: ['web', 'phone'],
  chat: ['chat'],
  sessions: ['chat', 'run', 'web', 'phone'],
}

/** Places phone calls: telephony's SIP service, once it listens (api/calls/telephony.ts attaches it). */
export interface PhoneDialer {
  dial(r: { callId: string; from: PhoneNumberRow; to: string; workflowId: string | null }): void
}

/** How long a placed call may stay pending (ringing included) before the record gives up on it (a crash's safety net). */
const PHONE_PENDING_MS = 10 * 60_000
const E164 = /^\+[1-9][0-9]{1,14}$/

export class CallService {
  #dialer: PhoneDialer | null = null

  constructor(
    private readonly deps: {
      sessions: SessionService
      webCalls: WebCalls
      clock: Clock
      repos: Repos
      /** Plan features, monthly minutes and the web_calls flag (402 quota_exceeded, 403 feature_disabled). */
      quota: Pick<EntitlementGuard, 'assertVoiceCall'>
      /** 402 insufficient_credit before a call starts; each ended call's metered cost (api/billing). */
      billing?: Pick<BillingService, 'assertCredit' | 'costOf'>
    },
  ) {}

  /** The SIP service places phone calls from now on (null: POST /calls with channel phone is refused again). */
  attachDialer(dialer: PhoneDialer | null): void {
    this.#dialer = dialer
  }

  /**
   * A single-use token for one browser call of a published agent of the caller's environment;
   * provider_not_configured when the call could not run (checked as the engine will on connect).
   */
  async webToken(p: Principal, body: { workflow_uuid: string; variables?: Record<string, unknown> | undefined }) {
    const scope = scopeOf(p)
    const picked = this.deps.sessions.published(scope, body.workflow_uuid)
    const { workflow } = picked
    if (body.variables !== undefined && Buffer.byteLength(JSON.stringify(body.variables)) > MAX_VARIABLES_BYTES) throw variablesTooLarge(['body', 'variables'])
    assertVoiceReady(this.deps.sessions, scope, picked)
    this.deps.quota.assertVoiceCall(p.organizationId, 'web')
    this.deps.billing?.assertCredit(p.organizationId)
    if (!this.deps.webCalls.liveCalls.hasRoom(p.organizationId)) throw new ApiError('concurrency_limit')
    const minted = await this.mint({ ...scope, workflowId: workflow.id, ...(body.variables !== undefined && { variables: body.variables }) })
    return { token: minted.token, ws_url: this.wsUrl(minted.token), expires_at: new Date(minted.expiresAt).toISOString() }
  }

  /**
   * POST /calls. chat: a text session whose opening runs now. web: a call waiting (pending) for its
   * browser, which connects with the returned token; the session row holds the agent snapshot and
   * the variables. phone: refused until telephony exists. No idempotency: a retry is a new call.
   */
  async create(p: Principal, body: CallCreateT) {
    if (body.channel === 'phone') return this.dial(p, body)
    const agent = this.agent(p, body)
    if (body.channel === 'chat') {
      const turn = await this.deps.sessions.open(p, agent, body.variables, 'chat')
      const row = this.deps.repos.sessions.get(scopeOf(p), turn.session_id)!
      return {
        ...callFields(row),
        created_at: iso(row.started_at)!,
        variables: turn.variables,
        messages: turn.messages,
        ended: turn.ended,
        disposition: turn.disposition,
      }
    }
    if (Buffer.byteLength(JSON.stringify(body.variables)) > MAX_VARIABLES_BYTES) throw variablesTooLarge(['body', 'variables'])
    assertVoiceReady(this.deps.sessions, scopeOf(p), agent)
    this.deps.quota.assertVoiceCall(p.organizationId, 'web')
    this.deps.billing?.assertCredit(p.organizationId)
    // The cap counts live voice calls; a pending one takes its slot when the browser connects.
    if (!this.deps.webCalls.liveCalls.hasRoom(p.organizationId)) throw new ApiError('concurrency_limit')
    const { id, state, now } = this.insertPending(p, agent, body.variables, 'web', this.deps.webCalls.tokens.ttlS * 1000)
    let minted
    try {
      minted = await this.mint({ ...scopeOf(p), workflowId: agent.workflowId, callId: id })
    } catch (err) {
      this.deps.repos.sessions.discard(scopeOf(p), id)
      throw err
    }
    const row = this.deps.repos.sessions.get(scopeOf(p), id)!
    return {
      ...callFields(row),
      created_at: iso(now)!,
      variables: state.variables,
      token: minted.token,
      ws_url: this.wsUrl(minted.token),
      expires_at: new Date(minted.expiresAt).toISOString(),
    }
  }

  /**
   * An outbound phone call: recorded pending (phone_status queued) and handed to the SIP service,
   * which dials through the `from` number's trunk. The live-call cap is checked when the callee
   * answers (the spec: refused when it connects), not here.
   */
  private dial(p: Principal, body: CallCreateT) {
    const dialer = this.#dialer
    if (!dialer) throw new ApiError('telephony_not_configured')
    const problems = []
    const to = body.to?.replace(/[ \-.()]/g, '')
    if (to === undefined) problems.push({ type: 'missing', loc: ['body', 'to'], msg: 'A phone call needs the number to dial (E.164)' })
    else if (!E164.test(to))
      problems.push({ type: 'value_error', loc: ['body', 'to'], msg: 'Must be an E.164 number: + then the country code and number', input: body.to })
    const from = body.from?.replace(/[ \-.()]/g, '')
    const number = from === undefined ? undefined : this.deps.repos.phoneNumbers.list(scopeOf(p)).find((n) => n.number === from)
    if (from === undefined)
      problems.push({ type: 'missing', loc: ['body', 'from'], msg: 'A phone call needs one of the environment’s phone numbers to call from' })
    else if (!number) problems.push({ type: 'not_found', loc: ['body', 'from'], msg: 'Not a phone number of this environment', input: body.from })
    if (problems.length) throw new ValidationError(problems)
    const agent = this.agent(p, body)
    if (Buffer.byteLength(JSON.stringify(body.variables)) > MAX_VARIABLES_BYTES) throw variablesTooLarge(['body', 'variables'])
    assertVoiceReady(this.deps.sessions, scopeOf(p), agent)
    this.deps.quota.assertVoiceCall(p.organizationId, 'phone')
    this.deps.billing?.assertCredit(p.organizationId)
    const { id, state, now } = this.insertPending(p, agent, body.variables, 'phone', PHONE_PENDING_MS)
    dialer.dial({ callId: id, from: number!, to: to!, workflowId: agent.workflowId })
    const row = this.deps.repos.sessions.get(scopeOf(p), id)!
    return { ...callFields(row), created_at: iso(now)!, variables: state.variables }
  }

  /** A voice call recorded pending (its agent snapshot and variables) until it connects, or `pendingMs` runs out. */
  private insertPending(p: Principal, agent: SessionAgent, variables: Record<string, unknown>, channel: 'web' | 'phone', pendingMs: number) {
    const now = this.deps.clock.now()
    const { row, state } = newSession(p, agent, variables, channel, now)
    this.deps.repos.sessions.insert({ ...row, status: 'pending', pending_until: now + pendingMs })
    return { id: row.id, state, now }
  }

  list(p: Principal, q: CallListQueryT) {
    this.deps.repos.sessions.expirePending(this.deps.clock.now())
    const page = this.deps.repos.calls.page(scopeOf(p), {
      channels: LISTED[q.channel ?? 'sessions'],
      status: q.status ?? null,
      q: q.q ?? null,
      since: q.since === undefined ? null : Date.parse(q.since),
      until: q.until === undefined ? null : Date.parse(q.until),
      limit: q.limit,
      offset: q.offset,
    })
    return { items: page.items.map((r) => summary(r, r.workflow_name)), total: page.total, limit: q.limit, offset: q.offset }
  }

  detail(p: Principal, callId: string) {
    this.deps.repos.sessions.expirePending(this.deps.clock.now())
    const row = this.row(p, callId)
    const name = row.workflow_id === null ? null : (this.deps.repos.workflows.get(scopeOf(p), row.workflow_id)?.name ?? null)
    const state = JSON.parse(row.state) as RuntimeState
    const events = this.deps.repos.sessions
      .events(row.id)
      .map((e) => ({ seq: e.seq, kind: e.kind, data: JSON.parse(e.data) as Record<string, unknown>, created_at: iso(e.created_at)! }))
    const transcript = events.flatMap((e) =>
      e.kind === 'user_message' || e.kind === 'agent_message'
        ? [
            {
              role: e.kind === 'user_message' ? ('user' as const) : ('assistant' as const),
              text: String(e.data['text'] ?? ''),
              turn_id: typeof e.data['turn_id'] === 'string' ? e.data['turn_id'] : null,
              interrupted: e.data['interrupted'] === true,
            },
          ]
        : [],
    )
    const turns = events.filter((e) => e.kind === 'turn').map((e) => e.data as { turn: number; duration_ms: number })
    return {
      ...summary(row, name),
      variables: state.variables,
      transcript,
      events,
      usage: { prompt_tokens: row.prompt_tokens, completion_tokens: row.completion_tokens },
      cost: costView(row, this.deps.billing?.costOf(row.id) ?? null),
      latency: { turns, average_turn_ms: turns.length ? Math.round(turns.reduce((n, t) => n + t.duration_ms, 0) / turns.length) : null },
      analysis: analysisView(row, this.deps.repos.analysis.get(row.id)),
    }
  }

  /** A caller turn of a chat call (the same turn as the workflow's session messages endpoint). */
  message(p: Principal, callId: string, text: string) {
    return this.deps.sessions.messageById(p, callId, text)
  }

  /**
   * say / transfer / end. A voice call's control goes over the bus to the worker holding it
   * (receivers = how many got it, 0 once it ended or while it is pending); a text session is
   * controlled here (1 when applied, 0 once ended).
   */
  async control(p: Principal, callId: string, m: CallControl): Promise<{ receivers: number }> {
    const row = this.row(p, callId)
    if (row.channel === 'chat' || row.channel === 'run') return { receivers: await this.deps.sessions.control(p, row.id, m) }
    if (row.status !== 'active') return { receivers: 0 }
    return { receivers: await this.deps.webCalls.control.publish(row.id, m) }
  }

  private row(p: Principal, callId: string): SessionRow {
    const row = this.deps.repos.sessions.get(scopeOf(p), callId)
    if (!row) throw new ApiError('not_found')
    return row
  }

  /** The saved workflow's newest published version, or the transient agent checked as publishing would. */
  private agent(p: Principal, body: CallCreateT): SessionAgent {
    if (body.workflow_uuid !== undefined) {
      const picked = this.deps.sessions.published(scopeOf(p), body.workflow_uuid)
      return { workflowId: picked.workflow.id, version: picked.version, definition: picked.definition, config: picked.config }
    }
    const { definition, config } = body.agent!
    assertValid(definition, ['body', 'agent', 'definition'])
    return { workflowId: null, version: null, definition: JSON.stringify(definition), config: JSON.stringify(config ?? AgentConfig.parse({})) }
  }

  private async mint(r: MintRequest) {
    try {
      return await this.deps.webCalls.tokens.mint(r)
    } catch (err) {
      if (err instanceof WebCallTokenError && err.code === 'variables_too_large') throw variablesTooLarge(['body', 'variables'])
      throw err
    }
  }

  private wsUrl(token: string): string {
    return `${this.deps.webCalls.wsUrl()}?token=${encodeURIComponent(token)}&v=1`
  }
}

/** Exact token counts, and the metered amount once the call has ended (null before, or when nothing metered it). */
function costView(row: SessionRow, cost: Cost | null) {
  return {
    prompt_tokens: row.prompt_tokens,
    completion_tokens: row.completion_tokens,
    amount_minor: cost?.amount_minor ?? null,
    currency: cost?.currency ?? null,
    ...(cost && { items: cost.items }),
  }
}

function variablesTooLarge(loc: string[]): ValidationError {
  return new ValidationError([
    { type: 'too_big', loc, msg: `variables are at most ${MAX_VARIABLES_BYTES} bytes of JSON`, ctx: { max_bytes: MAX_VARIABLES_BYTES } },
  ])
}

function callFields(r: SessionRow) {
  return {
    call_uuid: r.id,
    channel: r.channel,
    status: r.status,
    workflow_uuid: r.workflow_id,
    version: r.workflow_version,
    transient: r.workflow_id === null,
    phone_status: r.channel === 'phone' ? phoneStatus(r) : null,
  }
}

/** PHONE_STATUSES from the row: dispositions name how a call that never connected ended. */
export function phoneStatus(r: Pick<SessionRow, 'status' | 'disposition'>): (typeof PHONE_STATUSES)[number] {
  if (r.status === 'pending') return r.disposition === 'ringing' ? 'ringing' : 'queued'
  if (r.status === 'active') return 'in-progress'
  if (r.status === 'completed') return 'completed'
  if (r.disposition === 'busy') return 'busy'
  if (r.disposition === 'no_answer') return 'no-answer'
  if (r.disposition === 'canceled') return 'canceled'
  return 'failed'
}

function summary(r: SessionRow, workflowName: string | null) {
  return {
    ...callFields(r),
    workflow_name: workflowName,
    disposition: r.disposition,
    error_code: r.error_code,
    turn_count: r.turn_count,
    started_at: iso(r.started_at)!,
    ended_at: iso(r.ended_at),
    duration_ms: r.ended_at === null ? null : r.ended_at - r.started_at,
  }
}
