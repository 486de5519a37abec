/**
 * Time for the playout, injected so pacing is testable without real waiting. Production uses the
 * monotonic `performance.now()` (wall-clock jumps must not make audio burst or stall) and setTimeout;
 * tests use FakePlayoutClock, which can also fire every timer late to model a busy event loop.
 */
export type TimerId = object | number

export interface PlayoutClock {
  /** Milliseconds on a monotonic scale; only differences matter. */
  now(): number
  setTimer(cb: () => void, ms: number): TimerId
  clearTimer(id: TimerId): void
}

export const realPlayoutClock: PlayoutClock = {
  now: () => performance.now(),
  // Whole milliseconds, rounded up. Node truncates a delay to whole ms and counts it from libuv's
  // cached loop time, so a timer set for 19.6 ms fires up to a millisecond before it is due; the
  // playout, finding its frame not yet due, then set a second timer for the fraction left. A paced
  // 20 ms sender measured 1.82 timer callbacks per frame that way, 1.04 rounding up (lateness
  // p50 0.6 → 0.8 ms, within the millisecond Node counts in); every call's playout and controller
  // set one every 20 ms.
  setTimer: (cb, ms) => setTimeout(cb, Math.ceil(ms)),
  clearTimer: (id) => clearTimeout(id as ReturnType<typeof setTimeout>),
}

interface FakeTimer {
  id: number
  firesAt: number
  cb: () => void
}

/** A manual clock. `lateness()` (ms ≥ 0) is added to every timer, as a loaded event loop would. */
export class FakePlayoutClock implements PlayoutClock {
  private nowMs: number
  private timers: FakeTimer[] = []
  private nextId = 1

  constructor(
    start = 0,
    private readonly lateness: () => number = () => 0,
  ) {
    this.nowMs = start
  }

  now(): number {
    return this.nowMs
  }

  setTimer(cb: () => void, ms: number): TimerId {
    const id = this.nextId++
    this.timers.push({ id, firesAt: this.nowMs + Math.max(0, ms) + this.lateness(), cb })
    return id
  }

  clearTimer(id: TimerId): void {
    this.timers = this.timers.filter((timer) => timer.id !== id)
  }

  /** Moves time forward by `ms`, firing due timers in time order (timers they set fire too). */
  advance(ms: number): void {
    const target = this.nowMs + ms
    for (;;) {
      const next = this.timers.reduce<FakeTimer | undefined>((a, b) => (a && a.firesAt <= b.firesAt ? a : b), undefined)
      if (!next || next.firesAt > target) break
      this.timers = this.timers.filter((timer) => timer !== next)
      this.nowMs = Math.max(this.nowMs, next.firesAt)
      next.cb()
    }
    this.nowMs = target
  }

  get pendingTimers(): number {
    return this.timers.length
  }
}
