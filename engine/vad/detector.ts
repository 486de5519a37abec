import type { SpeechRate } from '../audio/format.js'
import { VAD_WINDOW_MS, vadWindowSamples } from './types.js'

export interface SpeechDetectorOptions {
  /** A window at or above this starts (or resumes) speech. */
  positiveThreshold: number
  /** Once speaking, windows at or above this still count as speech (hysteresis). */
  negativeThreshold: number
  /** Speech shorter than this is a misfire (a cough, a click) and is never reported. */
  minSpeechMs: number
  /** Silence that ends speech; shorter pauses (between words) are bridged. */
  silenceMs: number
  /** Duration of one probability window. */
  windowMs: number
  /**
   * Also report where speech pauses (the first quiet window) and resumes within silenceMs, so a
   * consumer that judges silence itself (end of turn) need not wait out the bridging hangover.
   */
  reportPauses: boolean
}

export const DEFAULT_SPEECH_DETECTOR: SpeechDetectorOptions = {
  positiveThreshold: 0.5,
  negativeThreshold: 0.35,
  minSpeechMs: 250,
  silenceMs: 300,
  windowMs: VAD_WINDOW_MS,
  reportPauses: false,
}

/**
 * `at` is when speech really started or stopped (a window boundary); `confirmedAt` is the end of
 * the window that made the detector sure, so `confirmedAt - at` is the detector's latency:
 * at least minSpeechMs for a start and silenceMs for an end.
 */
export type SpeechEvent =
  | { type: 'speech_start'; at: number; confirmedAt: number }
  | { type: 'speech_end'; at: number; confirmedAt: number }
  /** reportPauses: speech went quiet at `at`; a speech_end (same `at`) or a speech_resume follows. */
  | { type: 'speech_pause'; at: number; confirmedAt: number }
  /** reportPauses: speech came back before silenceMs had passed; `at` is where. */
  | { type: 'speech_resume'; at: number; confirmedAt: number }

export type SpeechState = 'quiet' | 'starting' | 'speaking' | 'stopping'

/** The QUIET → STARTING → SPEAKING → STOPPING machine over window probabilities; no I/O, no clock. */
export class SpeechDetector {
  private readonly options: SpeechDetectorOptions
  private current: SpeechState = 'quiet'
  private startAt = 0
  private speechMs = 0
  /** Where the current run of silence began (the end of the last speech window). */
  private silenceAt = 0

  constructor(options: Partial<SpeechDetectorOptions> = {}) {
    this.options = { ...DEFAULT_SPEECH_DETECTOR, ...options }
    const { positiveThreshold: pos, negativeThreshold: neg, minSpeechMs, silenceMs, windowMs } = this.options
    if (!(neg >= 0 && neg <= pos && pos <= 1)) throw new RangeError('need 0 <= negativeThreshold <= positiveThreshold <= 1')
    if (!(minSpeechMs >= 0 && silenceMs >= 0 && windowMs > 0)) throw new RangeError('durations must be non-negative')
  }

  get state(): SpeechState {
    return this.current
  }

  /** Feeds the probability of the window ending at `endMs`. */
  process(probability: number, endMs: number): SpeechEvent[] {
    const { positiveThreshold, negativeThreshold, minSpeechMs, silenceMs, windowMs } = this.options
    const startMs = endMs - windowMs
    const speech = probability >= negativeThreshold
    switch (this.current) {
      case 'quiet':
        if (probability >= positiveThreshold) {
          this.startAt = startMs
          this.speechMs = 0
          this.current = 'starting'
          return this.process(probability, endMs)
        }
        return []
      case 'starting':
        if (speech) {
          this.speechMs += windowMs
          this.silenceAt = endMs
          if (this.speechMs >= minSpeechMs) {
            this.current = 'speaking'
            return [{ type: 'speech_start', at: this.startAt, confirmedAt: endMs }]
          }
        } else if (endMs - this.silenceAt >= silenceMs) {
          this.current = 'quiet'
        }
        return []
      case 'speaking':
        if (speech) this.silenceAt = endMs
        else {
          this.current = 'stopping'
          if (this.options.reportPauses) return [{ type: 'speech_pause', at: this.silenceAt, confirmedAt: endMs }]
        }
        return []
      case 'stopping':
        // Only a confident window resumes speech; a doubtful one neither resumes nor resets the timer.
        if (probability >= positiveThreshold) {
          this.current = 'speaking'
          this.silenceAt = endMs
          return this.options.reportPauses ? [{ type: 'speech_resume', at: startMs, confirmedAt: endMs }] : []
        }
        if (endMs - this.silenceAt >= silenceMs) {
          this.current = 'quiet'
          return [{ type: 'speech_end', at: this.silenceAt, confirmedAt: endMs }]
        }
        return []
    }
  }

  /** End of the stream: speech still open ends where it was last heard. */
  finish(endMs: number): SpeechEvent[] {
    const open = this.current === 'speaking' || this.current === 'stopping'
    this.reset()
    return open ? [{ type: 'speech_end', at: this.silenceAt, confirmedAt: endMs }] : []
  }

  reset(): void {
    this.current = 'quiet'
    this.speechMs = 0
  }
}

export interface TimedWindow {
  samples: Int16Array
  /** Stream time (ms) of the end of the window. */
  endMs: number
}

/** Cuts arbitrary chunks at `sampleRate` into the VAD's fixed 32 ms windows, each stamped with its stream time. */
export class Windower {
  private readonly pending: Int16Array
  private filled = 0
  private consumed = 0
  private readonly windowSamples: number

  constructor(
    private readonly startMs = 0,
    private readonly sampleRate: SpeechRate = 16000,
  ) {
    this.windowSamples = vadWindowSamples(sampleRate)
    this.pending = new Int16Array(this.windowSamples)
  }

  /** Every window `chunk` completes, each an array of its own (for a caller that keeps them). */
  push(chunk: Int16Array): TimedWindow[] {
    const out: TimedWindow[] = []
    this.cut(chunk, (w) => out.push({ samples: w.samples.slice(), endMs: w.endMs }))
    return out
  }

  /**
   * Hands `visit` every window `chunk` completes, in one array the windower refills afterwards:
   * `visit` reads the window before it returns and keeps nothing of it. Why: the call's audio loop
   * cuts a window every 32 ms per call, and an array per window is ArrayBuffer memory that V8
   * counts toward starting a full GC (slab.ts); reading in place allocates nothing.
   */
  cut(chunk: Int16Array, visit: (w: TimedWindow) => void): void {
    let at = 0
    while (at < chunk.length) {
      const take = Math.min(this.windowSamples - this.filled, chunk.length - at)
      this.pending.set(chunk.subarray(at, at + take), this.filled)
      this.filled += take
      at += take
      if (this.filled === this.windowSamples) {
        this.consumed += this.windowSamples
        this.filled = 0
        visit({ samples: this.pending, endMs: this.startMs + (this.consumed * 1000) / this.sampleRate })
      }
    }
  }

  /** Samples held back waiting for a full window. */
  get buffered(): number {
    return this.filled
  }
}
