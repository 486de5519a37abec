/**
 * The events side of an SttStream: a bounded queue read by one async iterator. When `capacity`
 * events wait unread, the oldest waiting partial is dropped: a later partial or the final
 * supersedes it. Finals and errors are never dropped (each is a whole utterance of the user; the
 * queue can exceed capacity only by those), so a slow consumer loses only interim text.
 */
import type { SttEvent } from './types.js'

export const DEFAULT_EVENT_CAPACITY = 256

export class SttEventQueue implements AsyncIterable<SttEvent> {
  private readonly items: SttEvent[] = []
  private waiter: ((r: IteratorResult<SttEvent>) => void) | null = null
  private ended = false
  private iterated = false
  droppedPartials = 0

  constructor(private readonly capacity = DEFAULT_EVENT_CAPACITY) {}

  get closed(): boolean {
    return this.ended
  }

  push(event: SttEvent): void {
    if (this.ended) return
    if (this.waiter) {
      const w = this.waiter
      this.waiter = null
      w({ value: event, done: false })
      return
    }
    if (this.items.length >= this.capacity) {
      const i = this.items.findIndex((e) => e.type === 'partial')
      if (i >= 0) {
        this.items.splice(i, 1)
        this.droppedPartials++
      } else if (event.type === 'partial') {
        this.droppedPartials++
        return
      }
    }
    this.items.push(event)
  }

  /** No more events; those already queued are still delivered. */
  end(): void {
    if (this.ended) return
    this.ended = true
    const w = this.waiter
    this.waiter = null
    w?.({ value: undefined, done: true })
  }

  [Symbol.asyncIterator](): AsyncIterator<SttEvent> {
    if (this.iterated) throw new Error('SttStream.events can be iterated only once')
    this.iterated = true
    return {
      next: () => {
        const item = this.items.shift()
        if (item) return Promise.resolve({ value: item, done: false })
        if (this.ended) return Promise.resolve({ value: undefined, done: true })
        return new Promise((resolve) => (this.waiter = resolve))
      },
      // A consumer's `break` means nobody reads any more: stop queueing.
      return: () => {
        this.items.length = 0
        this.end()
        return Promise.resolve({ value: undefined, done: true })
      },
    }
  }
}
