/**
 * Per-source rate limit for a SIP listener (issue #21 item 10): a token bucket per source address,
 * in a bounded table, so a flood from one address, or from a million spoofed ones, costs at most
 * `maxSources` small entries. Pure: the caller passes the time.
 *
 * Over its budget a source is told so at most once per `refuseIntervalMs` (the listener answers
 * 503 with Retry-After), and dropped silently otherwise: answering every packet of a flood would
 * make the listener an amplifier for spoofed sources.
 */
export interface SourceLimits {
  /** Messages a source may send at once. */
  burst: number
  /** Messages per second a source earns back. */
  perSecond: number
  /** Sources tracked at once; the least recently seen is forgotten first. */
  maxSources: number
  refuseIntervalMs: number
}

export const DEFAULT_SOURCE_LIMITS: SourceLimits = { burst: 200, perSecond: 100, maxSources: 10_000, refuseIntervalMs: 1000 }

export type Admission = 'accept' | 'refuse' | 'drop'

interface Bucket {
  tokens: number
  at: number
  lastRefusedAt: number
}

export class SourceLimiter {
  readonly limits: SourceLimits
  readonly #buckets = new Map<string, Bucket>()
  #refused = 0
  #dropped = 0

  constructor(limits: Partial<SourceLimits> = {}) {
    this.limits = { ...DEFAULT_SOURCE_LIMITS, ...limits }
    const { burst, perSecond, maxSources } = this.limits
    if (!(burst >= 1 && perSecond > 0 && Number.isInteger(maxSources) && maxSources >= 1)) throw new RangeError('source limits must be positive')
  }

  /** One message from `source` (an address, without port: ports are free to vary) at `nowMs`. */
  admit(source: string, nowMs: number): Admission {
    let bucket = this.#buckets.get(source)
    if (bucket) this.#buckets.delete(source)
    else {
      if (this.#buckets.size >= this.limits.maxSources) this.#buckets.delete(this.#buckets.keys().next().value as string)
      bucket = { tokens: this.limits.burst, at: nowMs, lastRefusedAt: Number.NEGATIVE_INFINITY }
    }
    // Re-inserted: Map order is then least recently seen first.
    this.#buckets.set(source, bucket)
    bucket.tokens = Math.min(this.limits.burst, bucket.tokens + ((nowMs - bucket.at) / 1000) * this.limits.perSecond)
    bucket.at = nowMs
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1
      return 'accept'
    }
    if (nowMs - bucket.lastRefusedAt >= this.limits.refuseIntervalMs) {
      bucket.lastRefusedAt = nowMs
      this.#refused++
      return 'refuse'
    }
    this.#dropped++
    return 'drop'
  }

  /** Seconds until `source` has a token again (for Retry-After), at least 1. */
  retryAfterS(source: string): number {
    const bucket = this.#buckets.get(source)
    if (!bucket) return 1
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.limits.perSecond))
  }

  stats(): { sources: number; refused: number; dropped: number } {
    return { sources: this.#buckets.size, refused: this.#refused, dropped: this.#dropped }
  }
}
