import type { TurnDecision, TurnEvent, TurnStrategy } from './strategy.js'

export interface EndpointerOptions {
  /** Silence after speech_end before the turn ends (the agent config's `endpointing_ms`). */
  silenceMs: number
  /**
   * How long after speech_end to wait for the STT to finalize when it lags (no final yet, or words
   * after the last final). When it passes, the turn ends on the finals plus the last partial.
   */
  maxWaitForFinalMs: number
  /**
   * Emit `preempt` during the silence wait (the config's `preemptive_generation`): on a stable
   * final, and, while the final is still pending, on the STT's latest partial (a speculation).
   */
  preemptive: boolean
  /**
   * Silence before a partial is speculated on. Speech has pauses between words (up to ~170 ms in
   * the bench's espeak lines, more in people's): speculating in each would spend an LLM request per
   * pause and the per-turn budget before the turn's real end.
   */
  speculateAfterMs: number
}

/**
 * Speculations on partials per turn. A partial taken at the pause may still miss the last word, so
 * the next partial replaces it; past this many, the turn waits for the final (each costs an LLM
 * request that is thrown away if the final says otherwise).
 */
export const MAX_SPECULATIONS = 3

export const DEFAULT_ENDPOINTER: EndpointerOptions = { silenceMs: 300, maxWaitForFinalMs: 1500, preemptive: true, speculateAfterMs: 150 }

function checkMs(name: string, value: number): void {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a finite number of ms ≥ 0, got ${value}`)
}

/**
 * The state machine shared by the silence-based strategies; subclasses only say how long to wait
 * for a given text. Rules:
 * - The silence clock starts at speech_end (or the speech_pause before it) and stops at
 *   speech_start or speech_resume.
 * - The turn is "ready" when there is final text, no words after it (no pending partial) and the
 *   STT has said something since the latest speech_start. Ready + silence ≥ waitMs(text) →
 *   end_of_turn with the finals.
 * - STT lag: not ready after max(waitMs, maxWaitForFinalMs) of silence → end_of_turn with the
 *   finals plus the last partial, so a slow STT never holds the caller hostage. Speech the STT has
 *   not transcribed yet counts as lag: ending on the earlier finals would cut the user off (and
 *   preempting them would waste a generation), so a cough after a final costs up to that wait.
 * - No words at all (VAD fired on noise, STT heard nothing) → no end_of_turn; a late final still
 *   ends the turn as soon as it arrives, since its silence has already been waited.
 * - A final with no VAD speech around it (VAD missed a quiet voice) starts the clock itself.
 * - Preemption: ready and silent → `preempt` once per text; speech_start or any new words while a
 *   preempt is outstanding → `cancel_preempt` (and a new preempt once ready again).
 * - Speculation: silent for speculateAfterMs, final still pending, a partial that came after the
 *   speech went quiet → `preempt` on the finals plus that partial (at most MAX_SPECULATIONS per
 *   turn). An STT's final often comes a few hundred ms after its partials already hold every
 *   word; when the final says the same, the preempt stands (the turn keeps it), so the model's
 *   time overlaps the STT's. A final or partial that says anything else cancels it, as any new
 *   words do. A text the caller spoke on after (a pause inside the turn) is not speculated on
 *   again until the STT says more.
 */
export abstract class Endpointer implements TurnStrategy {
  protected readonly options: EndpointerOptions
  private speaking = false
  private silentSince: number | null = null
  /** The refined edge of the current silence (speculation's clock); silentSince when unknown. */
  private quietSince: number | null = null
  private finals: string[] = []
  private partial = ''
  /** When the current partial arrived. */
  private partialAt = 0
  /** The STT has produced words since the latest speech_start. */
  private heard = false
  private preempted: string | null = null
  private speculations = 0
  /** A speculated text the caller spoke on after: not the turn's end, so not speculated on again. */
  private spokenPast: string | null = null

  constructor(options: Partial<EndpointerOptions> = {}) {
    this.options = { ...DEFAULT_ENDPOINTER, ...options }
    checkMs('silenceMs', this.options.silenceMs)
    checkMs('maxWaitForFinalMs', this.options.maxWaitForFinalMs)
    checkMs('speculateAfterMs', this.options.speculateAfterMs)
  }

  /** Silence (ms) to wait after speech that produced `text`. */
  protected abstract waitMs(text: string): number

  handle(event: TurnEvent): TurnDecision[] {
    const out: TurnDecision[] = []
    switch (event.type) {
      case 'speech_start':
        this.speaking = true
        this.silentSince = null
        this.quietSince = null
        this.heard = false
        this.spokeOn()
        this.cancel(event.at, out)
        break
      case 'speech_pause':
        this.speaking = false
        this.silentSince = event.at
        this.quietSince = event.edgeAt ?? event.at
        break
      case 'speech_resume':
        // The same utterance goes on: what the STT heard of it still counts, a preempt does not.
        this.speaking = true
        this.silentSince = null
        this.quietSince = null
        this.spokeOn()
        this.cancel(event.at, out)
        break
      case 'speech_end':
        // After a speech_pause the silence has been counting since that same instant, or the turn
        // has even ended on it: a confirmation arriving after that must not restart the clock
        // (a stale clock would end the caller's next words as soon as the STT hears one of them).
        if (this.speaking) {
          this.silentSince = event.at
          this.quietSince = event.edgeAt ?? event.at
        }
        this.speaking = false
        break
      case 'transcript': {
        const text = event.text.replace(/\s+/g, ' ').trim()
        if (event.final) {
          if (text) this.finals.push(text)
          this.partial = ''
        } else {
          this.partial = text
          this.partialAt = event.at
        }
        if (!text) break
        this.heard = true
        // Finals only ever add words, and a partial after a final is a new segment: unless the
        // words are the very ones preempted (the final confirming a speculation), the user went
        // on or the STT changed its mind, so whatever was preempted is stale.
        if (this.preempted !== this.heardText()) this.cancel(event.at, out)
        if (!this.speaking && this.silentSince === null) this.silentSince = this.quietSince = event.at
        break
      }
      case 'tick':
        break
    }
    this.evaluate(event.at, out)
    return out
  }

  reset(): void {
    // `speaking` mirrors the VAD, which keeps running; only the turn is forgotten.
    this.silentSince = null
    this.quietSince = null
    this.finals = []
    this.partial = ''
    this.heard = false
    this.preempted = null
    this.speculations = 0
    this.spokenPast = null
  }

  /** The caller speaks again: what was preempted (if it was a speculation on a partial) was no end. */
  private spokeOn(): void {
    if (this.preempted !== null && this.partial) this.spokenPast = this.preempted
  }

  /** The finals plus the pending partial: everything the STT has said this turn. */
  private heardText(): string {
    const finals = this.finals.join(' ')
    return finals && this.partial ? `${finals} ${this.partial}` : finals || this.partial
  }

  nextWakeAt(): number | null {
    const p = this.pending()
    if (!p) return null
    return p.speculateAt === null ? p.endAt : Math.min(p.endAt, p.speculateAt)
  }

  /**
   * What the current silence waits for, or null when only new events can end it: the end of turn
   * at `endAt` on `text` (`ready`: on the finals alone), and a speculation at `speculateAt` (null
   * when none is due). evaluate() acts on it and nextWakeAt() reads it, so they cannot disagree.
   */
  private pending(): { text: string; ready: boolean; endAt: number; speculateAt: number | null } | null {
    if (this.speaking || this.silentSince === null) return null
    const finalText = this.finals.join(' ')
    if (finalText && !this.partial && this.heard) return { text: finalText, ready: true, endAt: this.silentSince + this.waitMs(finalText), speculateAt: null }
    const text = this.heardText()
    if (!text) return null
    const endAt = this.silentSince + Math.max(this.waitMs(text), this.options.maxWaitForFinalMs)
    return { text, ready: false, endAt, speculateAt: this.canSpeculate(text) ? this.quietStart() + this.options.speculateAfterMs : null }
  }

  private canSpeculate(text: string): boolean {
    // Only a partial sent after the speech went quiet can hold its last words: one from while the
    // caller spoke is all but sure to differ from the final, and would waste the request.
    const fresh = this.partialAt >= this.quietStart()
    return (
      this.options.preemptive &&
      !!this.partial &&
      fresh &&
      this.heard &&
      this.preempted !== text &&
      text !== this.spokenPast &&
      this.speculations < MAX_SPECULATIONS
    )
  }

  /** Where speculation's silence began: the refined edge, never after the VAD's own. */
  private quietStart(): number {
    return Math.min(this.quietSince ?? this.silentSince!, this.silentSince!)
  }

  private evaluate(at: number, out: TurnDecision[]): void {
    const p = this.pending()
    if (!p) return
    if (at >= p.endAt) return this.end(at, p.text, out)
    if (p.ready) {
      if (this.options.preemptive && this.preempted !== p.text) {
        this.preempted = p.text
        out.push({ type: 'preempt', text: p.text, at })
      }
      return
    }
    if (p.speculateAt !== null && at >= p.speculateAt) {
      this.cancel(at, out)
      this.speculations++
      this.preempted = p.text
      out.push({ type: 'preempt', text: p.text, at })
    }
  }

  private end(at: number, text: string, out: TurnDecision[]): void {
    if (this.preempted !== text) this.cancel(at, out)
    out.push({ type: 'end_of_turn', at, text, waitedMs: at - (this.silentSince ?? at) })
    this.reset()
  }

  private cancel(at: number, out: TurnDecision[]): void {
    if (this.preempted === null) return
    this.preempted = null
    out.push({ type: 'cancel_preempt', at })
  }
}
