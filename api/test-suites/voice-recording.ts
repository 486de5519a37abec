/**
 * What a voice case's call leaves for its recording: the graph runtime's events of every turn that
 * ran to its end (a turn the engine dropped, such as a generation started on a partial transcript,
 * is not counted), and the call's transcript as the engine recorded it (the agent's lines as far as
 * they were played, the caller's as the speech-to-text heard them).
 */
import { performance } from 'node:perf_hooks'
import { GraphRuntime, type RuntimeEvent } from '../../engine/graph-runtime/index.js'
import type { CallEndReason, CallRecorder } from '../../engine/index.js'
import type { Recording } from './recording.js'

/** A GraphRuntime that reports each completed turn's events (but its lines: the call's transcript has those). */
export class TappedRuntime extends GraphRuntime {
  onEvents: (events: RuntimeEvent[]) => void = () => {}

  override start(signal: AbortSignal): AsyncGenerator<RuntimeEvent> {
    return this.tap(super.start(signal))
  }

  override turn(text: string, signal: AbortSignal): AsyncGenerator<RuntimeEvent> {
    return this.tap(super.turn(text, signal))
  }

  override transferFailed(signal: AbortSignal): AsyncGenerator<RuntimeEvent> {
    return this.tap(super.transferFailed(signal))
  }

  private async *tap(events: AsyncGenerator<RuntimeEvent>): AsyncGenerator<RuntimeEvent> {
    const held: RuntimeEvent[] = []
    for await (const e of events) {
      held.push(e)
      yield e
    }
    this.onEvents(held.filter((e) => e.type !== 'say'))
  }
}

/** The call's recorder: lines into the case's recording, timed from the call's start; `done` once the call ended. */
export class CaseCallRecorder implements CallRecorder {
  readonly sessionId: string
  readonly done: Promise<CallEndReason>
  endReason: CallEndReason | null = null
  /** The caller's lines as heard, with when they were recorded. */
  readonly heard: { at: number; text: string }[] = []
  /** Turns whose reply a barge-in cut. */
  interruptedTurns = 0
  private resolveDone: (r: CallEndReason) => void = () => {}

  constructor(
    private readonly rec: Recording,
    private readonly startedAt: number,
    sessionId: string,
  ) {
    this.sessionId = sessionId
    this.done = new Promise((resolve) => (this.resolveDone = resolve))
  }

  event(_kind: string, _data: Record<string, unknown>): void {}

  transcript(role: 'user' | 'agent', text: string): void {
    const at = performance.now()
    if (role === 'user') {
      this.heard.push({ at, text })
      this.rec.caller(text, Math.round(at - this.startedAt))
    } else this.rec.agent(text, Math.round(at - this.startedAt))
  }

  metrics(turn: { interrupted: boolean }): void {
    if (turn.interrupted) this.interruptedTurns++
  }

  ended(reason: CallEndReason): void {
    if (this.endReason !== null) return
    this.endReason = reason
    this.resolveDone(reason)
  }
}
