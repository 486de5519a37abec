import { isBackchannel } from './backchannels.js'
import type { TurnEvent } from './strategy.js'

/**
 * Interruptions while the agent speaks. The contract with the pipeline:
 * 1. VAD speech while the agent speaks → `pause`: pause playout at once (within the current frame),
 *    keeping the queued audio. The LLM and TTS keep running.
 * 2. Then exactly one of:
 *    - `interrupt`: the user really took the turn — abort the turn (LLM, TTS, playout) and drop the
 *      paused audio; only what was played counts as said.
 *    - `resume`: a false interruption (noise, a cough, a backchannel, too short or too few words) —
 *      continue playout where it paused.
 *    - nothing, if the caller reports `agent_speaking: false` first (the turn ended some other way).
 * With `pauseOnSpeech: false` only `interrupt` is emitted and playout is never paused.
 */
export type BargeInEvent = TurnEvent | { type: 'agent_speaking'; speaking: boolean; at: number }

export type BargeInDecision =
  | { type: 'pause'; at: number }
  /** `speech`: VAD alone decided (minWords 0); `words`: enough non-backchannel words were heard. */
  | { type: 'interrupt'; at: number; reason: 'speech' | 'words' }
  | { type: 'resume'; at: number; reason: 'no_words' | 'backchannel' | 'too_short' | 'too_few_words' }

export interface BargeInOptions {
  /** Speech (VAD) needed before an interruption counts (config `interruption_min_duration_ms`). */
  minSpeechMs: number
  /** Words needed (config `interruption_min_words`); 0 = VAD alone, which also skips the backchannel check. */
  minWords: number
  /** Let backchannels ("yeah", "tamam") interrupt like any other words. */
  backchannelsInterrupt: boolean
  /** Silence after the user's speech with no interrupting words before the agent resumes. */
  falseInterruptionMs: number
  pauseOnSpeech: boolean
  /** Narrows the built-in backchannel lists ("en", "tr-TR"); both languages when absent. */
  lang?: string
  /** Replaces the built-in backchannel lists (config `backchannel_words`). */
  backchannels?: readonly string[]
}

export const DEFAULT_BARGE_IN: BargeInOptions = {
  minSpeechMs: 250,
  minWords: 1,
  backchannelsInterrupt: false,
  falseInterruptionMs: 800,
  pauseOnSpeech: true,
}

/** The user's speech since the pause: VAD time and words, across several VAD segments. */
interface Candidate {
  speechMs: number
  segmentStart: number | null
  silentSince: number | null
  finals: string[]
  partial: string
}

export class BargeIn {
  private readonly options: BargeInOptions
  private agentSpeaking = false
  private userSpeaking = false
  private candidate: Candidate | null = null

  constructor(options: Partial<BargeInOptions> = {}) {
    this.options = { ...DEFAULT_BARGE_IN, ...options }
    for (const name of ['minSpeechMs', 'minWords', 'falseInterruptionMs'] as const) {
      const value = this.options[name]
      if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a finite number ≥ 0, got ${value}`)
    }
  }

  handle(event: BargeInEvent): BargeInDecision[] {
    const out: BargeInDecision[] = []
    switch (event.type) {
      case 'agent_speaking':
        // Edge-triggered: repeating `true` (say, per phrase) must not forget a pending pause.
        if (event.speaking === this.agentSpeaking) break
        this.agentSpeaking = event.speaking
        this.candidate = null
        // The user already talking when the agent starts is speech over the agent too.
        if (event.speaking && this.userSpeaking) this.open(event.at, out)
        break
      case 'speech_start':
        this.userSpeaking = true
        if (this.candidate) {
          this.candidate.segmentStart = event.at
          this.candidate.silentSince = null
        } else if (this.agentSpeaking) this.open(event.at, out)
        break
      case 'speech_end':
        this.userSpeaking = false
        if (this.candidate?.segmentStart != null) {
          this.candidate.speechMs += event.at - this.candidate.segmentStart
          this.candidate.segmentStart = null
          this.candidate.silentSince = event.at
        }
        break
      case 'transcript': {
        const c = this.candidate
        if (!c) break
        const text = event.text.replace(/\s+/g, ' ').trim()
        if (event.final) {
          if (text) c.finals.push(text)
          c.partial = ''
        } else c.partial = text
        break
      }
      case 'tick':
      // Barge-in judges whole speech segments; pauses inside one change nothing.
      case 'speech_pause':
      case 'speech_resume':
        break
    }
    this.evaluate(event.at, out)
    return out
  }

  reset(): void {
    this.agentSpeaking = false
    this.userSpeaking = false
    this.candidate = null
  }

  private open(at: number, out: BargeInDecision[]): void {
    this.candidate = { speechMs: 0, segmentStart: at, silentSince: null, finals: [], partial: '' }
    if (this.options.pauseOnSpeech) out.push({ type: 'pause', at })
  }

  private evaluate(at: number, out: BargeInDecision[]): void {
    const c = this.candidate
    if (!c) return
    const o = this.options
    const speechMs = c.speechMs + (c.segmentStart === null ? 0 : at - c.segmentStart)
    const text = [...c.finals, c.partial].filter(Boolean).join(' ')
    const words = text ? text.split(' ').filter((w) => /[\p{L}\p{N}]/u.test(w)).length : 0
    const backchannel = words > 0 && !o.backchannelsInterrupt && isBackchannel(text, o.lang, o.backchannels)
    const enoughWords = o.minWords === 0 || (words >= o.minWords && !backchannel)
    if (speechMs >= o.minSpeechMs && enoughWords) {
      out.push({ type: 'interrupt', at, reason: o.minWords === 0 ? 'speech' : 'words' })
      // The turn is over for this agent reply; the next agent_speaking(true) re-arms.
      this.candidate = null
      this.agentSpeaking = false
      return
    }
    if (c.silentSince === null) return
    // A final backchannel needs no timeout: the STT already says what it was.
    const settledBackchannel = backchannel && !c.partial
    if (!settledBackchannel && at - c.silentSince < o.falseInterruptionMs) return
    const reason = words === 0 ? 'no_words' : backchannel ? 'backchannel' : speechMs < o.minSpeechMs ? 'too_short' : 'too_few_words'
    this.candidate = null
    if (o.pauseOnSpeech) out.push({ type: 'resume', at, reason })
  }
}
