import { FRAME_MS, isSpeechRate, SAMPLE_RATE, type SpeechRate } from '../audio/format.js'
import { BlockPool, SampleQueue } from '../audio/sample-queue.js'
import { slabInt16 } from '../audio/slab.js'
import { realPlayoutClock, type PlayoutClock, type TimerId } from './playout-clock.js'
import { countGap, emptyMetrics, type PlayoutMetrics, type PlayoutWait } from './playout-metrics.js'
import { type HeardSegment, heardOf, newSegment, type Segment } from './playout-segment.js'

export type { PlayoutMetrics } from './playout-metrics.js'
export { heardPrefix, type HeardSegment } from './playout-segment.js'

/**
 * Real-time playout of the agent's voice: the last stage of a reply (docs/architecture.md, "Voice
 * engine pieces": graph runtime → phrase chunker → TTS → playout → socket writer).
 *
 * Input: one *segment* per phrase (one TTS synthesis): `beginSegment(text)`, then `push(pcm)` for
 * each chunk as it arrives (any size), then `end()`, at the call's rate (`sampleRate`: 16 kHz, or a
 * phone line's 8). Output: exact 20 ms frames at that rate to the sink, the last frame of a segment
 * zero-padded.
 *
 * Pacing. Frame n after an anchor is sent once `anchor + (n + 1) × 20 ms ≤ now + leadMs`: times are
 * computed from the anchor, never from the previous timer, so late timers do not accumulate drift,
 * and catching up after a late timer never puts more than `leadMs` of audio ahead of real time. The
 * lead keeps the client's jitter buffer fed. The anchor moves only when the client has run dry
 * (start, after a pause, an underrun or a stalled timer): then sending restarts from `now`.
 *
 * Heard text: what was sent counts as heard, in proportion within a segment and to a word boundary;
 * playout-segment.ts says how, and what protocol v1's `clear` event (sent on a barge-in) changes.
 *
 * Buffer. Queued audio is bounded by `maxBufferMs`: push() resolves at once while there is room,
 * else when enough has been played (backpressure toward TTS). It may overshoot by one chunk: a chunk
 * into an empty buffer, or one the playing segment needs to make progress (otherwise a prefetched
 * next phrase filling the buffer would deadlock the current one). Producers must await push().
 * Admitted audio is copied into blocks this playout reuses for the call's life (SampleQueue says
 * why), so the bound is generous: a whole reply usually fits, and TTS streams are read as fast as
 * they come instead of waiting, as garbage-to-be, in network buffers.
 *
 * Turns. `startTurn(signal)` opens a turn; aborting its signal = interrupt(). interrupt() drops all
 * queued and waiting audio (their push() resolves false), marks unfinished segments interrupted and
 * returns what was heard. New segments may be begun afterwards; startTurn() resets the heard record
 * and metrics. The constructor's `signal` is the call's: aborting it closes the playout for good.
 *
 * Underruns (the playing segment ran dry before its end) send nothing: silence fillers would be
 * heard as part of the phrase and skew heard text. Gaps between phrases are not underruns.
 */
export interface PlayoutOptions {
  /** Audio sent ahead of real time to feed the client's jitter buffer; ≥ FRAME_MS. */
  leadMs: number
  /** Bound on queued (unsent) audio across segments. */
  maxBufferMs: number
  /** Speaking-rate estimate for a segment still being synthesized (≈ 16 characters/s). */
  msPerChar: number
}

/** 20 s of queued audio is 640 KB at most per call (320 KB at 8 kHz), held in reused blocks. */
export const DEFAULT_PLAYOUT: PlayoutOptions = { leadMs: 60, maxBufferMs: 20_000, msPerChar: 60 }

export type PlayoutEvent =
  | { type: 'segment_started'; text: string; at: number }
  /** `at`: its last frame was sent. */
  | { type: 'segment_finished'; text: string; at: number }
  | { type: 'interrupted'; heardText: string; at: number }
  /** Nothing left to play; `audioEndsAt`: when the client will have played everything sent. */
  | { type: 'drained'; at: number; audioEndsAt: number }

export interface SegmentHandle {
  /** Resolves true once queued, false if dropped (interrupt, abort, close). */
  push(pcm: Int16Array): Promise<boolean>
  end(): void
}

export interface PlayoutInit extends Partial<PlayoutOptions> {
  /** The rate of the audio pushed and of the frames out (default 16 kHz). */
  sampleRate?: SpeechRate
  sink: (frame: Int16Array) => void
  /**
   * The sink reads each frame before it returns and keeps nothing of it (a phone line encodes it
   * at once): the playout then hands it one array it refills, instead of a new array a frame,
   * which the GC would count toward its next full collection (docs/architecture.md).
   */
  sinkReadsAtOnce?: boolean
  onEvent?: (event: PlayoutEvent) => void
  clock?: PlayoutClock
  signal?: AbortSignal
}

export class Playout {
  private readonly options: PlayoutOptions
  private readonly samplesPerMs: number
  /** Samples in one 20 ms frame at the playout's rate. */
  private readonly frameSamples: number
  private readonly clock: PlayoutClock
  private readonly sink: (frame: Int16Array) => void
  /** The one frame array handed to a sink that reads at once; undefined: a new array a frame. */
  private readonly reusedFrame: Int16Array | undefined
  private readonly onEvent: (event: PlayoutEvent) => void
  /** Segments of the turn, in order; the playing one is the first still open. */
  private segments: Segment[] = []
  /** Blocks for every segment's audio, this playout's alone. */
  private readonly blocks = new BlockPool()
  private queued = 0
  private anchor = 0
  private framesSinceAnchor = 0
  /** Why nothing is being sent: decides how a gap is counted when sending restarts. */
  private wait: PlayoutWait = 'idle'
  private paused = false
  private closed = false
  private timer: TimerId | null = null
  /** Bumped by interrupt/close so a tick in progress (the sink reentering) stops. */
  private generation = 0
  private drainPending = false
  private turnMetrics = emptyMetrics()
  private turnSignal: AbortSignal | null = null
  private readonly onTurnAbort = () => this.interrupt()

  constructor(init: PlayoutInit) {
    const { sink, onEvent, clock, signal, sampleRate = SAMPLE_RATE, sinkReadsAtOnce = false, ...options } = init
    this.options = { ...DEFAULT_PLAYOUT, ...options }
    if (!isSpeechRate(sampleRate)) throw new RangeError(`sampleRate must be 8000 or 16000, got ${sampleRate}`)
    this.samplesPerMs = sampleRate / 1000
    this.frameSamples = FRAME_MS * this.samplesPerMs
    if (!(this.options.leadMs >= FRAME_MS) || !Number.isFinite(this.options.leadMs))
      throw new RangeError(`leadMs must be ≥ ${FRAME_MS}, got ${this.options.leadMs}`)
    if (!(this.options.maxBufferMs >= FRAME_MS) || !Number.isFinite(this.options.maxBufferMs))
      throw new RangeError(`maxBufferMs must be ≥ ${FRAME_MS}, got ${this.options.maxBufferMs}`)
    if (!(this.options.msPerChar > 0) || !Number.isFinite(this.options.msPerChar)) throw new RangeError(`msPerChar must be > 0, got ${this.options.msPerChar}`)
    this.sink = sink
    this.reusedFrame = sinkReadsAtOnce ? new Int16Array(this.frameSamples) : undefined
    this.onEvent = onEvent ?? (() => {})
    this.clock = clock ?? realPlayoutClock
    if (signal?.aborted) this.close()
    else signal?.addEventListener('abort', () => this.close(), { once: true })
  }

  /** A new turn: fresh heard record and metrics; leftover audio of the previous turn is interrupted. */
  startTurn(signal?: AbortSignal): void {
    this.turnSignal?.removeEventListener('abort', this.onTurnAbort)
    if (this.segments.some((s) => s.state === 'open')) this.interrupt()
    this.segments = []
    this.turnMetrics = emptyMetrics()
    this.turnSignal = signal ?? null
    if (signal?.aborted) return
    signal?.addEventListener('abort', this.onTurnAbort, { once: true })
  }

  beginSegment(text: string): SegmentHandle {
    const seg = newSegment(text, new SampleQueue(this.blocks))
    if (this.closed || this.turnSignal?.aborted) seg.state = 'interrupted'
    else this.segments.push(seg)
    return {
      push: (pcm) => this.push(seg, pcm),
      end: () => this.end(seg),
    }
  }

  /** Stops sending now: the frame already sent is the last until resume(). Queued audio is kept. */
  pause(): void {
    if (this.paused || this.closed) return
    this.paused = true
    this.wait = 'paused'
    this.cancelTimer()
  }

  /** Continues where pause() stopped (a false interruption). */
  resume(): void {
    if (!this.paused || this.closed) return
    this.paused = false
    this.tick()
  }

  /** Barge-in: drops queued audio, releases waiting pushes, and returns the words heard. */
  interrupt(): { heardText: string; interrupted: boolean } {
    const at = this.clock.now()
    this.generation++
    this.cancelTimer()
    let cut = false
    for (const seg of this.segments) {
      if (seg.state !== 'open') continue
      cut = true
      seg.heardAtCut = heardOf(seg, this.options.msPerChar, this.samplesPerMs)
      seg.state = 'interrupted'
      this.dropAudio(seg)
    }
    this.queued = 0
    this.paused = false
    this.wait = 'idle'
    this.drainPending = false
    const heardText = this.heardText()
    if (cut) this.onEvent({ type: 'interrupted', heardText, at })
    return { heardText, interrupted: cut }
  }

  /** The call ended: interrupt and refuse everything from now on. */
  close(): void {
    if (this.closed) return
    this.interrupt()
    this.closed = true
  }

  /** Started segments of the turn, each with the part of its text heard so far. */
  heard(): HeardSegment[] {
    return this.segments
      .filter((s) => s.framesSent > 0 || s.state === 'finished')
      .map((s) => ({ text: heardOf(s, this.options.msPerChar, this.samplesPerMs), complete: s.state === 'finished', interrupted: s.state === 'interrupted' }))
  }

  heardText(): string {
    return this.heard()
      .map((h) => h.text)
      .filter(Boolean)
      .join(' ')
  }

  metrics(): PlayoutMetrics {
    return { ...this.turnMetrics }
  }

  /** Unsent audio admitted to the buffer, in ms. */
  get bufferedMs(): number {
    return this.queued / this.samplesPerMs
  }

  get idle(): boolean {
    return !this.segments.some((s) => s.state === 'open')
  }

  // ── input ──────────────────────────────────────────────────────────────────────────────────────

  private push(seg: Segment, pcm: Int16Array): Promise<boolean> {
    if (seg.state !== 'open') return Promise.resolve(false)
    if (seg.endCalled) throw new Error('playout: push() after end()')
    if (pcm.length === 0) return Promise.resolve(true)
    if (seg.waiting.length === 0 && this.fits(seg, pcm.length)) {
      this.admit(seg, pcm)
      this.wake()
      return Promise.resolve(true)
    }
    return new Promise((resolve) => seg.waiting.push({ pcm, resolve }))
  }

  private end(seg: Segment): void {
    if (seg.state !== 'open' || seg.endCalled) return
    seg.endCalled = true
    this.wake()
  }

  private fits(seg: Segment, samples: number): boolean {
    const max = this.options.maxBufferMs * this.samplesPerMs
    return this.queued === 0 || this.queued + samples <= max || (seg === this.playing() && seg.audio.length < this.frameSamples)
  }

  private admit(seg: Segment, pcm: Int16Array): void {
    seg.audio.write(pcm)
    seg.admitted += pcm.length
    this.queued += pcm.length
    this.turnMetrics.firstChunkAt ??= this.clock.now()
  }

  /** Admits waiting chunks in segment order, stopping at the first that does not fit. */
  private admitWaiting(): void {
    for (const seg of this.segments) {
      if (seg.state !== 'open') continue
      while (seg.waiting.length > 0) {
        const w = seg.waiting[0]!
        if (!this.fits(seg, w.pcm.length)) return
        seg.waiting.shift()
        this.admit(seg, w.pcm)
        w.resolve(true)
      }
    }
  }

  private dropAudio(seg: Segment): void {
    seg.audio.clear()
    for (const w of seg.waiting.splice(0)) w.resolve(false)
  }

  // ── output ─────────────────────────────────────────────────────────────────────────────────────

  private playing(): Segment | undefined {
    return this.segments.find((s) => s.state === 'open')
  }

  /** New input may unblock a waiting playout; a pending timer or a pause already has it in hand. */
  private wake(): void {
    if (this.paused || this.closed || this.timer !== null) return
    this.tick()
  }

  private tick(): void {
    this.timer = null
    const gen = this.generation
    while (!this.paused && gen === this.generation) {
      const now = this.clock.now()
      const seg = this.playing()
      if (!seg) return this.finishDrain(now)
      if (!this.hasFrame(seg)) {
        if (!this.isComplete(seg)) {
          this.wait = seg.framesSent > 0 ? 'starved' : 'idle'
          return
        }
        this.finishSegment(seg, now)
        continue
      }
      this.reanchorIfDry(now)
      const dueAt = this.anchor + (this.framesSinceAnchor + 1) * FRAME_MS - this.options.leadMs
      if (dueAt > now) {
        this.timer = this.clock.setTimer(() => this.tick(), dueAt - now)
        return
      }
      this.sendFrame(seg, now)
    }
  }

  /** When the client has played everything sent, sending restarts from now; the gap is accounted. */
  private reanchorIfDry(now: number): void {
    const gap = now - (this.anchor + this.framesSinceAnchor * FRAME_MS)
    if (gap > 0) {
      countGap(this.turnMetrics, this.wait, gap)
      this.anchor = now
      this.framesSinceAnchor = 0
    }
    this.wait = 'none'
  }

  private sendFrame(seg: Segment, now: number): void {
    const { frame, real } = this.takeFrame(seg)
    this.queued -= real
    seg.sent += real
    seg.framesSent++
    this.framesSinceAnchor++
    this.turnMetrics.framesSent++
    this.turnMetrics.firstFrameAt ??= now
    this.drainPending = true
    if (seg.framesSent === 1) this.onEvent({ type: 'segment_started', text: seg.text, at: now })
    this.sink(frame)
    this.admitWaiting()
  }

  private hasFrame(seg: Segment): boolean {
    return seg.audio.length >= this.frameSamples || (seg.audio.length > 0 && this.isComplete(seg))
  }

  /** end() was called and every waiting chunk of the segment has been admitted. */
  private isComplete(seg: Segment): boolean {
    return seg.endCalled && seg.waiting.length === 0
  }

  /** Copies one frame out of the segment's audio; a short tail is zero-padded. */
  private takeFrame(seg: Segment): { frame: Int16Array; real: number } {
    const frame = this.reusedFrame ?? slabInt16(this.frameSamples)
    const real = seg.audio.read(frame, 0, this.frameSamples)
    if (this.reusedFrame && real < frame.length) frame.fill(0, real)
    return { frame, real }
  }

  private finishSegment(seg: Segment, now: number): void {
    seg.state = 'finished'
    if (seg.framesSent === 0) this.onEvent({ type: 'segment_started', text: seg.text, at: now })
    this.onEvent({ type: 'segment_finished', text: seg.text, at: now })
  }

  private finishDrain(now: number): void {
    this.wait = 'idle'
    if (!this.drainPending) return
    this.drainPending = false
    this.onEvent({ type: 'drained', at: now, audioEndsAt: this.anchor + this.framesSinceAnchor * FRAME_MS })
  }

  private cancelTimer(): void {
    if (this.timer === null) return
    this.clock.clearTimer(this.timer)
    this.timer = null
  }
}
