/**
 * The call engine of `npm start` and `ozan engine`, wired from the shell's services: what a web call
 * runs (the pending call's snapshot from POST /calls, or the workflow's newest published version,
 * with the organization's providers), recorded as a session of channel "web". The engine itself is
 * engine/engine.ts (createEngine); this file only says where its dependencies come from.
 */
import type { Config, Logger } from '../../core/index.js'
import { CallRefused, createEngine, type Engine, type PreparedCall } from '../../engine/index.js'
import { GraphRuntime, initialState, type RuntimeState } from '../../engine/graph-runtime/index.js'
import type { WebCall } from '../../engine/server/index.js'
import { loadVad } from '../../engine/vad/index.js'
import type { Services } from '../app.js'
import { endForCredit } from '../billing/index.js'
import { ApiError } from '../http/errors.js'
import { storedConfig, storedDefinition } from '../sessions/stored-agent.js'
import { WEB_CALL_PATH } from './service.js'
import { openPrepared } from './prepared.js'
import { SessionCallRecorder } from './session-recorder.js'
import { runVoiceCasesOn } from '../test-suites/index.js'

export type { Engine } from '../../engine/index.js'

export interface EngineOptions {
  services: Services
  config: Config
  logger: Logger
  /** Overrides config.engineHost / config.enginePort (tests: 127.0.0.1 and 0). */
  host?: string
  port?: number
}

export async function startEngine(o: EngineOptions): Promise<Engine> {
  const { services, config, logger } = o
  const vad = await loadVad({ logger, silenceGateDbfs: config.vadSilenceGateDbfs })
  const engine = await createEngine({
    prepare: (call) => prepareCall(services, logger, call),
    tokens: services.webCalls.tokens,
    liveCalls: services.webCalls.liveCalls,
    control: services.webCalls.control,
    vad,
    logger,
    webSocket: {
      host: o.host ?? config.engineHost,
      port: o.port ?? config.enginePort,
      path: WEB_CALL_PATH,
      prefer: config.engineSocket === 'ws' ? 'ws' : 'uws',
    },
  })
  // The API shares this event loop: while calls are live its requests take turns with their audio.
  services.apiTurns.shareWith(() => engine.liveCalls > 0)
  services.webCalls.bound?.(engine.port)
  // Test suites' voice cases run as calls through this engine (api/test-suites/voice-case.ts).
  runVoiceCasesOn(engine, services)
  return engine
}

/** What the call runs: the pending call's snapshot (POST /calls), or the workflow's newest published version. */
function agentOf(services: Services, call: WebCall, scope: { organizationId: string; environmentId: string }) {
  if (call.claims.callId !== null) {
    const row = services.repos.sessions.get(scope, call.claims.callId)
    if (!row || row.status !== 'pending') throw new ApiError('session_ended', 'This call is no longer waiting for a connection.')
    return {
      pending: true,
      workflowId: row.workflow_id,
      version: row.workflow_version,
      definition: row.definition,
      config: row.config,
      state: JSON.parse(row.state) as RuntimeState,
    }
  }
  const picked = services.sessions.published(scope, call.claims.workflowId!)
  return {
    pending: false,
    workflowId: picked.workflow.id,
    version: picked.version,
    definition: picked.definition,
    config: picked.config,
    state: initialState(storedDefinition(picked.definition), call.variables),
  }
}

/** Refusals (ApiError) reach the caller as CallRefused; a session row already opened is closed as failed. */
function prepareCall(services: Services, logger: Logger, call: WebCall): PreparedCall {
  const scope = { organizationId: call.claims.organizationId, environmentId: call.claims.environmentId }
  let recorder: SessionCallRecorder | null = null
  try {
    services.billing.assertCredit(scope.organizationId)
    const picked = agentOf(services, call, scope)
    const def = storedDefinition(picked.definition)
    const agent = storedConfig(picked.config)
    const voice = services.sessions.voiceProviders(scope.organizationId, agent)
    recorder = new SessionCallRecorder({
      repos: services.repos,
      bus: services.bus,
      clock: services.clock,
      logger: logger.child({ call_id: call.callId, organization_id: scope.organizationId, workflow_id: call.claims.workflowId }),
      ...scope,
      workflowId: picked.workflowId,
      version: picked.version,
      definition: picked.definition,
      config: picked.config,
      initial: picked.state,
      callId: call.callId,
      pending: picked.pending,
      meter: services.billing,
      outOfCredit: () => endForCredit(services.webCalls.control, call.callId, (err) => logger.warn({ err }, 'billing: could not end a call out of credit')),
    })
    const runtime = new GraphRuntime(def, agent, services.sessions.runtimeIO(scope), picked.state, { channel: 'web', session_id: recorder.sessionId })
    return openPrepared({ agent, runtime, voice, recorder }, 'This call is no longer waiting for a connection.')
  } catch (err) {
    // Nothing was recorded unless the session row was opened (then it is closed as failed).
    recorder?.ended('error')
    if (err instanceof ApiError) throw new CallRefused(err.code, err.message)
    throw err
  }
}
