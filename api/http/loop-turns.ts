/**
 * API requests take turns with the call engine when both run on one event loop (`npm start`).
 *
 * Node runs every I/O callback that is ready in a loop iteration before it comes back to its
 * timers. A burst of API requests (a page of agents costs ~1.5 ms of synchronous SQL and JSON;
 * bench/list-burst.ts) arriving together therefore ran back to back while the engine's 20 ms
 * audio timers waited: the callers heard the gap. While calls are live, a request waits for its
 * turn instead: one request is let through per loop iteration (a setImmediate), so the engine's
 * timers run between any two requests. With no live call nothing waits and a request costs no
 * extra hop. The queue is bounded: past `maxWaiting` a request is refused at once with 503 and
 * Retry-After, never held without limit.
 */
import { ApiError } from './errors.js'

export interface LoopTurnsOptions {
  /** Requests that may wait for their turn; one more is refused with 503. */
  maxWaiting: number
}

export const DEFAULT_LOOP_TURNS: LoopTurnsOptions = { maxWaiting: 512 }

export class LoopTurns {
  private readonly options: LoopTurnsOptions
  /** First come, first served. */
  private readonly waiting: (() => void)[] = []
  private scheduled = false
  private shared: () => boolean = () => false

  constructor(options: Partial<LoopTurnsOptions> = {}) {
    this.options = { ...DEFAULT_LOOP_TURNS, ...options }
    if (!Number.isInteger(this.options.maxWaiting) || this.options.maxWaiting < 1) throw new RangeError('LoopTurns: maxWaiting must be a whole number ≥ 1')
  }

  /** Turns are taken while `busy()` says the loop is shared with work that must not wait (live calls). */
  shareWith(busy: () => boolean): void {
    this.shared = busy
  }

  /** Undefined: go now. A promise: go when it resolves. Throws 503 when the queue is full. */
  take(): Promise<void> | undefined {
    // Once anyone waits, later requests queue behind them even if the calls just ended: order kept.
    if (this.waiting.length === 0 && !this.shared()) return undefined
    if (this.waiting.length >= this.options.maxWaiting) {
      throw new ApiError('service_unavailable', 'The server is busy with live calls; try again shortly.', { 'Retry-After': '1' })
    }
    const turn = new Promise<void>((resolve) => this.waiting.push(resolve))
    this.schedule()
    return turn
  }

  get waitingCount(): number {
    return this.waiting.length
  }

  private schedule(): void {
    if (this.scheduled) return
    this.scheduled = true
    setImmediate(this.next)
  }

  /**
   * Lets one request go. Its handler runs in this callback's microtasks; an immediate queued from
   * here runs in the next loop iteration, after that iteration's timers.
   */
  private readonly next = (): void => {
    this.scheduled = false
    this.waiting.shift()?.()
    if (this.waiting.length) this.schedule()
  }
}
