/**
 * One timer for every phone call whose 20 ms media tick falls in the same millisecond of the
 * period, instead of a timer per call: at 125 calls, ~1,000 timer callbacks a second instead of
 * 6,250 (bench/README.md, sip-calls). Calls keep their own phase, so the work stays spread over
 * the period as it is with a timer each; one group would run every call in one burst and make the
 * agents' audio late by the burst.
 *
 * A member runs what is due when its slot fires and says when it is next due. Slot timers are set
 * for the earliest member's due time: a timer that fires early (Node counts whole milliseconds)
 * finds nothing due and is set again for the rest, as a call's own timer was.
 */
import type { PlayoutClock, TimerId } from '../../engine/pipeline/playout-clock.js'

export interface TickMember {
  /** Runs the ticks due at `nowMs`; returns when the next one is due, or undefined to leave. */
  run(nowMs: number): number | undefined
}

class Slot {
  readonly due = new Map<TickMember, number>()
  timer: TimerId | undefined
  timerAt = Number.POSITIVE_INFINITY
}

export class TickGroups {
  private readonly slots = new Map<number, Slot>()

  constructor(
    private readonly clock: PlayoutClock,
    readonly periodMs = 20,
  ) {}

  /** `member` runs first at `firstDueMs`, then whenever it says; the returned function removes it. */
  add(member: TickMember, firstDueMs: number): () => void {
    const key = Math.ceil(firstDueMs) % this.periodMs
    let slot = this.slots.get(key)
    if (!slot) this.slots.set(key, (slot = new Slot()))
    slot.due.set(member, firstDueMs)
    if (firstDueMs < slot.timerAt) this.arm(key, slot)
    return () => this.remove(key, member)
  }

  /** Timers pending (one per slot with members). */
  get timers(): number {
    let n = 0
    for (const slot of this.slots.values()) if (slot.timer !== undefined) n++
    return n
  }

  private remove(key: number, member: TickMember): void {
    const slot = this.slots.get(key)
    if (!slot?.due.delete(member) || slot.due.size > 0) return
    if (slot.timer !== undefined) this.clock.clearTimer(slot.timer)
    this.slots.delete(key)
  }

  private fire(key: number, slot: Slot): void {
    slot.timer = undefined
    slot.timerAt = Number.POSITIVE_INFINITY
    const now = this.clock.now()
    // forEach, not for…of: no [member, due] pair made per call per tick.
    slot.due.forEach((due, member) => {
      if (due > now) return
      const next = member.run(now)
      if (next === undefined) slot.due.delete(member)
      // A member that left while it ran (its call ended) stays gone.
      else if (slot.due.has(member)) slot.due.set(member, next)
    })
    if (slot.due.size === 0) {
      if (this.slots.get(key) === slot) this.slots.delete(key)
      return
    }
    this.arm(key, slot)
  }

  private arm(key: number, slot: Slot): void {
    let first = Number.POSITIVE_INFINITY
    for (const due of slot.due.values()) if (due < first) first = due
    if (slot.timer !== undefined) this.clock.clearTimer(slot.timer)
    slot.timerAt = first
    slot.timer = this.clock.setTimer(() => this.fire(key, slot), Math.max(0, first - this.clock.now()))
  }
}

const shared = new WeakMap<PlayoutClock, TickGroups>()

/** The process's groups on `clock` (tests' fake clocks each get their own). */
export function tickGroupsFor(clock: PlayoutClock): TickGroups {
  let groups = shared.get(clock)
  if (!groups) shared.set(clock, (groups = new TickGroups(clock)))
  return groups
}
