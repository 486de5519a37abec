/**
 * What the call's controller decides should happen, as data: the adapters around it carry the
 * commands out (call/call-session.ts routes them). Commands run in the order given; a frame an
 * adapter reports while carrying one out (an interrupted reply reporting what was heard) is handled
 * at once, before the next command.
 */
import type { CallEndReason, TurnMetricsRecord } from './recorder.js'
import type { ReplyOrigin } from '../frames.js'
import type { CallStatus, EndReason, TurnMetrics } from '../../server/protocol.js'

/** What the caller's side is told, transport-neutral (protocol v1 turns these into its events). */
export type CallerEvent =
  | { type: 'status'; status: CallStatus }
  | { type: 'transcript'; role: 'user' | 'agent'; text: string; final: boolean; turnId: string; interrupted: boolean }
  | { type: 'metrics'; turnId: string; metrics: TurnMetrics }
  | { type: 'error'; code: string; message: string }
  | { type: 'transfer'; target: string }
  /** Keys the agent presses (a workflow's dtmf node): a phone line sends them as RFC 4733 events. */
  | { type: 'send_dtmf'; digits: string }

export type RecordEntry =
  | { type: 'event'; name: string; data: Record<string, unknown> }
  | { type: 'transcript'; role: 'user' | 'agent'; text: string; interrupted: boolean; turnId: string }
  | { type: 'metrics'; metrics: TurnMetricsRecord }

export type Command =
  /** Open the caller's audio path (VAD, STT). */
  | { type: 'listen' }
  /** Tell a streaming STT the utterance is over, so its final comes now. */
  | { type: 'finalize_transcript' }
  /** A turn is coming: open the providers' connections while the caller speaks. */
  | { type: 'prewarm' }
  /** Treat the caller's audio as silence (muted), or not. */
  | { type: 'mute_input'; muted: boolean }
  /** Start generating the answer to `text` now, holding its output (preemptive generation). */
  | { type: 'preempt'; text: string }
  /** Forget the held generation: the caller went on. */
  | { type: 'drop_preempt' }
  /** Generate and speak reply `replyId`. An `answer` that is `preempted` takes the held generation. */
  | { type: 'start_reply'; replyId: string; origin: ReplyOrigin }
  /** Cut the reply now: stop its audio, keep what was heard (reported back as `reply_heard`). */
  | { type: 'interrupt_reply'; replyId: string }
  /** Drop a reply nothing of which was heard yet (reported back as `reply_dropped`). */
  | { type: 'cancel_reply'; replyId: string }
  | { type: 'pause_playout' }
  | { type: 'resume_playout' }
  /** Drop agent audio the caller's side holds but has not played (barge-in). */
  | { type: 'clear_caller_audio' }
  | { type: 'emit'; event: CallerEvent }
  | { type: 'record'; entry: RecordEntry }
  /** The call is over: stop everything, record `recorded`, tell the caller `reason`. */
  | { type: 'end_call'; reason: EndReason; recorded: CallEndReason }

/**
 * Where a controller writes one frame's commands, in order. One per controller, reset for each
 * frame: most frames (the 20 ms ticks) decide nothing, and then nothing is allocated at all.
 */
export class Outbox {
  private static readonly NONE: readonly Command[] = Object.freeze([])
  private list: Command[] | null = null

  get commands(): readonly Command[] {
    return this.list ?? Outbox.NONE
  }

  /**
   * A new frame. The previous frame's list is left to whoever holds it (a frame handled while that
   * list's commands run must not change it), and the next command starts a new one.
   */
  reset(): void {
    this.list = null
  }

  do(command: Command): void {
    if (this.list === null) this.list = []
    this.list.push(command)
  }

  emit(event: CallerEvent): void {
    this.do({ type: 'emit', event })
  }

  record(name: string, data: Record<string, unknown>): void {
    this.do({ type: 'record', entry: { type: 'event', name, data } })
  }
}
