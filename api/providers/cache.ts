/**
 * The live listings, kept briefly: a dashboard opening an agent's voice picker asks again and
 * again, and the provider need not hear each time. Bounded in entries (one per credential and
 * provider in use); past the bound the entry written longest ago goes first. Times come from the
 * app's clock, so tests expire entries by moving it. (lru-cache would do the same; it is only a
 * transitive dependency here, and this is the 30 lines this needs.)
 */
import type { Clock } from '../../core/index.js'

export class ListingCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>()

  constructor(
    private readonly clock: Clock,
    readonly maxEntries: number,
  ) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new RangeError('ListingCache: maxEntries must be a positive integer')
  }

  get size(): number {
    return this.entries.size
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key)
    if (!entry) return undefined
    if (entry.expiresAt <= this.clock.now()) {
      this.entries.delete(key)
      return undefined
    }
    return entry.value
  }

  set(key: string, value: V, ttlMs: number): void {
    this.entries.delete(key)
    if (ttlMs <= 0) return
    this.entries.set(key, { value, expiresAt: this.clock.now() + ttlMs })
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!)
  }
}
