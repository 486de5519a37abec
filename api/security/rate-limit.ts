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
}

export class MemoryRateLimitStore implements RateLimitStore {
  private readonly buckets = new Map<string, Bucket>()

  /** `maxKeys` bounds memory under a flood of distinct keys; the oldest keys are dropped first. */
  constructor(
    private readonly clock: Clock,
    private readonly maxKeys = 100_000,
  ) {}

  private refill(key: string, rule: BucketRule): Bucket {
    const now = this.clock.now()
    const b = this.buckets.get(key)
    if (!b) return { tokens: rule.burst, at: now }
    const gained = ((now - b.at) / 60_000) * rule.refillPerMin
    return { tokens: Math.min(rule.burst, b.tokens + gained), at: now }
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
      this.store(key, b)
      return { allowed: false, retryAfterS: this.wait(b.tokens, cost, rule) }
    }
    b.tokens -= cost
    this.store(key, b)
    return { allowed: true, retryAfterS: 0 }
  }

  refund(key: string, rule: BucketRule, cost = 1): void {
    if (!this.buckets.has(key)) return // forgotten buckets start full anyway
    const b = this.refill(key, rule)
    b.tokens = Math.min(rule.burst, b.tokens + cost)
    this.store(key, b)
  }

  private store(key: string, b: Bucket): void {
    this.buckets.delete(key) // re-insert so Map order is least-recently-used first
    this.buckets.set(key, b)
    if (this.buckets.size > this.maxKeys) this.buckets.delete(this.buckets.keys().next().value as string)
  }
}
