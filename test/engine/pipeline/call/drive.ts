/**
 * Frames in, commands out: drives a CallController on a fake clock and writes what it decided as
 * short readable lines ("emit status speaking", "start_reply turn-1 answer 'hello'"), so a test
 * reads as the conversation it pins.
 */
import { CallController, type Command, type ControllerOptions } from '../../../../engine/pipeline/call/index.js'
import type { ControllerFrame } from '../../../../engine/pipeline/frames.js'
import type { TurnDecision, TurnStrategy } from '../../../../engine/turn-taking/strategy.js'

/** A strategy that decides what the test tells it to, on the next frame it sees. */
export class ToldStrategy implements TurnStrategy {
  private next: TurnDecision[] = []
  readonly seen: string[] = []
  handle(e: { type: string }): TurnDecision[] {
    if (e.type !== 'tick') this.seen.push(e.type)
    return this.next.splice(0)
  }
  decide(...d: TurnDecision[]): void {
    this.next.push(...d)
  }
  nextWakeAt(): number | null {
    return null
  }
  reset(): void {}
}

export function line(c: Command): string {
  switch (c.type) {
    case 'emit': {
      const e = c.event
      if (e.type === 'status') return `emit status ${e.status}`
      if (e.type === 'transcript') return `emit ${e.final ? 'final' : 'partial'} ${e.role} '${e.text}'${e.interrupted ? ' (interrupted)' : ''}`
      if (e.type === 'metrics') return `emit metrics ${e.turnId}`
      if (e.type === 'error') return `emit error ${e.code}`
      if (e.type === 'send_dtmf') return `emit send_dtmf ${e.digits}`
      return `emit transfer ${e.target}`
    }
    case 'record': {
      const r = c.entry
      if (r.type === 'event') return `record ${r.name}`
      if (r.type === 'transcript') return `record ${r.role} '${r.text}'${r.interrupted ? ' (interrupted)' : ''}`
      return `record metrics ${r.metrics.turnId}`
    }
    case 'start_reply': {
      const o = c.origin
      const what =
        o.type === 'greeting' || o.type === 'transfer_failed'
          ? o.type
          : o.type === 'line'
            ? `line '${o.text}'`
            : `answer '${o.text}'${o.preempted ? ' (preempted)' : ''}`
      return `start_reply ${c.replyId} ${what}`
    }
    case 'interrupt_reply':
    case 'cancel_reply':
      return `${c.type} ${c.replyId}`
    case 'preempt':
      return `preempt '${c.text}'`
    case 'mute_input':
      return `mute_input ${c.muted}`
    case 'end_call':
      return `end_call ${c.reason} (${c.recorded})`
    default:
      return c.type
  }
}

export interface Drive {
  controller: CallController
  strategy: ToldStrategy
  /** Every command so far, as lines. */
  readonly log: string[]
  /** Moves the clock to `t`, ticking the controller at every wake it asked for on the way. */
  at(t: number): string[]
  /** Hands it one frame now; returns its commands as lines. */
  send(frame: ControllerFrame): string[]
  readonly now: number
}

export function drive(o: Partial<ControllerOptions> = {}): Drive {
  const strategy = new ToldStrategy()
  const controller = new CallController({
    language: 'en',
    limits: { maxDurationMs: 600_000, silenceTimeoutMs: 10_000 },
    strategy,
    streamingStt: true,
    ...o,
  })
  let now = 0
  const log: string[] = []
  const run = (frame: ControllerFrame): string[] => {
    const lines = controller.handle(frame, now).commands.map(line)
    log.push(...lines)
    return lines
  }
  return {
    controller,
    strategy,
    log,
    get now() {
      return now
    },
    at(t: number): string[] {
      const out: string[] = []
      for (let wake = controller.nextWakeAt; wake !== null && wake <= t; wake = controller.nextWakeAt) {
        now = Math.max(now, wake)
        out.push(...run({ type: 'tick', at: now }))
      }
      now = t
      return out
    },
    send: run,
  }
}

/** The greeting heard in full: the call is listening from here on. */
export function greeted(d: Drive, greeting = 'Hello!'): void {
  d.send({ type: 'call_start' })
  d.send({ type: 'reply_playing', replyId: 'turn-0', at: d.now })
  d.send({ type: 'reply_heard', replyId: 'turn-0', heard: greeting, interrupted: false, gaps: null })
}

/** The caller's turn ends on `text` and the answer starts playing. */
export function answered(d: Drive, text: string, replyId = 'turn-1'): void {
  d.strategy.decide({ type: 'end_of_turn', text, at: d.now, waitedMs: 300 })
  d.send({ type: 'transcript', text, final: true, at: d.now })
  d.send({ type: 'reply_text', replyId, at: d.now })
  d.send({ type: 'reply_playing', replyId, at: d.now })
}
