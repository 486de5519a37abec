/**
 * The call engine, composed from its dependencies: `createEngine({...})` takes where calls come
 * from (`prepare`: a call's agent, runtime, providers and recorder), the web-call tokens and
 * live-call cap, the control bus, the VAD, a clock and a logger, and runs each admitted call as a
 * CallSession over its transport. It knows nothing of HTTP or of the shell: `ozan engine` runs it
 * as a worker of its own (bin/ozan.ts), and api/calls/engine.ts is only the wiring from the shell's
 * services.
 *
 * Transports: browsers' web calls over protocol v1 (a WebSocket server on `webSocket.port`,
 * admitted by the web-call gate). A phone transport plugs in the same way: a CallTransport per
 * call, and `prepare` for what the call runs.
 */
import type { Logger } from '../core/index.js'
import type { CallControlBus, LiveCalls, WebCallTokens } from './calls/index.js'
import type { AgentConfig, GraphRuntime } from './graph-runtime/index.js'
import { type CallRecorder, CallSession, type CallTransport } from './pipeline/call/index.js'
import type { PlayoutClock } from './pipeline/playout-clock.js'
import type { SttProvider } from './pipeline/providers/stt/types.js'
import { TtsCache } from './pipeline/providers/tts/cache.js'
import type { TtsProvider } from './pipeline/providers/tts/types.js'
import {
  CloseCode,
  createSocketServer,
  createWebCallGate,
  events,
  MAX_PAYLOAD_BYTES,
  type SocketKind,
  type WebCall,
  WebSocketTransport,
} from './server/index.js'
import { SilenceStrategy, TextAdaptiveStrategy, type TurnStrategy } from './turn-taking/index.js'
import { SileroModel, type VadModel } from './vad/index.js'

/** What one admitted call runs, from `prepare`. */
export interface PreparedCall {
  agent: AgentConfig
  runtime: GraphRuntime
  stt: SttProvider
  tts: TtsProvider
  voice?: string
  /** The language the recognizer hears (and barge-in's backchannel lists). */
  language: string
  recorder: CallRecorder & {
    /** Settles once the call's record is written. */
    readonly done: Promise<unknown>
    readonly sessionId: string
  }
}

/** A call `prepare` refuses: the caller is told `code` and `message`, the call ends with `error`. */
export class CallRefused extends Error {
  override readonly name = 'CallRefused'
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

export interface EngineDeps {
  /** What an admitted web call runs; throws CallRefused (told to the caller) or anything else (a failure). */
  prepare(call: WebCall): PreparedCall
  tokens: WebCallTokens
  liveCalls: LiveCalls
  control: CallControlBus
  vad: VadModel
  logger: Logger
  clock?: PlayoutClock
  webSocket: {
    host: string
    port: number
    path: string
    prefer?: SocketKind
  }
}

export interface Engine {
  port: number
  kind: SocketKind
  fallbackReason: string | undefined
  readonly liveCalls: number
  /** The VAD's counters since start (Silero only): windows run, model runs, windows its silence gate skipped. */
  vadStats(): { windows: number; runs: number; gated: number } | null
  /**
   * Runs a call that arrived by another transport than the web-call socket (a phone call over
   * SIP/RTP): the caller has admitted it (cap, authentication) and prepared what it runs. It ends
   * like a web call: recorded, its control subscription dropped, ended by close() with
   * server_shutdown.
   */
  startCall(o: { callId: string; transport: CallTransport; prepared: PreparedCall; logFields?: Record<string, unknown> }): CallSession
  /** Live calls end with server_shutdown (recorded), sockets close with 1001, the port is released. */
  close(): Promise<void>
}

/** The end-of-turn strategy an agent's config names. */
export function turnStrategy(agent: AgentConfig): TurnStrategy {
  const o = { silenceMs: agent.turn_taking.endpointing_ms, preemptive: agent.turn_taking.preemptive_generation }
  return agent.turn_taking.strategy === 'silence' ? new SilenceStrategy(o) : new TextAdaptiveStrategy(o)
}

export async function createEngine(d: EngineDeps): Promise<Engine> {
  const { logger, vad } = d
  const ttsCache = new TtsCache()
  const live = new Map<string, { session: CallSession; recorder: PreparedCall['recorder']; onShutdown?: () => void }>()

  /** Runs one admitted call over its transport until its record is written. */
  const run = (o: { callId: string; transport: CallTransport; prepared: PreparedCall; log: Logger; onShutdown?: () => void }): CallSession => {
    const { agent, recorder } = o.prepared
    const prepared = o.prepared
    const session = new CallSession({
      transport: o.transport,
      runtime: prepared.runtime,
      vad,
      stt: prepared.stt,
      tts: prepared.tts,
      ttsCache,
      ...(prepared.voice !== undefined && { voice: prepared.voice }),
      strategy: turnStrategy(agent),
      bargeIn: {
        minWords: agent.turn_taking.interruption_min_words,
        minSpeechMs: agent.turn_taking.interruption_min_duration_ms,
        backchannels: agent.turn_taking.backchannel_words,
      },
      language: prepared.language,
      recorder,
      limits: { maxDurationMs: agent.max_call_duration_s * 1000, silenceTimeoutMs: agent.silence_timeout_s * 1000 },
      ...(d.clock && { clock: d.clock }),
    })
    const unsubscribe = d.control.subscribe(o.callId, (m) => session.control(m))
    live.set(o.callId, { session, recorder, ...(o.onShutdown && { onShutdown: o.onShutdown }) })
    void recorder.done.then(() => {
      unsubscribe()
      live.delete(o.callId)
    })
    // Control stops reaching the call the moment it ends, not when its record is written.
    session.signal.addEventListener('abort', unsubscribe, { once: true })
    o.log.info({ session_id: recorder.sessionId, transport: o.transport.name }, 'call started')
    session.start()
    return session
  }

  const onCall = (call: WebCall): void => {
    const log = logger.child({ call_id: call.callId, organization_id: call.claims.organizationId, workflow_id: call.claims.workflowId })
    let prepared: PreparedCall
    try {
      prepared = d.prepare(call)
    } catch (err) {
      if (!(err instanceof CallRefused)) {
        log.error({ err }, 'web call failed to start')
        throw err
      }
      log.warn({ code: err.code }, 'web call refused')
      call.channel.send(events.error(err.code, err.message))
      call.channel.end('error')
      return
    }
    run({
      callId: call.callId,
      transport: new WebSocketTransport(call.channel),
      prepared,
      log,
      // `ended: server_shutdown` and close 1001 first, then the session stops (recorded as
      // server_shutdown): the close is not the caller's hang-up, so the session must not hear it as one.
      onShutdown: () => {
        call.channel.handlers = { ...call.channel.handlers, closed: () => {} }
        call.channel.end('server_shutdown', CloseCode.goingAway)
      },
    })
  }

  const gate = createWebCallGate({ tokens: d.tokens, liveCalls: d.liveCalls, onCall })
  const server = await createSocketServer(gate, { prefer: d.webSocket.prefer ?? 'uws', path: d.webSocket.path, maxPayloadBytes: MAX_PAYLOAD_BYTES })
  const port = await server.listen(d.webSocket.host, d.webSocket.port)
  // Never the upgrade URL: it carries the token.
  logger.info({ transport: server.kind, fallback_reason: server.fallbackReason ?? null, port, vad: vad.kind }, 'call engine listening')
  let closing: Promise<void> | null = null
  return {
    port,
    kind: server.kind,
    fallbackReason: server.fallbackReason,
    get liveCalls() {
      return live.size
    },
    vadStats: () => (vad instanceof SileroModel ? vad.stats : null),
    startCall: (o) => run({ ...o, log: logger.child({ call_id: o.callId, ...o.logFields }) }),
    close() {
      closing ??= (async () => {
        const pending = [...live.values()]
        for (const { session, onShutdown } of pending) {
          onShutdown?.()
          session.shutdown()
        }
        await server.close()
        await Promise.all(pending.map((e) => e.recorder.done))
      })()
      return closing
    },
  }
}
