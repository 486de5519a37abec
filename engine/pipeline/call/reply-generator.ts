/**
 * The agent's side of the call, an adapter around the controller: graph runtime → phrase chunker
 * → TTS → playout → the transport. It runs the replies the controller starts and reports their
 * progress as reply frames (first text, first audio, first frame played, workflow steps, what was
 * heard); it decides nothing about turns.
 *
 * The runtime is one conversation: its generations run one at a time (each waits for the previous
 * one's `settled`), a cut reply's history keeps only what was heard (replyHeard, queued behind the
 * cut generation), and a preempted generation is primed and held until the controller takes it or
 * drops it.
 *
 * Bounds: phrases between the runtime and TTS (a Channel of 8 that makes the runtime wait), audio in playout
 * (`maxBufferMs`), audio toward the transport (playout pauses while more than `maxPendingWrites`
 * frames wait for it, and resumes below half of that).
 */
import { discardTurn, type GraphRuntime } from '../../graph-runtime/index.js'
import { Channel } from '../channel.js'
import type { ControllerFrame, PlayoutGaps, ReplyOrigin } from '../frames.js'
import { FRAME_LANE, failureFrame } from '../frames.js'
import { PhraseChunker } from '../phrase-chunker.js'
import { speechTextFor } from '../text/speech-text.js'
import { Playout, type PlayoutEvent, type PlayoutOptions } from '../playout.js'
import type { PlayoutClock } from '../playout-clock.js'
import type { TtsCache } from '../providers/tts/cache.js'
import type { TtsProvider } from '../providers/tts/types.js'
import type { SpeechRate } from '../../audio/format.js'
import { FixedLine, Generation, type ReplySource } from './generation.js'

export interface ReplyGeneratorDeps {
  runtime: GraphRuntime
  tts: TtsProvider
  /** Static lines (greetings, say/collect prompts) are synthesized through it when given. */
  ttsCache?: TtsCache
  voice?: string
  language: string
  clock: PlayoutClock
  playout?: Partial<PlayoutOptions>
  /** The rate the agent speaks at: 16 kHz (default), or a phone line's 8 kHz, synthesized at it. */
  sampleRate?: SpeechRate
  /** Agent audio out: one 20 ms frame of PCM16 at `sampleRate`; resolves once written. */
  writeAudio(frame: Int16Array): Promise<unknown>
  /** writeAudio reads each frame before it returns and keeps nothing (CallTransport.writesAudioAtOnce). */
  writesAudioAtOnce?: boolean
  /** Agent frames waiting for the transport before playout pauses (default 50 ≈ 1 s). */
  maxPendingWrites?: number
  /** The call's signal: aborting it ends every generation and closes the playout. */
  signal: AbortSignal
  report(frame: ControllerFrame): void
}

interface Running {
  id: string
  source: ReplySource
  /** Cut, dropped or finished: nothing more of it is reported. */
  over: boolean
  textReported: boolean
  audioReported: boolean
  playing: boolean
}

type PauseReason = 'barge_in' | 'backpressure'

export class ReplyGenerator {
  private readonly playout: Playout
  /** Settles when the runtime is free for the next generation. */
  private runtimeFree: Promise<void> = Promise.resolve()
  private held: { text: string; gen: Generation } | null = null
  private current: Running | null = null
  private readonly pauses = new Set<PauseReason>()
  private pendingWrites = 0
  private idleWaiters: (() => void)[] = []
  /** Characters sent to the TTS provider (lines replayed from the cache cost nothing): metering, api/billing. */
  synthesizedCharacters = 0
  /** What the provider is given for a phrase: numbers, money, dates and times in words (text/speech-text.ts). */
  private readonly speechText: (phrase: string) => string

  constructor(private readonly deps: ReplyGeneratorDeps) {
    this.speechText = speechTextFor(deps.language)
    this.playout = new Playout({
      ...deps.playout,
      ...(deps.sampleRate !== undefined && { sampleRate: deps.sampleRate }),
      sinkReadsAtOnce: deps.writesAudioAtOnce === true,
      clock: deps.clock,
      signal: deps.signal,
      sink: (frame) => this.sendFrame(frame),
      onEvent: (e) => this.onPlayout(e),
    })
  }

  start(replyId: string, origin: ReplyOrigin): void {
    const r: Running = { id: replyId, source: this.sourceFor(origin), over: false, textReported: false, audioReported: false, playing: false }
    this.current = r
    this.run(r).catch((err: unknown) => {
      if (r.over || this.deps.signal.aborted) return
      r.over = true
      this.deps.report(failureFrame('engine', err, 'internal_error'))
    })
  }

  /** Starts answering `text` early and holds the output (preemptive generation). */
  preempt(text: string): void {
    this.dropPreempt()
    const gen = this.generation((signal) => this.deps.runtime.turn(text, signal))
    gen.prime()
    this.held = { text, gen }
  }

  /** The held generation is forgotten: its words come back in a longer turn. */
  dropPreempt(): void {
    this.held?.gen.cancel(discardTurn())
    this.held = null
  }

  /** Cuts the reply now and reports what was heard (reply_heard, synchronously). */
  interrupt(replyId: string): void {
    const r = this.current
    if (!r || r.id !== replyId || r.over) return
    r.over = true
    this.current = null
    const { heardText } = this.playout.interrupt()
    r.source.cancel()
    // The model's history keeps only what was heard, once the cut generation has let go of the
    // runtime and before the next one takes it.
    if (r.source instanceof Generation) this.runtimeFree = this.runtimeFree.then(() => this.deps.runtime.replyHeard(heardText))
    this.pauses.delete('barge_in')
    this.deps.report({ type: 'reply_heard', replyId, heard: heardText, interrupted: true, gaps: this.gaps() })
  }

  /** Drops a reply nothing of which was heard (its runtime turn is undone by the abort). */
  cancel(replyId: string): void {
    const r = this.current
    if (!r || r.id !== replyId) return
    r.over = true
    this.current = null
    r.source.cancel()
  }

  pause(why: PauseReason): void {
    this.pauses.add(why)
    this.playout.pause()
  }

  resume(why: PauseReason): void {
    if (!this.pauses.delete(why) || this.pauses.size > 0) return
    this.playout.resume()
  }

  /** The call ended: every generation stops, the playout closes for good. */
  close(): void {
    if (this.current) this.current.over = true
    this.current?.source.cancel()
    this.current = null
    this.held?.gen.cancel()
    this.held = null
    this.playout.close()
    for (const w of this.idleWaiters.splice(0)) w()
  }

  private sourceFor(origin: ReplyOrigin): ReplySource {
    const now = this.deps.clock.now()
    if (origin.type === 'line') return new FixedLine(origin.text, now)
    if (origin.type === 'greeting') return this.generation((signal) => this.deps.runtime.start(signal))
    if (origin.type === 'transfer_failed') return this.generation((signal) => this.deps.runtime.transferFailed(signal))
    const held = this.held
    this.held = null
    if (origin.preempted && held?.text === origin.text) return held.gen
    held?.gen.cancel(discardTurn())
    return this.generation((signal) => this.deps.runtime.turn(origin.text, signal))
  }

  private generation(open: (signal: AbortSignal) => ReturnType<GraphRuntime['start']>): Generation {
    const gen = new Generation(open, this.runtimeFree, this.deps.clock.now(), this.deps.signal)
    this.runtimeFree = gen.settled
    return gen
  }

  /** A cut or dropped reply's data and control frames go nowhere (frames.ts, lanes). */
  private report(r: Running, frame: ControllerFrame): void {
    if (!r.over || FRAME_LANE[frame.type] === 'system') this.deps.report(frame)
  }

  private async run(r: Running): Promise<void> {
    const signal = r.source.ac.signal
    this.playout.startTurn(signal)
    const phrases = new Channel<{ text: string; cached: boolean }>({ capacity: 8, overflow: 'wait', name: 'reply phrases' })
    const chunker = new PhraseChunker()
    let streamed = false
    const put = async (list: string[], cached: boolean) => {
      for (const text of list) await phrases.push({ text, cached })
    }
    const firstText = () => {
      if (r.textReported) return
      r.textReported = true
      this.report(r, { type: 'reply_text', replyId: r.id, at: this.deps.clock.now() })
    }
    const pump = async () => {
      try {
        for await (const ev of r.source.events()) {
          if (signal.aborted) break
          switch (ev.type) {
            case 'text_delta':
              firstText()
              streamed = true
              await put(chunker.push(ev.text), false)
              break
            case 'say':
              firstText()
              if (streamed) await put(chunker.flush(), false)
              else await put([ev.text], ev.source === 'static')
              streamed = false
              break
            case 'end':
              this.report(r, { type: 'reply_ends_call', replyId: r.id, disposition: ev.disposition })
              break
            case 'error':
              this.report(r, { type: 'reply_warning', replyId: r.id, code: ev.code, message: ev.message })
              break
            default: {
              // Recorded under its name, with `kind` as the stored session events have always had it.
              const { type, ...rest } = ev
              this.report(r, { type: 'reply_step', replyId: r.id, name: type, data: { kind: type, ...rest } })
            }
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
          await this.synthesize(r, p.text, p.cached, signal)
        }
      } catch (err) {
        phrases.clear()
        r.source.cancel(err)
        throw err
      }
    }
    const [a, b] = await Promise.allSettled([pump(), speakAll()])
    if (r.over || this.deps.signal.aborted) return
    const failure = a.status === 'rejected' ? a.reason : b.status === 'rejected' ? b.reason : null
    if (failure !== null) {
      r.source.cancel()
      if (!signal.aborted || !(failure instanceof DOMException)) throw failure
      return
    }
    await this.playoutIdle()
    if (r.over || this.deps.signal.aborted) return
    r.over = true
    if (this.current === r) this.current = null
    this.deps.report({ type: 'reply_heard', replyId: r.id, heard: this.playout.heardText(), interrupted: false, gaps: this.gaps() })
  }

  private async synthesize(r: Running, text: string, cached: boolean, signal: AbortSignal): Promise<void> {
    const seg = this.playout.beginSegment(text)
    const requested = this.deps.clock.now()
    const opts = {
      signal,
      language: this.deps.language,
      ...(this.deps.voice !== undefined && { voice: this.deps.voice }),
      ...(this.deps.sampleRate !== undefined && { sampleRate: this.deps.sampleRate }),
    }
    const fromCache = cached && this.deps.ttsCache !== undefined
    const spoken = this.speechText(text)
    if (!fromCache || !this.deps.ttsCache!.has(this.deps.tts.name, spoken, opts)) this.synthesizedCharacters += spoken.length
    const audio = fromCache ? this.deps.ttsCache!.synthesizeCached(this.deps.tts, spoken, opts) : this.deps.tts.synthesize(spoken, opts)
    try {
      for await (const chunk of audio) {
        if (!r.audioReported) {
          r.audioReported = true
          this.report(r, { type: 'reply_audio', replyId: r.id, ms: this.deps.clock.now() - requested })
        }
        if (!(await seg.push(chunk))) break
      }
    } finally {
      seg.end()
    }
  }

  private gaps(): PlayoutGaps {
    const m = this.playout.metrics()
    return {
      underruns: m.underruns,
      underrunMs: m.underrunMs,
      stalls: m.stalls,
      stallMs: m.stallMs,
      phraseGaps: m.phraseGaps,
      phraseGapMs: m.phraseGapMs,
    }
  }

  private sendFrame(frame: Int16Array): void {
    const r = this.current
    if (r && !r.playing) {
      r.playing = true
      this.report(r, { type: 'reply_playing', replyId: r.id, at: this.deps.clock.now() })
    }
    this.pendingWrites++
    const max = this.deps.maxPendingWrites ?? 50
    const settle = () => {
      this.pendingWrites--
      if (this.pendingWrites < max / 2) this.resume('backpressure')
    }
    this.deps.writeAudio(frame).then(settle, settle)
    if (this.pendingWrites >= max) this.pause('backpressure')
  }

  private onPlayout(e: PlayoutEvent): void {
    if (e.type === 'drained' || e.type === 'interrupted') for (const w of this.idleWaiters.splice(0)) w()
  }

  private playoutIdle(): Promise<void> {
    if (this.playout.idle || this.deps.signal.aborted) return Promise.resolve()
    return new Promise((resolve) => this.idleWaiters.push(resolve))
  }
}
