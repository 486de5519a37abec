/**
 * The transactions' wake-up times in a binary min-heap, so the layer finds the next one in O(1)
 * and files one in O(log n) among thousands of live transactions. An entry is a hint: the layer
 * asks the transaction whether it is really due when the entry comes up, so an entry left behind
 * by a timer stopped or moved (most are: a response stops Timer A) is dropped then, never searched for.
 */
export class Deadlines<K> {
  readonly #heap: Array<{ at: number; key: K }> = []

  get size(): number {
    return this.#heap.length
  }

  get next(): number | undefined {
    return this.#heap[0]?.at
  }

  add(at: number, key: K): void {
    const heap = this.#heap
    heap.push({ at, key })
    let i = heap.length - 1
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (heap[parent]!.at <= at) break
      ;[heap[i], heap[parent]] = [heap[parent]!, heap[i]!]
      i = parent
    }
  }

  /** Removes and returns every entry due at `now`, earliest first. */
  takeDue(now: number): Array<{ at: number; key: K }> {
    const due: Array<{ at: number; key: K }> = []
    while (this.#heap.length > 0 && this.#heap[0]!.at <= now) due.push(this.#pop())
    return due
  }

  #pop(): { at: number; key: K } {
    const heap = this.#heap
    const top = heap[0]!
    const last = heap.pop()!
    if (heap.length > 0) {
      heap[0] = last
      let i = 0
      for (;;) {
        const left = 2 * i + 1
        const right = left + 1
        let least = i
        if (left < heap.length && heap[left]!.at < heap[least]!.at) least = left
        if (right < heap.length && heap[right]!.at < heap[least]!.at) least = right
        if (least === i) break
        ;[heap[i], heap[least]] = [heap[least]!, heap[i]!]
        i = least
      }
    }
    return top
  }
}
