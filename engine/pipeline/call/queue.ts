/**
 * A bounded single-consumer async queue: push() waits while full (backpressure to the producer),
 * close() ends iteration once drained, fail() ends it at once. Used between the runtime's event
 * pump and the TTS loop of a turn.
 */
export class BoundedQueue<T> {
  private items: T[] = []
  private closed = false
  private takers: (() => void)[] = []
  private pushers: (() => void)[] = []

  constructor(private readonly max: number) {
    if (!(max >= 1)) throw new RangeError('BoundedQueue: max must be ≥ 1')
  }

  get size(): number {
    return this.items.length
  }

  /** Resolves false if the queue was closed (the item is dropped). */
  async push(item: T): Promise<boolean> {
    while (!this.closed && this.items.length >= this.max) await new Promise<void>((r) => this.pushers.push(r))
    if (this.closed) return false
    this.items.push(item)
    this.wake(this.takers)
    return true
  }

  /** No more items; the consumer still receives what is queued. */
  close(): void {
    this.closed = true
    this.wake(this.takers)
    this.wake(this.pushers)
  }

  /** Drops what is queued and ends iteration. */
  clear(): void {
    this.items = []
    this.close()
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for (;;) {
      if (this.items.length > 0) {
        const item = this.items.shift()!
        this.wake(this.pushers)
        yield item
        continue
      }
      if (this.closed) return
      await new Promise<void>((r) => this.takers.push(r))
    }
  }

  private wake(list: (() => void)[]): void {
    for (const f of list.splice(0)) f()
  }
}
