/**
 * The JSON the conversation-quality scenario prints (bench/conversation-quality.ts): what
 * score.ts makes of the situations, with the run's configuration around it. Shares are fractions
 * (0..1) or null when nothing of that kind was scored; durations in ms.
 */
import type { Distribution } from '../voice/result.js'
import type { Cue, Lang, SituationType } from './plan.js'

/** The agent's transcript of a reply against the audio that reached the caller (score.ts). */
export interface HeardCheck {
  heard_ms: number
  /** Words the oracle counts heard with one frame less and one frame more of audio. */
  words_heard_min: number
  words_heard_max: number
  words_claimed: number
  /** overclaimed: a word whose audio never arrived (or words not of the reply); underclaimed: a heard word left out. */
  verdict: 'exact' | 'overclaimed' | 'underclaimed'
}

interface Base {
  id: string
  lang: Lang
  voice: string
  rate_wpm: number
}

export type OverAgentScore = Base & {
  type: 'backchannel' | 'noise'
  ignored: boolean
  interrupted: boolean
  user_turn: boolean
  resumed: boolean
  stopped_ms: number
  heard: HeardCheck | null
}
/** `resumed`: the engine paused for the caller, then went on with the reply before (or instead of) giving up the turn. */
export type BargeInScore = Base & {
  type: 'barge_in'
  honoured: boolean
  stop_ms: number | null
  in_time: boolean
  resumed: boolean
  engine_stop_ms: number | null
  heard: HeardCheck | null
}
export type TurnScore = Base & {
  type: 'pause' | 'long_turn'
  pause_ms: number | null
  cue: Cue | null
  premature: boolean
  split: boolean
  joined: boolean
  answered: boolean
}
export type FastTurnsScore = Base & { type: 'fast_turns'; turns: number; answered: number; exact: number }
/** A situation that could not be staged as labelled: reported, never scored. */
export type InvalidScore = Base & { type: SituationType; invalid: string }
export type SituationScore = OverAgentScore | BargeInScore | TurnScore | FastTurnsScore | InvalidScore

export interface GoalFigure {
  figure: string
  goal: string
  value: number | null
  unit: string
  /** null: not measured (nothing of that kind was scored). */
  met: boolean | null
}

interface OverAgentFigures {
  n: number
  ignored: number
  ignored_share: number | null
  interrupted: number
  user_turns: number
  /** The agent went quiet and then went on (a false-interruption resume). */
  resumed: number
}

export interface ConversationQualityScores {
  situations: number
  invalid: Array<{ id: string; reason: string }>
  backchannels: OverAgentFigures
  noise: OverAgentFigures
  barge_ins: {
    n: number
    honoured: number
    honoured_share: number | null
    /** Honoured with the agent's audio stopped within 150 ms of the speech onset. */
    in_time: number
    in_time_share: number | null
    /** Paused for the caller, then talked on (a false-interruption resume of a real barge-in). */
    resumed: number
    /** Last agent audio before the `clear` − speech onset, honoured barge-ins (a resume in between counts in it). */
    stop_ms: Distribution
    /** The engine's own `barge_in_stop_ms` (VAD decision → playout paused). */
    engine_stop_ms: Distribution
  }
  pauses: {
    n: number
    goal_max_pause_ms: number
    /** Pauses ≤ goal_max_pause_ms. */
    short_n: number
    premature_short: number
    premature_long: number
    split: number
    joined: number
    by_pause_ms: Record<string, { n: number; premature: number; split: number }>
  }
  long_turns: { n: number; premature: number; answered: number }
  fast_turns: { n: number; turns: number; answered: number; exact: number }
  /** Backchannels and noises the agent stopped for and then went on. */
  false_interruption_resumes: number
  transcript_heard: { checked: number; exact: number; overclaimed: number; underclaimed: number }
  by_situation: SituationScore[]
  goals: GoalFigure[]
}

export interface ConversationQualityResult extends ConversationQualityScores {
  scenario: 'conversation-quality'
  quick: boolean
  machine: { cpus: number; cpu_model: string; node: string; platform: string }
  config: {
    seed: number
    corpus_dir: string
    languages: Lang[]
    voices: string[]
    rates_wpm: number[]
    /** The agent's turn_taking: the platform's defaults (config.ts) unless the run says otherwise. */
    turn_taking: 'platform defaults' | Record<string, unknown>
    stand_ins: { stt_final_ms: number; llm_first_token_ms: number; tts_first_byte_ms: number; tts_ms_per_char: number }
  }
  duration_s: number
}
