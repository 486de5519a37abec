/**
 * What a phone call runs, from the shell's services (the telephony service asks; it knows nothing
 * of api/): the answering number's agent at its newest published version, with the organization's
 * providers, recorded as a session of channel "phone". The caller's and the called number are
 * the graph's `system.caller_number` / `system.called_number`.
 */
import type { Logger } from '../../core/index.js'
import type { PreparedCall } from '../../engine/index.js'
import { GraphRuntime, initialState, type RuntimeState } from '../../engine/graph-runtime/index.js'
import type { Services } from '../app.js'
import { endForCredit } from '../billing/index.js'
import { ApiError } from '../http/errors.js'
import { storedConfig, storedDefinition } from '../sessions/stored-agent.js'
import { openPrepared } from './prepared.js'
import { SessionCallRecorder } from './session-recorder.js'
import type { DialProgress, PhoneCallStart } from '../../telephony/index.js'

export type PhoneCallRequest = PhoneCallStart

/** The agent a phone call runs: the number's published agent (inbound), or the snapshot POST /calls recorded (outbound). */
function agentOf(services: Services, r: PhoneCallRequest) {
  const scope = { organizationId: r.organizationId, environmentId: r.environmentId }
  if (r.direction === 'outbound') {
    const row = services.repos.sessions.get(scope, r.callId)
    if (!row || row.status !== 'pending') throw new ApiError('session_ended', 'This call is no longer waiting to connect.')
    return {
      workflowId: row.workflow_id,
      version: row.workflow_version,
      definition: row.definition,
      config: row.config,
      state: JSON.parse(row.state) as RuntimeState,
      pending: true,
    }
  }
  const picked = services.sessions.published(scope, r.workflowId)
  // The numbers are system values ({{system.caller_number}}, {{system.called_number}}), not variables.
  const state = initialState(storedDefinition(picked.definition), r.variables ?? {})
  return { workflowId: picked.workflow.id, version: picked.version, definition: picked.definition, config: picked.config, state, pending: false }
}

/** Throws ApiError (no published version, provider not configured): the telephony service answers 480 / 503. */
export function preparePhoneCall(services: Services, logger: Logger, r: PhoneCallRequest): PreparedCall {
  const scope = { organizationId: r.organizationId, environmentId: r.environmentId }
  services.billing.assertCredit(scope.organizationId)
  const picked = agentOf(services, r)
  const def = storedDefinition(picked.definition)
  const agent = storedConfig(picked.config)
  const voice = services.sessions.voiceProviders(scope.organizationId, agent)
  const recorder = new SessionCallRecorder({
    repos: services.repos,
    bus: services.bus,
    clock: services.clock,
    logger: logger.child({ call_id: r.callId, organization_id: r.organizationId, workflow_id: picked.workflowId }),
    ...scope,
    workflowId: picked.workflowId,
    version: picked.version,
    definition: picked.definition,
    config: picked.config,
    initial: picked.state,
    callId: r.callId,
    pending: picked.pending,
    channel: 'phone',
    meter: services.billing,
    outOfCredit: () => endForCredit(services.webCalls.control, r.callId, (err) => logger.warn({ err }, 'billing: could not end a call out of credit')),
  })
  const runtime = new GraphRuntime(def, agent, services.sessions.runtimeIO(scope), picked.state, {
    channel: 'phone',
    session_id: recorder.sessionId,
    caller_number: r.callerNumber,
    called_number: r.calledNumber,
  })
  return openPrepared({ agent, runtime, voice, recorder }, 'This call is no longer waiting to connect.')
}

/**
 * How a placed call got on before it connected, on its pending row: ringing (phone_status
 * ringing), or the end of a call that never connected — busy, no_answer, canceled, refused
 * (over the live-call cap when answered), failed — with the detail as its error code.
 */
export function recordPhoneProgress(services: Services, callId: string, state: DialProgress, detail?: string): void {
  const now = services.clock.now()
  if (state === 'ringing') return services.repos.sessions.markRinging(callId, now)
  if (state === 'answered') return
  services.repos.sessions.failPending(callId, state, detail ?? state, now)
}

/**
 * A phone call that was refused before it could start (over the organization's live-call cap, the
 * spec's "refused, not queued"): a failed session with the reason, so it is listed with the calls.
 */
export function recordRefusedPhoneCall(services: Services, r: PhoneCallRequest & { code: string }): void {
  const scope = { organizationId: r.organizationId, environmentId: r.environmentId }
  const now = services.clock.now()
  let picked: { definition: string; config: string; version: number } | null = null
  try {
    picked = services.sessions.published(scope, r.workflowId)
  } catch {
    picked = null
  }
  const state = {
    variables: { caller_number: r.callerNumber, called_number: r.calledNumber, direction: r.direction },
    ended: true,
    nodeId: null,
    disposition: 'refused',
  }
  services.repos.transaction(() => {
    services.repos.sessions.insert({
      id: r.callId,
      organization_id: r.organizationId,
      environment_id: r.environmentId,
      workflow_id: r.workflowId,
      workflow_version: picked?.version ?? null,
      channel: 'phone',
      definition: picked?.definition ?? '{}',
      config: picked?.config ?? '{}',
      state: JSON.stringify(state),
      started_by_user: null,
      started_by_key: null,
      started_at: now,
    })
    services.repos.sessions.saveTurn(
      r.callId,
      {
        state: JSON.stringify(state),
        status: 'failed',
        disposition: 'refused',
        turns: 0,
        prompt_tokens: 0,
        completion_tokens: 0,
        error_code: r.code,
        ended_at: now,
      },
      [{ kind: 'refused', data: { code: r.code, caller_number: r.callerNumber, called_number: r.calledNumber } }],
      now,
    )
  })
}
