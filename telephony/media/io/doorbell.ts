/**
 * One thread's wake-up call to another over a shared Int32: the producer rings after writing to a
 * ring the other side must read soon, the consumer waits for the ring without blocking its event
 * loop (Atomics.waitAsync). Rings coalesce: while the consumer has not answered, more rings cost
 * one atomic exchange each and no wake-up, so a burst of records is one wake-up, not one per packet.
 */
const RUNG = 1

/** Atomics.waitAsync (ES2024, in Node since 16), typed here: the project's lib is older. */
type WaitAsync = (
  cell: Int32Array,
  index: number,
  value: number,
) => { async: false; value: 'not-equal' | 'timed-out' } | { async: true; value: Promise<'ok' | 'timed-out'> }
const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync

export class Doorbell {
  private readonly cell: Int32Array
  private stopped = false

  static allocate(): SharedArrayBuffer {
    return new SharedArrayBuffer(4)
  }

  constructor(memory: SharedArrayBuffer) {
    this.cell = new Int32Array(memory, 0, 1)
  }

  /** Producer: wakes the consumer unless it is already rung. */
  ring(): void {
    if (Atomics.exchange(this.cell, 0, RUNG) === 0) Atomics.notify(this.cell, 0)
  }

  /**
   * Consumer: calls `answer` after every ring until stop(). The bell is reset before `answer`
   * runs, so a ring during it wakes the consumer again and nothing written is left unread.
   */
  listen(answer: () => void): void {
    const wait = (): void => {
      if (this.stopped) return
      const waited = waitAsync(this.cell, 0, 0)
      if (waited.async) void waited.value.then(rung)
      else queueMicrotask(rung) // already rung
    }
    const rung = (): void => {
      if (this.stopped) return
      Atomics.store(this.cell, 0, 0)
      try {
        answer()
      } finally {
        wait()
      }
    }
    wait()
  }

  /** Consumer: no more answers; a waiting listen() is released. */
  stop(): void {
    this.stopped = true
    Atomics.notify(this.cell, 0)
  }
}
