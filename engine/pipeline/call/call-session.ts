/**
 * One realtime call, composed: the controller (controller.ts: every decision, synchronous, no I/O)
 * between its adapters — the caller's audio path (audio-input.ts: resample → VAD → STT), the
 * agent's side (reply-generator.ts: runtime → phrase chunker → TTS → playout) and the transport
 * (transport.ts: a browser's WebSocket, a phone line, a test's memory). This file only routes:
 * frames from the adapters go to the controller, its commands go to the adapters, and one timer
 * ticks it when it asks (`wakeAt`).
 *
 * Re-entrancy: an adapter may report a frame while carrying out a command (an interrupted reply
 * reports what was heard at once). That frame is handled there and then, before the next command,
 * so what it makes the controller say lands in order (the cut line before the caller's words).
 */
import type { GraphRuntime } from '../../graph-runtime/index.js'
import type { CallControl } from '../../calls/control-bus.js'
import type { CallStatus } from '../../server/protocol.js'
import type { BargeInOptions } from '../../turn-taking/barge-in.js'
import type { TurnStrategy } from '../../turn-taking/strategy.js'
import type { SpeechDetectorOptions, VadModel } from '../../vad/index.js'
import type { ControllerFrame } from '../frames.js'
import type { PlayoutOptions } from '../playout.js'
import { realPlayoutClock, type PlayoutClock, type TimerId } from '../playout-clock.js'
import type { SttProvider } from '../providers/stt/types.js'
import type { TtsCache } from '../providers/tts/cache.js'
import type { TtsProvider } from '../providers/tts/types.js'
import { AudioInput } from './audio-input.js'
import type { Command, RecordEntry } from './commands.js'
import { CallController } from './controller.js'
import type { CallLimits } from './controller-options.js'
import type { CallRecorder } from './recorder.js'
import { ReplyGenerator } from './reply-generator.js'
import type { CallTransport } from './transport.js'

export interface CallSessionDeps {
  transport: CallTransport
  runtime: GraphRuntime
  vad: VadModel
  stt: SttProvider
  tts: TtsProvider
  /** Static lines (greetings, say/collect prompts) are synthesized through it when given. */
  ttsCache?: TtsCache
  voice?: string
  strategy: TurnStrategy
  bargeIn?: Partial<BargeInOptions>
  detector?: Partial<SpeechDetectorOptions>
  language: string
  clock?: PlayoutClock
  recorder: CallRecorder
  limits: CallLimits
  playout?: Partial<PlayoutOptions>
  /** Asked once after `silenceTimeoutMs` of caller silence. */
  stillTherePrompt?: string
  /** VAD windows (32 ms) waiting for inference before new ones are dropped (default 64 ≈ 2 s). */
  maxVadBacklog?: number
  /** Agent frames waiting for the transport before playout pauses (default 50 ≈ 1 s). */
  maxPendingWrites?: number
}

export class CallSession {
  private readonly deps: CallSessionDeps
  private readonly clock: PlayoutClock
  private readonly callAc = new AbortController()
  private readonly controller: CallController
  private readonly input: AudioInput
  private readonly replies: ReplyGenerator
  private started = false
  /** Set once the call is over (ended or crashed); a plain flag, read on every frame. */
  private over = false
  private depth = 0
  private wake: TimerId | null = null
  private wakeArmedAt: number | null = null
  /** The wake-up's timer callback and the tick frame it hands on, made once: a call ticks every 20 ms. */
  private readonly tickFrame: Extract<ControllerFrame, { type: 'tick' }> = { type: 'tick', at: 0 }
  private readonly onWake = (): void => {
    this.wake = null
    this.wakeArmedAt = null
    this.tickFrame.at = this.clock.now()
    this.dispatch(this.tickFrame)
  }

  constructor(deps: CallSessionDeps) {
    this.deps = deps
    this.clock = deps.clock ?? realPlayoutClock
    const report = (frame: ControllerFrame) => this.dispatch(frame)
    this.controller = new CallController({
      language: deps.language,
      limits: deps.limits,
      strategy: deps.strategy,
      ...(deps.bargeIn && { bargeIn: deps.bargeIn }),
      ...(deps.stillTherePrompt !== undefined && { stillTherePrompt: deps.stillTherePrompt }),
      streamingStt: deps.stt.streaming,
      transferWaits: deps.transport.transferWaits === true,
    })
    this.input = new AudioInput({
      vad: deps.vad,
      stt: deps.stt,
      language: deps.language,
      clock: this.clock,
      sampleRate: deps.transport.lineRate,
      signal: this.callAc.signal,
      report,
      onOverload: (backlog) => deps.recorder.event('vad_overload', { backlog }),
      ...(deps.detector && { detector: deps.detector }),
      ...(deps.maxVadBacklog !== undefined && { maxVadBacklog: deps.maxVadBacklog }),
    })
    this.replies = new ReplyGenerator({
      runtime: deps.runtime,
      tts: deps.tts,
      language: deps.language,
      clock: this.clock,
      signal: this.callAc.signal,
      writeAudio: (frame) => deps.transport.writeAudio(frame),
      writesAudioAtOnce: deps.transport.writesAudioAtOnce === true,
      sampleRate: deps.transport.lineRate,
      report,
      ...(deps.ttsCache && { ttsCache: deps.ttsCache }),
      ...(deps.voice !== undefined && { voice: deps.voice }),
      ...(deps.playout && { playout: deps.playout }),
      ...(deps.maxPendingWrites !== undefined && { maxPendingWrites: deps.maxPendingWrites }),
    })
  }

  /** Aborted when the call ends, for whatever reason. */
  get signal(): AbortSignal {
    return this.callAc.signal
  }

  get callStatus(): CallStatus {
    return this.controller.callStatus
  }

  /** Wires the transport and starts the call: greeting first, listening meanwhile. */
  start(): void {
    if (this.started) throw new Error('CallSession.start() called twice')
    this.started = true
    const { transport } = this.deps
    transport.attach({ audio: (pcm, rate) => this.input.push(pcm, rate), frame: (f) => this.dispatch(f) })
    if (transport.closed) return this.dispatch({ type: 'caller_left', how: 'dropped' })
    this.dispatch({ type: 'call_start', info: { vad: this.deps.vad.kind, stt: this.deps.stt.name, tts: this.deps.tts.name } })
  }

  /** Live control (POST /calls/{uuid}/control, through the CallControlBus). */
  control(m: CallControl): void {
    if (!this.started) return
    if (m.action === 'say') this.dispatch({ type: 'say', text: m.text, interrupt: m.interrupt })
    else if (m.action === 'transfer') this.dispatch({ type: 'transfer', target: m.target })
    else this.dispatch({ type: 'end', immediately: m.immediately })
  }

  /** The server is stopping: the call ends now, recorded as server_shutdown. */
  shutdown(): void {
    this.dispatch({ type: 'shutdown' })
  }

  private dispatch(frame: ControllerFrame): void {
    // Ended (or crashed): nothing more to decide.
    if (this.over) return
    this.depth++
    try {
      for (const c of this.controller.handle(frame, this.clock.now()).commands) this.execute(c)
    } catch (err) {
      // A bug in the call must end this call cleanly, not the process (frames arrive from timers
      // and sockets' callbacks, where a throw would be uncaught).
      if (this.depth > 1) throw err
      this.crashed(err)
    } finally {
      this.depth--
    }
    if (this.depth === 0) this.arm(this.over ? null : this.controller.nextWakeAt)
  }

  private crashed(err: unknown): void {
    if (this.over) return
    const message = (err instanceof Error ? err.message : String(err)).slice(0, 300)
    this.deps.recorder.event('error', { code: 'internal_error', message })
    try {
      this.deps.transport.emit({ type: 'error', code: 'internal_error', message: 'the call failed' })
    } finally {
      this.end({ type: 'end_call', reason: 'error', recorded: 'error' })
    }
  }

  private execute(c: Command): void {
    switch (c.type) {
      case 'listen':
        return this.input.open()
      case 'finalize_transcript':
        return this.input.finalize()
      case 'prewarm':
        this.deps.runtime.prewarm()
        this.deps.tts.prewarm?.()
        this.deps.stt.prewarm?.()
        return
      case 'mute_input':
        this.input.muted = c.muted
        return
      case 'preempt':
        return this.replies.preempt(c.text)
      case 'drop_preempt':
        return this.replies.dropPreempt()
      case 'start_reply':
        return this.replies.start(c.replyId, c.origin)
      case 'interrupt_reply':
        return this.replies.interrupt(c.replyId)
      case 'cancel_reply':
        return this.replies.cancel(c.replyId)
      case 'pause_playout':
        return this.replies.pause('barge_in')
      case 'resume_playout':
        return this.replies.resume('barge_in')
      case 'clear_caller_audio':
        return this.deps.transport.clearAudio()
      case 'emit':
        return this.deps.transport.emit(c.event)
      case 'record':
        return this.record(c.entry)
      case 'end_call':
        return this.end(c)
    }
  }

  private record(e: RecordEntry): void {
    const r = this.deps.recorder
    if (e.type === 'event') r.event(e.name, e.data)
    else if (e.type === 'transcript') r.transcript(e.role, e.text, { interrupted: e.interrupted, turnId: e.turnId })
    else r.metrics(e.metrics)
  }

  /** Stops everything once: replies, preemption, STT (the call signal), playout, VAD; records why. */
  private end(c: Extract<Command, { type: 'end_call' }>): void {
    this.over = true
    this.arm(null)
    this.replies.close()
    this.callAc.abort(new DOMException(`call ended: ${c.reason}`, 'AbortError'))
    this.input.close()
    this.deps.recorder.event('call_ended', {
      reason: c.reason,
      vad_dropped_windows: this.input.droppedWindows,
      // What the providers bill, counted where the audio and text leave (metering, api/billing).
      stt_audio_ms: this.input.sttAudioMs,
      tts_characters: this.replies.synthesizedCharacters,
    })
    this.deps.recorder.ended(c.recorded)
    this.deps.transport.end(c.reason)
  }

  /** One timer: the controller is ticked at the instant it asked for (a timer may fire a hair early: then again). */
  private arm(at: number | null): void {
    if (at === this.wakeArmedAt) return
    if (this.wake !== null) this.clock.clearTimer(this.wake)
    this.wake = null
    this.wakeArmedAt = at
    if (at === null) return
    this.wake = this.clock.setTimer(this.onWake, Math.max(0, at - this.clock.now()))
  }
}
