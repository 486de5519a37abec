/**
 * The engine's one bounded async channel: producers put items in, one consumer takes them out with
 * `for await`. Every channel is built with its size (`capacity`, items held unread) and what happens
 * when it is full (`overflow`):
 * - `'wait'`: push() waits for room (backpressure: the producer slows to the consumer's pace), waiting
 *   producers are admitted in the order they came; offer() returns false instead of waiting.
 * - `'drop-oldest'`: nothing waits; the oldest queued item is dropped to make room, for a producer that
 *   must never block and whose items a newer one supersedes (interim transcripts). With `droppable`,
 *   only the items it accepts are ever dropped: when no queued item is droppable, a droppable newcomer
 *   is the one dropped and any other is kept beyond `capacity`, so the channel can exceed its size only
 *   by items its producer bounds itself (one STT final per utterance).
 * - `'fail'`: nothing waits; putting into a full channel throws ChannelFullError, for a producer that
 *   must neither block nor lose an item silently.
 *
 * Ends: close() says no more items, and the consumer still receives what is queued before iteration
 * ends. clear() drops what is queued and ends at once; fail(err) drops it and the consumer's next read
 * throws `err`. A consumer that stops early (`break`, `return` or a throw inside `for await`) clears
 * the channel: nobody reads any more, so producers stop queueing. After any end, push() and offer()
 * drop their item and return false, and waiting push() calls resolve false.
 */
export type OverflowPolicy = 'wait' | 'drop-oldest' | 'fail'

const POLICIES: readonly OverflowPolicy[] = ['wait', 'drop-oldest', 'fail']

export interface ChannelOptions<T> {
  /** Items held unread before the overflow policy applies: a whole number ≥ 1. */
  capacity: number
  overflow: OverflowPolicy
  /** `'drop-oldest'` only: which items may be dropped (default: every item). */
  droppable?: (item: T) => boolean
  /** Names the channel in its errors, e.g. "SttStream.events can be iterated only once". */
  name?: string
}

export class ChannelFullError extends Error {
  override readonly name = 'ChannelFullError'

  constructor(
    readonly channel: string,
    readonly capacity: number,
  ) {
    super(`${channel} is full (${capacity} items)`)
  }
}

/** open: takes items; closed: takes none, what is queued is still delivered; failed: the consumer's next read throws; done. */
type ChannelState = 'open' | 'closed' | 'failed' | 'done'

interface Reader<T> {
  resolve: (result: IteratorResult<T, undefined>) => void
  reject: (err: unknown) => void
}

interface Writer<T> {
  item: T
  resolve: (queued: boolean) => void
}

const DONE: IteratorReturnResult<undefined> = { value: undefined, done: true }

export class Channel<T> implements AsyncIterable<T> {
  readonly capacity: number
  readonly overflow: OverflowPolicy
  readonly name: string
  private readonly droppable: (item: T) => boolean
  private items: T[] = []
  private state: ChannelState = 'open'
  private failure: unknown
  /** A consumer waiting for an item (only while nothing is queued). */
  private readers: Reader<T>[] = []
  /** Producers waiting for room (`'wait'` only), in arrival order. */
  private writers: Writer<T>[] = []
  private iterated = false
  private droppedCount = 0

  constructor(options: ChannelOptions<T>) {
    const { capacity, overflow, droppable, name = 'Channel' } = options
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`${name}: capacity must be a whole number ≥ 1, got ${capacity}`)
    if (!POLICIES.includes(overflow)) throw new RangeError(`${name}: overflow must be one of ${POLICIES.join(', ')}, got ${String(overflow)}`)
    if (droppable && overflow !== 'drop-oldest') throw new RangeError(`${name}: droppable applies only to overflow 'drop-oldest'`)
    this.capacity = capacity
    this.overflow = overflow
    this.name = name
    this.droppable = droppable ?? (() => true)
  }

  /** Items queued and unread (waiting producers not counted). */
  get size(): number {
    return this.items.length
  }

  /** True once the channel takes no more items (closed, cleared, failed, or its consumer stopped). */
  get closed(): boolean {
    return this.state !== 'open'
  }

  /** Items the `'drop-oldest'` policy dropped (an end's drops are not counted). */
  get dropped(): number {
    return this.droppedCount
  }

  /**
   * Puts one item in. Resolves true once it is queued (or handed to the waiting consumer), false if it
   * was dropped: the channel ended, or `'drop-oldest'` dropped the item itself. Waits only under
   * `'wait'`; rejects with ChannelFullError under `'fail'`.
   */
  push(item: T): Promise<boolean> {
    if (this.state !== 'open') return Promise.resolve(false)
    if (this.overflow === 'wait' && this.full()) return new Promise((resolve) => this.writers.push({ item, resolve }))
    try {
      return Promise.resolve(this.offer(item))
    } catch (err) {
      return Promise.reject(err)
    }
  }

  /**
   * Puts one item in without ever waiting: true when queued (or handed to the waiting consumer). When
   * full: `'wait'` returns false (the item is not taken), `'drop-oldest'` drops as its policy says,
   * `'fail'` throws ChannelFullError. False after the channel ended.
   */
  offer(item: T): boolean {
    if (this.state !== 'open') return false
    const reader = this.readers.shift()
    if (reader) {
      reader.resolve({ value: item, done: false })
      return true
    }
    if (this.full()) {
      if (this.overflow === 'wait') return false
      if (this.overflow === 'fail') throw new ChannelFullError(this.name, this.capacity)
      if (!this.dropForRoom(item)) return false
    }
    this.items.push(item)
    return true
  }

  /** No more items; the consumer still receives what is queued, then iteration ends. */
  close(): void {
    if (this.state !== 'open') return
    this.state = this.items.length > 0 ? 'closed' : 'done'
    this.releaseWriters()
    for (const r of this.readers.splice(0)) r.resolve(DONE)
  }

  /** Drops what is queued and ends iteration now. */
  clear(): void {
    this.items = []
    this.state = 'done'
    this.releaseWriters()
    for (const r of this.readers.splice(0)) r.resolve(DONE)
  }

  /** The producer failed: drops what is queued; the consumer's next read throws `err`, then iteration ends. */
  fail(err: unknown): void {
    if (this.state === 'failed' || this.state === 'done') return
    this.items = []
    this.releaseWriters()
    const reader = this.readers.shift()
    if (reader) {
      this.state = 'done'
      reader.reject(err)
      for (const r of this.readers.splice(0)) r.resolve(DONE)
      return
    }
    this.state = 'failed'
    this.failure = err
  }

  /** One consumer: a second iteration throws, since each item goes to one reader only. */
  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    if (this.iterated) throw new Error(`${this.name} can be iterated only once`)
    this.iterated = true
    const iterator: AsyncIterableIterator<T> = {
      next: () => this.take(),
      return: () => {
        this.clear()
        return Promise.resolve(DONE)
      },
      [Symbol.asyncIterator]: () => iterator,
    }
    return iterator
  }

  private take(): Promise<IteratorResult<T, undefined>> {
    if (this.items.length > 0) {
      const value = this.items.shift()!
      this.admitWriters()
      if (this.state === 'closed' && this.items.length === 0) this.state = 'done'
      return Promise.resolve({ value, done: false })
    }
    if (this.state === 'failed') {
      this.state = 'done'
      const err = this.failure
      this.failure = undefined
      return Promise.reject(err)
    }
    if (this.state !== 'open') return Promise.resolve(DONE)
    return new Promise((resolve, reject) => this.readers.push({ resolve, reject }))
  }

  private full(): boolean {
    return this.writers.length > 0 || this.items.length >= this.capacity
  }

  /** `'drop-oldest'`: false when the incoming item is the one dropped. */
  private dropForRoom(incoming: T): boolean {
    const oldest = this.items.findIndex(this.droppable)
    if (oldest >= 0) {
      this.items.splice(oldest, 1)
      this.droppedCount++
      return true
    }
    if (!this.droppable(incoming)) return true
    this.droppedCount++
    return false
  }

  private admitWriters(): void {
    while (this.writers.length > 0 && this.items.length < this.capacity) {
      const w = this.writers.shift()!
      this.items.push(w.item)
      w.resolve(true)
    }
  }

  private releaseWriters(): void {
    for (const w of this.writers.splice(0)) w.resolve(false)
  }
}
