/**
 * The call engine of `npm start`: the WebSocket server browsers' web calls reach (path
 * /v1/calls/ws, protocol v1, docs/protocol.md). A call is admitted by the web-call gate (token and
 * live-call cap shared with POST /api/v1/calls/web-token through Services.webCalls), then runs a
 * CallSession over the workflow's newest published version, recorded as a session of channel "web".
 */
import type { Config, Logger } from '../../core/index.js'
import { type AgentConfig, GraphRuntime, initialState, type RuntimeState } from '../../engine/graph-runtime/index.js'
import { CallSession } from '../../engine/pipeline/call/index.js'
import { TtsCache } from '../../engine/pipeline/providers/tts/cache.js'
import {
  CloseCode,
  MAX_PAYLOAD_BYTES,
  WebSocketTransport,
  createSocketServer,
  createWebCallGate,
  events,
  type SocketKind,
  type WebCall,
} from '../../engine/server/index.js'
import { SilenceStrategy, TextAdaptiveStrategy, type TurnStrategy } from '../../engine/turn-taking/index.js'
import { loadVad, SileroModel } from '../../engine/vad/index.js'
import type { Services } from '../app.js'
import { ApiError } from '../http/errors.js'
import { WEB_CALL_PATH } from './service.js'
import { SessionCallRecorder } from './session-recorder.js'
import { storedConfig, storedDefinition } from '../sessions/stored-agent.js'

/** The end-of-turn strategy the agent's config names. */
function turnStrategy(agent: AgentConfig): TurnStrategy {
  const o = { silenceMs: agent.turn_taking.endpointing_ms, preemptive: agent.turn_taking.preemptive_generation }
  return agent.turn_taking.strategy === 'silence' ? new SilenceStrategy(o) : new TextAdaptiveStrategy(o)
}

export interface Engine {
  port: number
  kind: SocketKind
  fallbackReason: string | undefined
  /** The VAD's counters since start (Silero only): windows run, model runs, windows its silence gate skipped. */
  vadStats(): { windows: number; runs: number; gated: number } | null
  /** Live calls end with server_shutdown (recorded), sockets close with 1001, the port is released. */
  close(): Promise<void>
}

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
  const ttsCache = new TtsCache()
  const live = new Map<string, { session: CallSession; recorder: SessionCallRecorder; channel: WebCall['channel'] }>()

  /** What the call runs: the pending call's snapshot (POST /calls), or the workflow's newest published version. */
  const agentOf = (call: WebCall, scope: { organizationId: string; environmentId: string }) => {
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
    const def = storedDefinition(picked.definition)
    return {
      pending: false,
      workflowId: picked.workflow.id,
      version: picked.version,
      definition: picked.definition,
      config: picked.config,
      state: initialState(def, call.variables),
    }
  }

  const onCall = (call: WebCall): void => {
    const scope = { organizationId: call.claims.organizationId, environmentId: call.claims.environmentId }
    const log = logger.child({ call_id: call.callId, organization_id: scope.organizationId, workflow_id: call.claims.workflowId })
    let recorder: SessionCallRecorder | null = null
    try {
      const picked = agentOf(call, scope)
      const def = storedDefinition(picked.definition)
      const agent = storedConfig(picked.config)
      const voice = services.sessions.voiceProviders(scope.organizationId, agent)
      const state = picked.state
      recorder = new SessionCallRecorder({
        repos: services.repos,
        bus: services.bus,
        clock: services.clock,
        logger: log,
        ...scope,
        workflowId: picked.workflowId,
        version: picked.version,
        definition: picked.definition,
        config: picked.config,
        initial: state,
        callId: call.callId,
        pending: picked.pending,
      })
      const runtime = new GraphRuntime(def, agent, services.sessions.runtimeIO(scope), state, { channel: 'web', session_id: recorder.sessionId })
      recorder.stateFrom(() => runtime.state)
      if (!recorder.open()) throw new ApiError('session_ended', 'This call is no longer waiting for a connection.')
      const session = new CallSession({
        transport: new WebSocketTransport(call.channel),
        runtime,
        vad,
        stt: voice.stt,
        tts: voice.tts,
        ttsCache,
        ...(voice.voice !== undefined && { voice: voice.voice }),
        strategy: turnStrategy(agent),
        bargeIn: {
          minWords: agent.turn_taking.interruption_min_words,
          minSpeechMs: agent.turn_taking.interruption_min_duration_ms,
          backchannels: agent.turn_taking.backchannel_words,
        },
        language: voice.sttLanguage,
        recorder,
        limits: { maxDurationMs: agent.max_call_duration_s * 1000, silenceTimeoutMs: agent.silence_timeout_s * 1000 },
      })
      const unsubscribe = services.webCalls.control.subscribe(call.callId, (m) => session.control(m))
      const entry = { session, recorder, channel: call.channel }
      live.set(call.callId, entry)
      void recorder.done.then(() => {
        unsubscribe()
        live.delete(call.callId)
      })
      // Control stops reaching the call the moment it ends, not when its record is written.
      session.signal.addEventListener('abort', unsubscribe, { once: true })
      log.info({ session_id: recorder.sessionId }, 'web call started')
      session.start()
    } catch (err) {
      if (err instanceof ApiError) {
        // Nothing was recorded unless the session row was opened (then it is closed as failed).
        log.warn({ code: err.code }, 'web call refused')
        call.channel.send(events.error(err.code, err.message))
        call.channel.end('error')
        recorder?.ended('error')
        return
      }
      log.error({ err }, 'web call failed to start')
      recorder?.ended('error')
      throw err
    }
  }

  // The API shares this event loop: while calls are live its requests take turns with their audio.
  services.apiTurns.shareWith(() => live.size > 0)
  const gate = createWebCallGate({ tokens: services.webCalls.tokens, liveCalls: services.webCalls.liveCalls, onCall })
  const server = await createSocketServer(gate, {
    prefer: config.engineSocket === 'ws' ? 'ws' : 'uws',
    path: WEB_CALL_PATH,
    maxPayloadBytes: MAX_PAYLOAD_BYTES,
  })
  const port = await server.listen(o.host ?? config.engineHost, o.port ?? config.enginePort)
  services.webCalls.bound?.(port)
  // Never the upgrade URL: it carries the token.
  logger.info({ transport: server.kind, fallback_reason: server.fallbackReason ?? null, port, vad: vad.kind }, 'call engine listening')
  let closing: Promise<void> | null = null
  return {
    port,
    kind: server.kind,
    fallbackReason: server.fallbackReason,
    vadStats: () => (vad instanceof SileroModel ? vad.stats : null),
    close() {
      closing ??= (async () => {
        const pending = [...live.values()]
        for (const { session, channel } of pending) {
          // `ended: server_shutdown` and close 1001 first, then the session stops (recorded as server_shutdown).
          // (The close is not the caller's hang-up, so the session does not hear it as one.)
          channel.handlers = { ...channel.handlers, closed: () => {} }
          channel.end('server_shutdown', CloseCode.goingAway)
          session.shutdown()
        }
        await server.close()
        await Promise.all(pending.map((e) => e.recorder.done))
      })()
      return closing
    },
  }
}
