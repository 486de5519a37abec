/**
 * The contract every end-of-turn strategy implements. Strategies are pure and synchronous: time
 * comes in as numbers (ms, one clock for every event) and decisions go out as data, so the
 * realtime pipeline, tests and the bench drive them the same way (CONVENTIONS: pure cores).
 */

/** What the strategy hears: VAD edges, STT results, and a tick per audio frame (20 ms). Part of the call's frame union (pipeline/frames.ts). */
export type TurnEvent =
  /** `heardAt`: when the audio that showed it arrived (the barge-in stop is timed from it). */
  | { type: 'speech_start'; at: number; edgeAt?: number; heardAt?: number }
  /**
   * `at` is when the speech stopped, not when the VAD noticed (its hangover is already subtracted).
   * `edgeAt`, when known, is that edge as refined on the signal (the VAD's windows place it late
   * by their fall time); only speculation times its silence from it.
   */
  | { type: 'speech_end'; at: number; edgeAt?: number }
  /**
   * The VAD heard speech go quiet at `at` but is still bridging a possible pause between words: a
   * speech_resume or the speech_end follows. The end-of-turn wait may start counting here.
   */
  | { type: 'speech_pause'; at: number; edgeAt?: number }
  | { type: 'speech_resume'; at: number }
  /** A partial replaces the previous partial; a final commits the segment and clears the partial. */
  | { type: 'transcript'; text: string; final: boolean; at: number }
  | { type: 'tick'; at: number }

/**
 * What the pipeline must do.
 * - `preempt`: start the LLM now on `text`; hold its output (do not speak it yet).
 * - `cancel_preempt`: the user went on; abort and discard the preempted generation.
 * - `end_of_turn`: the user is done. If a `preempt` came before it with no `cancel_preempt` in
 *   between, its text equals this `text`: keep that generation and speak it.
 */
export type TurnDecision =
  | { type: 'end_of_turn'; at: number; text: string; waitedMs: number }
  | { type: 'preempt'; text: string; at: number }
  | { type: 'cancel_preempt'; at: number }

export interface TurnStrategy {
  handle(event: TurnEvent): TurnDecision[]
  /**
   * The earliest instant at which a tick alone could bring a decision (a wait running out), or
   * null when only new events can. The pipeline ticks every frame anyway; this lets it wake at
   * the instant instead of up to a frame later.
   */
  nextWakeAt?(): number | null
  /** Forget the current turn (e.g. the call moved on, or the agent took the turn itself). */
  reset(): void
}
