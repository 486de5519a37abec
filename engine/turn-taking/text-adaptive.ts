import { Endpointer, type EndpointerOptions } from './endpointer.js'
import { textCue } from './text-cues.js'

export interface TextAdaptiveOptions extends EndpointerOptions {
  /** Multiplier on silenceMs after a complete sentence or question (answer sooner). */
  completeFactor: number
  /** Multiplier on silenceMs after a trailing conjunction or filler (let them finish the thought). */
  incompleteFactor: number
  /** Upper bound on any wait, so a trailing "and" never stalls the call for long. */
  maxSilenceMs: number
}

export const DEFAULT_TEXT_ADAPTIVE: Omit<TextAdaptiveOptions, keyof EndpointerOptions> = {
  completeFactor: 0.6,
  incompleteFactor: 2,
  maxSilenceMs: 1200,
}

/**
 * Silence-based end of turn whose wait follows the words (see text-cues.ts for the table):
 * 300 ms by default becomes 180 ms after "Is it open?" and 600 ms after "I'd like to book and".
 */
export class TextAdaptiveStrategy extends Endpointer {
  private readonly factors: typeof DEFAULT_TEXT_ADAPTIVE

  constructor(options: Partial<TextAdaptiveOptions> = {}) {
    super(options)
    this.factors = {
      completeFactor: options.completeFactor ?? DEFAULT_TEXT_ADAPTIVE.completeFactor,
      incompleteFactor: options.incompleteFactor ?? DEFAULT_TEXT_ADAPTIVE.incompleteFactor,
      maxSilenceMs: options.maxSilenceMs ?? DEFAULT_TEXT_ADAPTIVE.maxSilenceMs,
    }
    for (const [name, value] of Object.entries(this.factors))
      if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a finite number ≥ 0, got ${value}`)
  }

  protected waitMs(text: string): number {
    const { silenceMs } = this.options
    const cue = textCue(text)
    const factor = cue === 'complete' ? this.factors.completeFactor : cue === 'incomplete' ? this.factors.incompleteFactor : 1
    return Math.min(Math.round(silenceMs * factor), Math.max(silenceMs, this.factors.maxSilenceMs))
  }
}
