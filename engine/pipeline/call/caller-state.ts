/**
 * What the controller knows of the caller, kept from VAD edges and transcripts: speaking or not,
 * when they last spoke or were heard, whether they muted, and the early finalize a pause asks of a
 * streaming STT. Bookkeeping only: the controller decides what to do with it.
 */
import type { SpeechEdgeFrame } from '../frames.js'
import { FINALIZE_AFTER_MS } from './controller-options.js'

/** A transcript as the turn sees it: whitespace runs made one space, ends trimmed. */
export const normalize = (text: string) => text.replace(/\s+/g, ' ').trim()

export class CallerState {
  speaking = false
  muted = false
  /** When the caller's speech last stopped (the refined edge): a turn's metrics count from it. */
  lastSpeechEndAt: number | null = null
  lastFinalAt: number | null = null
  /** Speech, words or a reply ending: silence (for the still-there prompt) counts from here. */
  lastActivityAt = 0
  /** When the audio that showed the caller's latest speech arrived, for the barge-in stop metric. */
  speechHeardAt = 0
  /** The early finalize of the current pause: due at this time, or done (so speech_end skips it). */
  finalizeAt: number | null = null
  private finalizedPause = false

  constructor(private readonly streamingStt: boolean) {}

  /** Takes a VAD edge; true when the STT should be told to finalize now (the speech ended, no early finalize yet). */
  edge(e: SpeechEdgeFrame, placed: number, now: number): boolean {
    let finalize = false
    if (e.type === 'speech_start') {
      this.speaking = true
      this.lastActivityAt = now
      this.speechHeardAt = e.heardAt ?? now
    } else if (e.type === 'speech_pause') {
      // Possibly the end: the turn's metrics count from here, and a streaming STT is told to
      // finalize a little into the pause unless the caller speaks again first.
      this.lastSpeechEndAt = placed
      if (this.streamingStt) this.finalizeAt = placed + FINALIZE_AFTER_MS
      this.finalizedPause = false
    } else if (e.type === 'speech_resume') {
      this.lastActivityAt = now
    } else {
      this.speaking = false
      this.lastSpeechEndAt = placed
      this.lastActivityAt = now
      finalize = !this.finalizedPause
    }
    if (e.type !== 'speech_pause') {
      this.finalizeAt = null
      this.finalizedPause = false
    }
    return finalize
  }

  transcript(text: string, final: boolean, now: number): void {
    if (!text) return
    this.lastActivityAt = now
    if (final) this.lastFinalAt = now
  }

  /** True when the pause's early finalize is due now (once). */
  finalizeDue(now: number): boolean {
    if (this.finalizeAt === null || now < this.finalizeAt) return false
    this.finalizeAt = null
    this.finalizedPause = true
    return true
  }

  /** How long the caller has given nothing to answer; a muted caller is never silent. */
  silentFor(now: number): number {
    if (this.muted) this.lastActivityAt = now
    return now - this.lastActivityAt
  }
}
