import type { Clock } from '../../core/index.js'

export interface BucketRule {
  /** Tokens the bucket holds when full. */
  burst: number
  refillPerMin: number
}

export interface TakeResult {
  allowed: boolean
  /** Whole seconds until one token is available again (0 when allowed). */
  retryAfterS: number
}

/**
 * Token buckets keyed by a string. In memory for a single process; a Redis-backed store with the
 * same interface replaces it when shell processes are scaled out.
 */
export interface RateLimitStore {
  take(key: string, rule: BucketRule, cost?: number): TakeResult
  peek(key: string, rule: BucketRule): TakeResult
  /** Gives back tokens taken for an attempt that turned out not to count; never beyond burst. */
  refund(key: string, rule: BucketRule, cost?: number): void
}

interface Bucket {
  tokens: number
  at: number
  /** When it will have refilled to burst: from then on it says nothing a forgotten key would not. */
  fullAt: number
}

/** How many of the least recently used keys an eviction compares. */
const EVICTION_SCAN = 64

export class MemoryRateLimitStore implements RateLimitStore {
  private readonly buckets = new Map<string, Bucket>()

  /**
   * `maxKeys` bounds memory under a flood of distinct keys; among the least recently used, the
   * bucket nearest to full is dropped first (ties: the least recently used).
   */
  constructor(
    private readonly clock: Clock,
    private readonly maxKeys = 100_000,
  ) {}

  private refill(key: string, rule: BucketRule): Bucket {
    const now = this.clock.now()
    const b = this.buckets.get(key)
    const gained = b ? ((now - b.at) / 60_000) * rule.refillPerMin : rule.burst
    const tokens = Math.min(rule.burst, (b?.tokens ?? 0) + gained)
    return { tokens, at: now, fullAt: now }
  }

  private wait(tokens: number, cost: number, rule: BucketRule): number {
    return Math.max(1, Math.ceil(((cost - tokens) / rule.refillPerMin) * 60))
  }

  peek(key: string, rule: BucketRule): TakeResult {
    const b = this.refill(key, rule)
    return b.tokens >= 1 ? { allowed: true, retryAfterS: 0 } : { allowed: false, retryAfterS: this.wait(b.tokens, 1, rule) }
  }

  take(key: string, rule: BucketRule, cost = 1): TakeResult {
    const b = this.refill(key, rule)
    if (b.tokens < cost) {
      this.store(key, b, rule)
      return { allowed: false, retryAfterS: this.wait(b.tokens, cost, rule) }
    }
    b.tokens -= cost
    this.store(key, b, rule)
    return { allowed: true, retryAfterS: 0 }
  }

  refund(key: string, rule: BucketRule, cost = 1): void {
    if (!this.buckets.has(key)) return // forgotten buckets start full anyway
    const b = this.refill(key, rule)
    b.tokens = Math.min(rule.burst, b.tokens + cost)
    this.store(key, b, rule)
  }

  private store(key: string, b: Bucket, rule: BucketRule): void {
    b.fullAt = b.at + ((rule.burst - b.tokens) / rule.refillPerMin) * 60_000
    this.buckets.delete(key) // re-insert so Map order is least-recently-used first
    this.buckets.set(key, b)
    if (this.buckets.size > this.maxKeys) this.evictOne(key)
  }

  /**
   * Of the least recently used buckets, forgets the one nearest to full (one already full loses
   * nothing). Forgetting a drained bucket hands its key a full one, so under a flood of fresh keys
   * the buckets holding someone back longest are kept over those about to refill anyway.
   */
  private evictOne(justStored: string): void {
    let victim: string | undefined
    let earliestFullAt = Infinity
    let scanned = 0
    for (const [key, b] of this.buckets) {
      // The key just written is kept: a take that is forgotten at once would not count.
      if (key !== justStored && b.fullAt < earliestFullAt) {
        victim = key
        earliestFullAt = b.fullAt
      }
      if (++scanned >= EVICTION_SCAN) break
    }
    this.buckets.delete(victim!)
  }
}
