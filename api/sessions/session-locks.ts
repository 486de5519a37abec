/**
 * Work on one session runs one piece at a time, in the order it came: its turns, spoken or typed,
 * a run's reply and live control never interleave (each reads the session's state and stores the
 * next). A session's entry is dropped once nothing waits on it.
 */
export class SessionLocks {
  private readonly tails = new Map<string, Promise<unknown>>()

  /** Runs `fn` once every earlier piece of work on `sessionId` has settled, whether it failed or not. */
  async run<T>(sessionId: string, fn: () => Promise<T> | T): Promise<T> {
    const previous = this.tails.get(sessionId) ?? Promise.resolve()
    const mine = previous.then(fn, fn)
    const tail = mine.catch(() => undefined)
    this.tails.set(sessionId, tail)
    try {
      return await mine
    } finally {
      if (this.tails.get(sessionId) === tail) this.tails.delete(sessionId)
    }
  }
}
