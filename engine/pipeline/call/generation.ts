import type { RuntimeEvent } from '../../graph-runtime/io.js'

/**
 * One agent reply's source of runtime events, with its own AbortController (the turn signal).
 */
export interface ReplySource {
  readonly ac: AbortController
  /** Clock time the generation was asked for (the runtime may open later, see Generation). */
  readonly startedAt: number
  /** Consume once. Ends (or throws) only once the source has settled. */
  events(): AsyncGenerator<RuntimeEvent>
  /** Abort and discard; safe to call more than once and on a finished source. */
  cancel(reason?: unknown): void
}

const abortError = () => new DOMException('The reply was cancelled', 'AbortError')

/**
 * A GraphRuntime generation (start or turn) run so that an abort always restores the runtime:
 * GraphRuntime.run() puts its state back only when its generator is pulled to the end after the
 * abort, so whoever stops listening early drains it here instead of calling return().
 *
 * - Runtime calls are serialized: this one opens only after `previous` (the last generation's
 *   `settled`) resolves, so two turns never mutate the runtime at once.
 * - `prime()` (preemption) pulls exactly one event, which starts the runtime's body (an async
 *   generator runs nothing until its first next()); later events wait inside the runtime. Not
 *   pulling further keeps the generation uncommitted: the runtime only decides "done, keep the
 *   state" on a next() after its last event, so a cancel before commit still restores its state.
 */
export class Generation implements ReplySource {
  readonly ac = new AbortController()
  readonly settled: Promise<void>
  private settle!: () => void
  private readonly iter: Promise<AsyncGenerator<RuntimeEvent> | null>
  private first: Promise<IteratorResult<RuntimeEvent>> | null = null
  private openError: unknown = null
  private consumed = false
  private draining = false

  constructor(
    open: (signal: AbortSignal) => AsyncGenerator<RuntimeEvent>,
    previous: Promise<void>,
    readonly startedAt: number,
    parent?: AbortSignal,
  ) {
    this.settled = new Promise((r) => (this.settle = r))
    if (parent?.aborted) this.ac.abort(parent.reason)
    else parent?.addEventListener('abort', () => this.cancel(parent.reason), { once: true, signal: this.ac.signal })
    this.iter = previous.then(() => {
      if (this.ac.signal.aborted) return null
      try {
        return open(this.ac.signal)
      } catch (err) {
        this.openError = err
        return null
      }
    })
    void this.iter.then((g) => {
      if (!g) this.settle()
    })
  }

  /** Starts the runtime's work without consuming its output (preemptive generation). */
  prime(): void {
    if (this.first) return
    this.first = this.iter.then((g) => (g ? g.next() : { done: true as const, value: undefined }))
    // Whoever consumes it sees the outcome; a cancelled one must not become an unhandled rejection.
    this.first.catch(() => {})
  }

  async *events(): AsyncGenerator<RuntimeEvent> {
    if (this.consumed) throw new Error('Generation.events() consumed twice')
    this.consumed = true
    this.prime()
    const g = await this.iter
    if (!g) {
      if (this.openError) throw this.openError
      if (this.ac.signal.aborted) throw this.ac.signal.reason ?? abortError()
      return
    }
    let finished = false
    try {
      let r = await this.first!
      while (!r.done) {
        yield r.value
        r = await g.next()
      }
      finished = true
    } catch (err) {
      finished = true
      throw err
    } finally {
      if (finished) this.settle()
      else void this.drain(g)
    }
  }

  cancel(reason: unknown = abortError()): void {
    if (!this.ac.signal.aborted) this.ac.abort(reason)
    // A consumer that is reading will see the abort and settle (or drain) itself.
    if (!this.consumed) {
      this.consumed = true
      void this.iter.then((g) => (g ? this.drain(g) : this.settle()))
    }
  }

  private async drain(g: AsyncGenerator<RuntimeEvent>): Promise<void> {
    if (this.draining) return
    this.draining = true
    try {
      for (;;) if ((await g.next()).done) break
    } catch {
      // The abort (or a failure nobody is waiting for any more).
    } finally {
      this.settle()
    }
  }
}

/** A fixed line spoken outside the graph ("Are you still there?"). */
export class FixedLine implements ReplySource {
  readonly ac = new AbortController()
  constructor(
    private readonly text: string,
    readonly startedAt: number,
  ) {}

  async *events(): AsyncGenerator<RuntimeEvent> {
    yield { type: 'say', text: this.text, source: 'static' }
  }

  cancel(reason: unknown = abortError()): void {
    if (!this.ac.signal.aborted) this.ac.abort(reason)
  }
}
