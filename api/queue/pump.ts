/**
 * The loop under a persisted queue's worker (post-call analysis jobs, automation runs, test-suite
 * cases). The rows are the queue, so a restart loses nothing; the pump only decides when the worker
 * looks at them: soon after something changed (`wake()`, coalesced, deferred past the caller's
 * transaction), every `pollMs` for work coming due, and whenever a piece of work settles. It holds
 * what is in flight, so a stop can abort it (`signal`) and wait for it.
 */
export class QueuePump {
  private readonly inFlight = new Set<Promise<void>>()
  private readonly stopper = new AbortController()
  private timers: NodeJS.Timeout[] = []
  private woken = false

  constructor(
    /** Looks at the queue and starts what it may (through track()). */
    private readonly pass: () => void,
    private readonly pollMs: number,
  ) {
    if (!(pollMs >= 10)) throw new RangeError('QueuePump: pollMs must be >= 10')
  }

  /** Aborted when the pump closes: work in flight stops, and leaves its rows to be resumed. */
  get signal(): AbortSignal {
    return this.stopper.signal
  }

  get stopped(): boolean {
    return this.stopper.signal.aborted
  }

  /** Pieces of work in flight. */
  get running(): number {
    return this.inFlight.size
  }

  /** Looks at the queue now and every pollMs; `alsoEvery` adds periodic upkeep (pruning old rows). */
  start(alsoEvery: readonly (readonly [work: () => void, everyMs: number])[] = []): void {
    this.timers = [setInterval(() => this.wake(), this.pollMs).unref(), ...alsoEvery.map(([work, ms]) => setInterval(work, ms).unref())]
    this.wake()
  }

  /** Looks at the queue soon: after an enqueue, a finished piece of work, a retry, or a clock move in tests. */
  wake(): void {
    if (this.woken || this.stopped) return
    this.woken = true
    // Deferred: whoever queued the work may still be inside the transaction that holds it.
    setImmediate(() => {
      this.woken = false
      this.pass()
    })
  }

  /** Holds one piece of work until it settles (a throw is `onError`'s, then `after`), then looks at the queue again. */
  track(work: Promise<void>, onError: (err: unknown) => void, after?: () => void): void {
    const held: Promise<void> = work.catch(onError).finally(() => {
      this.inFlight.delete(held)
      after?.()
      this.wake()
    })
    this.inFlight.add(held)
  }

  /** Resolves once nothing is in flight (tests; more may come due later). */
  async settled(): Promise<void> {
    await new Promise((r) => setImmediate(r))
    while (this.inFlight.size) await Promise.allSettled([...this.inFlight])
  }

  /** Stops looking, aborts the work in flight and waits for it; its rows stay for the next start. */
  async close(): Promise<void> {
    for (const t of this.timers) clearInterval(t)
    this.stopper.abort(new Error('the server is stopping'))
    await Promise.allSettled([...this.inFlight])
  }
}
