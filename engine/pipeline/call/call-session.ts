/**
 * One realtime web call: caller audio → VAD + STT → turn-taking → graph runtime → phrase chunker →
 * TTS → playout → the caller (ARCHITECTURE.md, "One voice turn, as data"; docs/protocol.md).
 *
 * Everything is injected (channel, runtime, providers, strategy, clock, recorder), so the session
 * is the same under a socket server, a bench or a test. Time is one monotonic clock (ms): VAD
 * events, which are stamped in audio time, are moved onto it by subtracting the detector's own
 * latency (`confirmedAt - at`) from the moment its verdict came in.
 *
 * Bounds: VAD backlog (`maxVadBacklog` windows, then windows are dropped and counted), phrases
 * between the runtime and TTS (BoundedQueue), audio in playout (`maxBufferMs`), audio toward the
 * socket (AudioWriter; playout pauses while more than `maxPendingWrites` frames wait for it). The
 * STT stream bounds what it holds itself.
 */
import { FRAME_MS, pcmView } from '../../audio/index.js'
import { discardTurn, type GraphRuntime } from '../../graph-runtime/runtime.js'
import type { RuntimeEvent } from '../../graph-runtime/io.js'
import type { CallControl } from '../../calls/control-bus.js'
import type { ClientChannel } from '../../server/client-channel.js'
import { CloseCode, events, type CallStatus, type EndReason, type ServerEvent } from '../../server/protocol.js'
import { BargeIn, type BargeInDecision, type BargeInOptions, DEFAULT_BARGE_IN } from '../../turn-taking/barge-in.js'
import { isBackchannel } from '../../turn-taking/backchannels.js'
import type { TurnDecision, TurnEvent, TurnStrategy } from '../../turn-taking/strategy.js'
import { BoundaryRefiner, SpeechDetector, Windower, type SpeechDetectorOptions, type VadModel, type VadStream } from '../../vad/index.js'
import { PhraseChunker } from '../phrase-chunker.js'
import { Playout, type PlayoutEvent, type PlayoutOptions } from '../playout.js'
import { realPlayoutClock, type PlayoutClock, type TimerId } from '../playout-clock.js'
import type { SttProvider, SttStream } from '../providers/stt/types.js'
import type { TtsCache } from '../providers/tts/cache.js'
import type { TtsProvider } from '../providers/tts/types.js'
import { CallerAudioClock } from './audio-clock.js'
import { FixedLine, Generation, type ReplySource } from './generation.js'
import { BoundedQueue } from './queue.js'
import type { CallEndReason, CallRecorder } from './recorder.js'

export interface CallLimits {
  /** The call ends (`max_duration`) this long after start(). */
  maxDurationMs: number
  /** Caller silent this long while the agent listens: the agent asks once, then ends (`idle_timeout`). */
  silenceTimeoutMs: number
}

export interface CallSessionDeps {
  channel: ClientChannel
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
  /** Agent frames waiting for the socket before playout pauses (default 50 ≈ 1 s). */
  maxPendingWrites?: number
}

/** Timestamps (clock ms) of one agent reply, for its `metrics` event. */
interface TurnTiming {
  speechEndAt: number | null
  finalAt: number | null
  endOfTurnAt: number | null
  firstTokenAt: number | null
  ttsFirstByteMs: number | null
  firstFrameAt: number | null
  bargeInStopMs: number | null
}

interface ActiveTurn {
  id: string
  /** The caller's words this reply answers; null for the greeting and fixed lines. */
  userText: string | null
  source: ReplySource
  timing: TurnTiming
  /** A frame of it has been sent. */
  speaking: boolean
  interrupted: boolean
  done: Promise<void>
}

const TICK_MS = FRAME_MS
/**
 * Silence (from the refined edge) after which a streaming STT is told to finalize, rather than at
 * the VAD's confirmed end (300 ms) or its own endpointing (Deepgram waits `endpointing` ms of
 * silence, 300 by default here): the final, and what is preempted on it, comes that much sooner.
 * Shorter pauses between words stay whole (espeak's run up to ~170 ms); a longer pause inside a
 * sentence gives the STT two segments, whose finals the turn joins.
 */
const FINALIZE_AFTER_MS = 200
const NO_TIMING = (): TurnTiming => ({
  speechEndAt: null,
  finalAt: null,
  endOfTurnAt: null,
  firstTokenAt: null,
  ttsFirstByteMs: null,
  firstFrameAt: null,
  bargeInStopMs: null,
})
const ms = (a: number | null, b: number | null): number | null => (a === null || b === null ? null : Math.max(0, Math.round(a - b)))
const errorCode = (err: unknown): string => {
  const code = (err as { code?: unknown } | null)?.code
  return typeof code === 'string' && /^[a-z][a-z0-9_]{1,40}$/.test(code) ? code : 'internal_error'
}
const errorMessage = (err: unknown): string => (err instanceof Error ? err.message : String(err)).slice(0, 300)

export class CallSession {
  private readonly d: CallSessionDeps
  private readonly clock: PlayoutClock
  private readonly callAc = new AbortController()
  private readonly playout: Playout
  private readonly bargeIn: BargeIn
  private readonly bargeInOptions: BargeInOptions
  private readonly windower = new Windower()
  private readonly detector: SpeechDetector
  /** Moves the VAD's late edges onto the signal's level (engine/vad/refine.ts). */
  private readonly refiner = new BoundaryRefiner()
  private vadStream: VadStream | null = null
  private stt: SttStream | null = null
  private vadChain: Promise<void> = Promise.resolve()
  private vadBacklog = 0
  private vadDropped = 0
  private ticker: TimerId | null = null
  /** The early Finalize of the current pause: pending timer, or done (so speech_end skips it). */
  private finalizeTimer: TimerId | null = null
  private finalizedPause = false
  private status: CallStatus = 'connecting'
  private turn: ActiveTurn | null = null
  private preempt: { text: string; gen: Generation } | null = null
  /** Settles when the runtime is free for the next generation. */
  private runtimeFree: Promise<void> = Promise.resolve()
  private userTurns = 0
  private lastSpeechEndAt: number | null = null
  private lastFinalAt: number | null = null
  private lastActivityAt = 0
  private userSpeaking = false
  private promptedStillThere = false
  private startedAt = 0
  private ending = false
  private pauses = new Set<'barge_in' | 'backpressure'>()
  private pendingWrites = 0
  private idleWaiters: (() => void)[] = []
  private started = false
  /** Lines from control `say`, spoken in order once the agent is free. */
  private readonly pendingLines: string[] = []
  private controlLines = 0
  /** Control `end` (not immediately): the call ends when the agent has finished speaking. */
  private endWhenQuiet = false
  /** The caller muted their microphone: their audio counts as silence, and silence as no reason to end. */
  private muted = false
  /** When the VAD window being judged arrived (its last frame), for the barge-in stop metric. */
  private windowArrivedAt = 0
  private readonly audioClock = new CallerAudioClock()
  private wake: TimerId | null = null
  private wakeAt: number | null = null

  constructor(deps: CallSessionDeps) {
    this.d = deps
    this.clock = deps.clock ?? realPlayoutClock
    this.bargeInOptions = { ...DEFAULT_BARGE_IN, lang: deps.language, ...deps.bargeIn }
    this.bargeIn = new BargeIn(this.bargeInOptions)
    this.detector = new SpeechDetector({ reportPauses: true, ...deps.detector })
    this.playout = new Playout({
      ...deps.playout,
      clock: this.clock,
      signal: this.callAc.signal,
      sink: (frame) => this.sendFrame(frame),
      onEvent: (e) => this.onPlayout(e),
    })
  }

  /** Aborted when the call ends, for whatever reason. */
  get signal(): AbortSignal {
    return this.callAc.signal
  }

  get callStatus(): CallStatus {
    return this.status
  }

  /** Wires the channel and starts the call: greeting first, listening meanwhile. */
  start(): void {
    if (this.started) throw new Error('CallSession.start() called twice')
    this.started = true
    const { channel, limits } = this.d
    this.startedAt = this.lastActivityAt = this.clock.now()
    channel.handlers = {
      audio: (pcm) => this.onAudio(pcm),
      control: (m) => {
        if (m.type === 'stop') this.finish('client_stop', 'client_hangup')
        else if (m.type === 'mute') {
          this.muted = m.muted
          this.d.recorder.event('mute', { muted: m.muted })
        }
      },
      closed: (code, reason) => {
        // The close code tells a hang-up (1000) from a client that broke the protocol (4400 after
        // malformed messages, 1007 invalid UTF-8), a dropped connection (1006) or a client's own code.
        if (!this.ending) this.d.recorder.event('socket_closed', { code, reason })
        if (code === CloseCode.protocolError || code === CloseCode.invalidPayload) this.finish('protocol_error', 'protocol_error')
        else this.finish('client_stop', code === 1000 ? 'client_hangup' : 'dropped')
      },
    }
    if (channel.closed) return this.finish('client_stop', 'dropped')
    if (!(limits.maxDurationMs > 0) || !(limits.silenceTimeoutMs > 0)) throw new RangeError('CallSession: limits must be > 0')
    this.d.recorder.event('call_started', { language: this.d.language, vad: this.d.vad.kind, stt: this.d.stt.name, tts: this.d.tts.name })
    this.vadStream = this.d.vad.stream()
    this.stt = this.d.stt.open({ language: this.d.language, signal: this.callAc.signal, sampleRate: 16000 })
    void this.sttLoop(this.stt)
    const tick = () => {
      this.ticker = null
      if (this.ending) return
      this.tick()
      if (!this.ending) this.ticker = this.clock.setTimer(tick, TICK_MS)
    }
    this.ticker = this.clock.setTimer(tick, TICK_MS)
    const gen = new Generation((signal) => this.d.runtime.start(signal), this.runtimeFree, this.clock.now(), this.callAc.signal)
    this.runtimeFree = gen.settled
    this.beginTurn('turn-0', null, gen, NO_TIMING())
  }

  // ── caller audio ───────────────────────────────────────────────────────────────────────────────

  private onAudio(input: Int16Array): void {
    if (this.ending) return
    // Muted audio still flows as silence, so turn timing and the STT stream keep going.
    const pcm = this.muted ? new Int16Array(input.length) : input
    const arrivedAt = this.clock.now()
    this.audioClock.frame(pcm.length, arrivedAt)
    this.stt?.push(pcm)
    const vad = this.vadStream
    if (!vad) return
    for (const w of this.windower.push(pcm)) {
      this.refiner.push(w)
      if (this.vadBacklog >= (this.d.maxVadBacklog ?? 64)) {
        if (this.vadDropped++ === 0) this.d.recorder.event('vad_overload', { backlog: this.vadBacklog })
        continue
      }
      this.vadBacklog++
      const p = vad.process(w.samples)
      this.vadChain = this.vadChain.then(() =>
        p.then(
          (prob) => {
            this.vadBacklog--
            this.windowArrivedAt = arrivedAt
            this.onVad(prob, w.endMs)
          },
          (err: unknown) => {
            this.vadBacklog--
            this.fail('vad_failed', `voice activity detection failed: ${errorMessage(err)}`)
          },
        ),
      )
    }
  }

  private onVad(probability: number, endMs: number): void {
    if (this.ending) return
    const now = this.clock.now()
    for (const e of this.detector.process(probability, endMs)) {
      // Two clocks for one edge. Turn-taking and barge-in keep the VAD's own edge: the end it places
      // late (by its fall time) balances the late onset of the words after a pause, which it also
      // needs a window or two to see; timing the silence from the true end would end turns inside
      // ordinary pauses. What is recorded and measured (voice-to-voice), and speculation's clock,
      // use the edge as placed on the signal, the true one, on the caller's clock (audio-clock.ts:
      // timed from `now`, when the model's result came back, edges were placed ~10 ms late).
      const at = now - (e.confirmedAt - e.at)
      const edge = e.type === 'speech_start' || e.type === 'speech_resume' ? this.refiner.refineStart(e.at) : this.refiner.refineEnd(e.at)
      const placed = this.audioClock.wallAt(edge)
      // A turn is coming: its LLM and TTS requests find their connections open (connections.ts).
      if (e.type === 'speech_start' || e.type === 'speech_pause') this.prewarm()
      if (e.type === 'speech_start') {
        this.userSpeaking = true
        this.lastActivityAt = now
        this.d.recorder.event('speech_start', { at: placed })
      } else if (e.type === 'speech_pause') {
        // Possibly the end: the turn's metrics count from here.
        this.lastSpeechEndAt = placed
        this.finalizeAt(placed + FINALIZE_AFTER_MS)
      } else if (e.type === 'speech_resume') {
        this.lastActivityAt = now
      } else {
        this.userSpeaking = false
        this.lastSpeechEndAt = placed
        this.lastActivityAt = now
        this.d.recorder.event('speech_end', { at: placed })
        if (!this.finalizedPause) this.stt?.endUtterance()
      }
      if (e.type !== 'speech_pause') this.cancelFinalize()
      this.turnEvent(e.type === 'speech_pause' || e.type === 'speech_end' ? { type: e.type, at, edgeAt: placed } : { type: e.type, at })
    }
  }

  private prewarm(): void {
    this.d.runtime.prewarm()
    this.d.tts.prewarm?.()
    this.d.stt.prewarm?.()
  }

  /** A streaming STT finalizes at `at` unless the caller speaks again first (cancelFinalize). */
  private finalizeAt(at: number): void {
    this.cancelFinalize()
    if (!this.d.stt.streaming) return
    this.finalizeTimer = this.clock.setTimer(
      () => {
        this.finalizeTimer = null
        this.finalizedPause = true
        this.stt?.endUtterance()
      },
      Math.max(0, at - this.clock.now()),
    )
  }

  private cancelFinalize(): void {
    if (this.finalizeTimer !== null) this.clock.clearTimer(this.finalizeTimer)
    this.finalizeTimer = null
    this.finalizedPause = false
  }

  private async sttLoop(stream: SttStream): Promise<void> {
    try {
      for await (const ev of stream.events) {
        if (this.ending) return
        if (ev.type === 'error') return this.fail(ev.error.code, ev.error.message)
        const now = this.clock.now()
        const text = ev.text.replace(/\s+/g, ' ').trim()
        if (text) this.lastActivityAt = now
        if (ev.type === 'final' && text) this.lastFinalAt = now
        if (ev.type === 'partial' && text) this.send(events.transcript({ role: 'user', text, final: false, turnId: `turn-${this.userTurns + 1}` }))
        this.turnEvent({ type: 'transcript', text: ev.text, final: ev.type === 'final', at: now })
      }
      if (!this.ending) this.fail('stt_failed', 'the transcription stream ended unexpectedly')
    } catch (err) {
      if (!this.ending) this.fail(errorCode(err), errorMessage(err))
    }
  }

  private tick(): void {
    const now = this.clock.now()
    if (now - this.startedAt >= this.d.limits.maxDurationMs) return this.finish('max_duration', 'max_duration')
    this.turnEvent({ type: 'tick', at: now })
    if (this.muted) this.lastActivityAt = now
    if (this.ending || this.turn || this.userSpeaking) return
    if (now - this.lastActivityAt < this.d.limits.silenceTimeoutMs) return
    if (this.promptedStillThere) return this.finish('idle_timeout', 'idle_timeout')
    this.promptedStillThere = true
    const prompt = this.d.stillTherePrompt ?? (this.d.language.startsWith('tr') ? 'Orada mısınız?' : 'Are you still there?')
    this.d.recorder.event('still_there', {})
    this.beginTurn(`prompt-${this.userTurns}`, null, new FixedLine(prompt, now), NO_TIMING())
  }

  // ── turn-taking ────────────────────────────────────────────────────────────────────────────────

  private turnEvent(e: TurnEvent): void {
    if (this.ending) return
    for (const b of this.bargeIn.handle(e)) this.onBargeIn(b)
    if (this.ending) return
    const decisions = this.d.strategy.handle(e)
    for (const dec of decisions) {
      this.onDecision(dec)
      if (this.ending) return
    }
    // A tick changes the strategy only through a decision: the frame ticks (every 20 ms, every
    // call) then leave the wake as it was.
    if (e.type !== 'tick' || decisions.length > 0) this.scheduleWake()
  }

  /**
   * A wait in the strategy runs out between two frame ticks: tick it at that instant, so a
   * speculation or an end of turn is not up to a frame (20 ms) late.
   */
  private scheduleWake(): void {
    const at = this.d.strategy.nextWakeAt?.() ?? null
    if (at === this.wakeAt) return
    if (this.wake !== null) this.clock.clearTimer(this.wake)
    this.wake = null
    this.wakeAt = at
    if (at === null) return
    this.wake = this.clock.setTimer(
      () => {
        this.wake = null
        this.wakeAt = null
        this.turnEvent({ type: 'tick', at: this.clock.now() })
        // A timer may fire a hair early and decide nothing: set it again.
        if (!this.ending) this.scheduleWake()
      },
      Math.max(0, at - this.clock.now()),
    )
  }

  private onDecision(dec: TurnDecision): void {
    switch (dec.type) {
      case 'preempt':
        // The agent is busy (thinking or speaking): nothing to gain, and the runtime is taken.
        if (this.turn || this.preempt) return
        this.preempt = { text: dec.text, gen: this.turnGeneration(dec.text) }
        this.preempt.gen.prime()
        this.d.recorder.event('preempt', { text: dec.text })
        return
      case 'cancel_preempt':
        if (!this.preempt) return
        // The caller went on: the words come back in a longer turn, so this one is forgotten.
        this.preempt.gen.cancel(discardTurn())
        // Its request took a warm connection, and a cancelled stream's connection is closed.
        this.prewarm()
        this.preempt = null
        this.d.recorder.event('cancel_preempt', {})
        return
      case 'end_of_turn':
        return this.endOfTurn(dec.text, dec.at)
    }
  }

  private endOfTurn(raw: string, at: number): void {
    let text = raw.replace(/\s+/g, ' ').trim()
    if (!text) return
    const current = this.turn
    if (current) {
      if (current.speaking) {
        // Words over the agent that did not interrupt it: a backchannel leaves it talking.
        if (!this.bargeInOptions.backchannelsInterrupt && isBackchannel(text, this.d.language, this.bargeInOptions.backchannels)) {
          this.d.recorder.event('backchannel', { text })
          return
        }
        this.interrupt(current)
      } else if (current.userText !== null) {
        // The caller added words before the reply was heard: answer everything they said.
        text = `${current.userText} ${text}`
        current.interrupted = true
        current.source.cancel()
        this.turn = null
        this.userTurns--
      } else {
        current.interrupted = true
        current.source.cancel()
        this.turn = null
      }
    }
    const id = `turn-${++this.userTurns}`
    this.promptedStillThere = false
    this.send(events.transcript({ role: 'user', text, final: true, turnId: id }))
    this.d.recorder.transcript('user', text, { interrupted: false, turnId: id })
    let gen: Generation
    if (this.preempt && this.preempt.text === text) {
      gen = this.preempt.gen
      this.d.recorder.event('preempt_used', { text })
    } else {
      // Superseded by the words that ended the turn: forgotten, not kept as said.
      this.preempt?.gen.cancel(discardTurn())
      gen = this.turnGeneration(text)
    }
    this.preempt = null
    this.setStatus('thinking')
    this.beginTurn(id, text, gen, { ...NO_TIMING(), speechEndAt: this.lastSpeechEndAt, finalAt: this.lastFinalAt, endOfTurnAt: at })
  }

  private turnGeneration(text: string): Generation {
    const gen = new Generation((signal) => this.d.runtime.turn(text, signal), this.runtimeFree, this.clock.now(), this.callAc.signal)
    this.runtimeFree = gen.settled
    return gen
  }

  private onBargeIn(b: BargeInDecision): void {
    this.d.recorder.event(`barge_in_${b.type}`, { ...b })
    if (b.type === 'pause') {
      this.pause('barge_in')
      if (this.turn?.speaking) this.turn.timing.bargeInStopMs = Math.max(0, Math.round(this.clock.now() - this.windowArrivedAt))
    } else if (b.type === 'resume') this.unpause('barge_in')
    else if (this.turn?.speaking) this.interrupt(this.turn)
    else this.unpause('barge_in')
  }

  /** The caller took the turn: stop the reply, keep only what was heard. */
  private interrupt(t: ActiveTurn): void {
    if (t.interrupted) return
    t.interrupted = true
    const { heardText } = this.playout.interrupt()
    t.source.cancel()
    // The model's history keeps only what was heard, once the cut generation has let go of the
    // runtime and before the next one takes it.
    if (t.source instanceof Generation) this.runtimeFree = this.runtimeFree.then(() => this.d.runtime.replyHeard(heardText))
    this.pauses.delete('barge_in')
    this.d.channel.audio.flush()
    this.send(events.clear())
    this.send(events.transcript({ role: 'agent', text: heardText, final: true, turnId: t.id, interrupted: true }))
    this.d.recorder.transcript('agent', heardText, { interrupted: true, turnId: t.id })
    this.endReply(t)
    this.setStatus('listening')
  }

  // ── agent replies ──────────────────────────────────────────────────────────────────────────────

  private beginTurn(id: string, userText: string | null, source: ReplySource, timing: TurnTiming): void {
    const t: ActiveTurn = { id, userText, source, timing, speaking: false, interrupted: false, done: Promise.resolve() }
    this.turn = t
    t.done = this.runTurn(t).catch((err: unknown) => {
      if (!this.ending) this.fail(errorCode(err), errorMessage(err))
    })
  }

  private async runTurn(t: ActiveTurn): Promise<void> {
    const signal = t.source.ac.signal
    this.playout.startTurn(signal)
    const phrases = new BoundedQueue<{ text: string; cached: boolean }>(8)
    const chunker = new PhraseChunker()
    let streamed = false
    let endDisposition: string | null = null
    const put = async (list: string[], cached: boolean) => {
      for (const text of list) await phrases.push({ text, cached })
    }
    const pump = async () => {
      try {
        for await (const ev of t.source.events()) {
          if (signal.aborted) break
          switch (ev.kind) {
            case 'text_delta':
              t.timing.firstTokenAt ??= this.clock.now()
              streamed = true
              await put(chunker.push(ev.text), false)
              break
            case 'say':
              t.timing.firstTokenAt ??= this.clock.now()
              if (streamed) await put(chunker.flush(), false)
              else await put([ev.text], ev.source === 'static')
              streamed = false
              break
            case 'end':
              endDisposition = ev.disposition
              this.d.recorder.event('runtime_end', { disposition: ev.disposition })
              break
            case 'error':
              this.send(events.error(ev.code, ev.message))
              this.d.recorder.event('runtime_error', { code: ev.code, message: ev.message })
              break
            default:
              this.d.recorder.event(ev.kind, { ...(ev as Exclude<RuntimeEvent, { kind: 'say' | 'text_delta' | 'end' | 'error' }>) })
          }
        }
        if (!signal.aborted) await put(chunker.flush(), false)
      } finally {
        phrases.close()
      }
    }
    const speakAll = async () => {
      try {
        for await (const p of phrases) {
          if (signal.aborted) break
          await this.synthesize(t, p.text, p.cached, signal)
        }
      } catch (err) {
        phrases.clear()
        t.source.cancel(err)
        throw err
      }
    }
    const [a, b] = await Promise.allSettled([pump(), speakAll()])
    if (t.interrupted || this.ending) return
    const failure = a.status === 'rejected' ? a.reason : b.status === 'rejected' ? b.reason : null
    if (failure !== null) {
      t.source.cancel()
      if (!signal.aborted || !(failure instanceof DOMException)) throw failure
      return
    }
    await this.playoutIdle()
    if (t.interrupted || this.ending) return
    const heard = this.playout.heardText()
    if (heard) {
      this.send(events.transcript({ role: 'agent', text: heard, final: true, turnId: t.id }))
      this.d.recorder.transcript('agent', heard, { interrupted: false, turnId: t.id })
    }
    this.endReply(t)
    if (endDisposition !== null) return this.finish('agent_ended', 'agent_ended')
    this.afterReply()
  }

  /** The agent is free: the next control line, the end control `end` waited for, or listening. */
  private afterReply(): void {
    if (this.ending || this.turn) return
    const line = this.pendingLines.shift()
    if (line !== undefined) return this.beginTurn(`say-${++this.controlLines}`, null, new FixedLine(line, this.clock.now()), NO_TIMING())
    if (this.endWhenQuiet) return this.finish('ended_by_api', 'ended_by_api')
    this.setStatus('listening')
  }

  // ── live control (POST /calls/{uuid}/control, through the CallControlBus) ─────────────────────

  control(m: CallControl): void {
    if (this.ending || !this.started) return
    this.d.recorder.event('control', { ...m })
    switch (m.action) {
      case 'say': {
        const current = this.turn
        if (m.interrupt && current) {
          if (current.speaking) this.interrupt(current)
          else {
            // Not heard yet: the reply is dropped, as when the caller adds words before it plays.
            current.interrupted = true
            current.source.cancel()
            this.turn = null
          }
        }
        this.pendingLines.push(m.text)
        return this.afterReply()
      }
      case 'end':
        if (m.immediately || (!this.turn && this.pendingLines.length === 0)) return this.finish('ended_by_api', 'ended_by_api')
        this.endWhenQuiet = true
        return
      case 'transfer':
        this.send(events.transfer(m.target))
        return this.finish('transfer', 'transfer')
    }
  }

  private async synthesize(t: ActiveTurn, text: string, cached: boolean, signal: AbortSignal): Promise<void> {
    const seg = this.playout.beginSegment(text)
    const requested = this.clock.now()
    const opts = { signal, language: this.d.language, ...(this.d.voice !== undefined ? { voice: this.d.voice } : {}) }
    const audio = cached && this.d.ttsCache ? this.d.ttsCache.synthesizeCached(this.d.tts, text, opts) : this.d.tts.synthesize(text, opts)
    try {
      for await (const chunk of audio) {
        t.timing.ttsFirstByteMs ??= this.clock.now() - requested
        if (!(await seg.push(chunk))) break
      }
    } finally {
      seg.end()
    }
  }

  /** Once per reply that ends (heard in full or interrupted): metrics, barge-in disarmed. */
  private endReply(t: ActiveTurn): void {
    if (this.turn === t) this.turn = null
    this.setAgentSpeaking(false)
    this.lastActivityAt = this.clock.now()
    // Audible gaps in the reply, for operators (and the bench): rare, so only when there were any.
    const p = this.playout.metrics()
    if (p.underruns + p.stalls + p.phraseGaps > 0) {
      this.d.recorder.event('playout_gaps', {
        turn_id: t.id,
        underruns: p.underruns,
        underrun_ms: Math.round(p.underrunMs),
        stalls: p.stalls,
        stall_ms: Math.round(p.stallMs),
        phrase_gaps: p.phraseGaps,
        phrase_gap_ms: Math.round(p.phraseGapMs),
      })
    }
    if (t.userText === null) return
    const m = t.timing
    const metrics = {
      endpointingMs: ms(m.endOfTurnAt, m.speechEndAt),
      sttMs: ms(m.finalAt, m.speechEndAt),
      llmFirstTokenMs: ms(m.firstTokenAt, t.source.startedAt),
      ttsFirstByteMs: m.ttsFirstByteMs === null ? null : Math.round(m.ttsFirstByteMs),
      engineMs: ms(m.firstFrameAt, m.endOfTurnAt),
      voiceToVoiceMs: ms(m.firstFrameAt, m.speechEndAt),
      bargeInStopMs: t.interrupted ? m.bargeInStopMs : null,
    }
    const wire: Record<string, number> = {}
    for (const [k, v] of Object.entries(metrics)) if (v !== null) wire[k] = v
    this.send(events.metrics(t.id, wire))
    this.d.recorder.metrics({ turnId: t.id, ...metrics, interrupted: t.interrupted })
  }

  // ── playout and output ─────────────────────────────────────────────────────────────────────────

  private sendFrame(frame: Int16Array): void {
    const t = this.turn
    if (t && !t.speaking) {
      t.speaking = true
      t.timing.firstFrameAt = this.clock.now()
      this.setStatus('speaking')
      this.setAgentSpeaking(true)
    }
    this.pendingWrites++
    const settle = () => {
      this.pendingWrites--
      if (this.pendingWrites < (this.d.maxPendingWrites ?? 50) / 2) this.unpause('backpressure')
    }
    // A view, no copy: uWS copies on send, ws keeps it until written, and a sent frame never changes.
    this.d.channel.audio.write(pcmView(frame)).then(settle, settle)
    if (this.pendingWrites >= (this.d.maxPendingWrites ?? 50)) this.pause('backpressure')
  }

  private onPlayout(e: PlayoutEvent): void {
    if (e.type === 'drained' || e.type === 'interrupted') for (const w of this.idleWaiters.splice(0)) w()
  }

  private playoutIdle(): Promise<void> {
    if (this.playout.idle || this.ending) return Promise.resolve()
    return new Promise((resolve) => this.idleWaiters.push(resolve))
  }

  private pause(why: 'barge_in' | 'backpressure'): void {
    this.pauses.add(why)
    this.playout.pause()
  }

  private unpause(why: 'barge_in' | 'backpressure'): void {
    if (!this.pauses.delete(why) || this.pauses.size > 0) return
    this.playout.resume()
  }

  private agentSpeaking = false
  private setAgentSpeaking(speaking: boolean): void {
    if (this.agentSpeaking === speaking) return
    this.agentSpeaking = speaking
    for (const b of this.bargeIn.handle({ type: 'agent_speaking', speaking, at: this.clock.now() })) this.onBargeIn(b)
  }

  private setStatus(status: CallStatus): void {
    if (this.status === status || this.ending) return
    this.status = status
    this.send(events.status(status))
  }

  private send(e: ServerEvent): void {
    if (!this.d.channel.closed) this.d.channel.send(e)
  }

  // ── the end ────────────────────────────────────────────────────────────────────────────────────

  /** A provider or engine failure: `error` event, then `ended: error`, close 1000. */
  private fail(code: string, message: string): void {
    if (this.ending) return
    this.send(events.error(code, message))
    this.d.recorder.event('error', { code, message })
    this.finish('error', 'error')
  }

  /** Ends the call once: aborts turn, preempt, STT, playout and TTS; records why; ended + close. */
  finish(reason: EndReason, recorded: CallEndReason): void {
    if (this.ending) return
    this.ending = true
    if (this.ticker !== null) this.clock.clearTimer(this.ticker)
    this.ticker = null
    if (this.wake !== null) this.clock.clearTimer(this.wake)
    this.wake = null
    this.cancelFinalize()
    this.turn?.source.cancel()
    this.preempt?.gen.cancel()
    this.preempt = null
    this.callAc.abort(new DOMException(`call ended: ${reason}`, 'AbortError'))
    this.playout.close()
    for (const w of this.idleWaiters.splice(0)) w()
    this.vadStream?.reset()
    this.d.recorder.event('call_ended', { reason, vad_dropped_windows: this.vadDropped })
    this.d.recorder.ended(recorded)
    this.status = 'ended'
    if (!this.d.channel.closed) {
      this.send(events.status('ended'))
      this.d.channel.end(reason)
    }
  }
}
