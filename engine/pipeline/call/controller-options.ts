/**
 * What a call's controller is configured with, and the fixed times it works to.
 */
import type { BargeInOptions } from '../../turn-taking/barge-in.js'
import type { TurnStrategy } from '../../turn-taking/strategy.js'
import type { Command } from './commands.js'

export interface CallLimits {
  /** The call ends (`max_duration`) this long after it starts. */
  maxDurationMs: number
  /** Caller silent this long while the agent listens: the agent asks once, then ends (`idle_timeout`). */
  silenceTimeoutMs: number
}

export interface ControllerOptions {
  language: string
  limits: CallLimits
  strategy: TurnStrategy
  bargeIn?: Partial<BargeInOptions>
  /** Asked once after `silenceTimeoutMs` of caller silence. */
  stillTherePrompt?: string
  /** The STT finalizes on request (streaming): asked to after `finalizeAfterMs` of a pause. */
  streamingStt: boolean
  /**
   * The transport carries a transfer out and reports how it went (transfer_result): the call goes on
   * until then, and after a failed one. Otherwise (a browser) a transfer ends the call at once.
   */
  transferWaits?: boolean
}

/** What the agent says when a transfer failed (the call goes on). */
export function transferFailedLine(language: string): string {
  return language.startsWith('tr') ? 'Üzgünüm, sizi aktaramadım.' : 'Sorry, I could not transfer the call.'
}

export interface Step {
  commands: readonly Command[]
  /** When to tick the controller next (clock ms), or null when only new frames can change anything. */
  wakeAt: number | null
}

/** Time passes in frames of caller audio: the silence, duration and barge-in checks run this often. */
export const TICK_MS = 20
/** How early a timer may fire (Node's timers count whole milliseconds). */
export const TIMER_SLACK_MS = 1
/**
 * Silence (from the refined edge) after which a streaming STT is told to finalize, rather than at
 * the VAD's confirmed end (300 ms) or its own endpointing (Deepgram waits `endpointing` ms of
 * silence, 300 by default here): the final, and what is preempted on it, comes that much sooner.
 * Shorter pauses between words stay whole (espeak's run up to ~170 ms); a longer pause inside a
 * sentence gives the STT two segments, whose finals the turn joins.
 */
export const FINALIZE_AFTER_MS = 200
