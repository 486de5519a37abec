/**
 * The spec's retry rules: 5xx and 429 are retried with exponential backoff and jitter, waiting at
 * least what `Retry-After` asks; any other 4xx fails again the same way and is never retried.
 * The spec has no idempotency key, so `POST /api/v1/calls` (a retried request places the call
 * again) is retried only when the caller opts in. This module is pure: no clock, no randomness
 * of its own.
 */

export interface RetryOptions {
  /** Retries after the first attempt; 0 turns retrying off. Default 3. */
  maxRetries: number
  /** The first backoff step in ms; step n is baseDelayMs × 2ⁿ, capped by maxDelayMs. Default 500. */
  baseDelayMs: number
  /** The cap of one backoff step in ms. Default 20 000. */
  maxDelayMs: number
  /**
   * The longest `Retry-After` the client will wait, in ms. A 429 or 503 asking for longer is
   * thrown at once (with `retryAfterS`) rather than holding the caller. Default 60 000.
   */
  maxRetryAfterMs: number
  /** Retry `POST /api/v1/calls` too. Off by default: a retried request may place a second call. */
  retryPostCalls: boolean
}

export const DEFAULT_RETRY: RetryOptions = { maxRetries: 3, baseDelayMs: 500, maxDelayMs: 20_000, maxRetryAfterMs: 60_000, retryPostCalls: false }

/** Bounds each option so a typo cannot make the client spin or sleep for days. */
export function retryOptions(...layers: (Partial<RetryOptions> | undefined)[]): RetryOptions {
  const o = Object.assign({}, DEFAULT_RETRY, ...layers.map((l) => (l ? withoutUndefined(l) : {}))) as RetryOptions
  const whole = (name: keyof RetryOptions, max: number) => {
    const v = o[name]
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > max) throw new RangeError(`retry.${name} must be a whole number from 0 to ${max}`)
  }
  whole('maxRetries', 10)
  whole('baseDelayMs', 60_000)
  whole('maxDelayMs', 600_000)
  whole('maxRetryAfterMs', 3_600_000)
  if (typeof o.retryPostCalls !== 'boolean') throw new TypeError('retry.retryPostCalls must be a boolean')
  return o
}

function withoutUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>
}

/** What one attempt ended with: a status, or no response at all (a network error or a timeout). */
export type Outcome = { status: number; retryAfter: string | null } | { status: null }

export interface Attempt {
  method: string
  /** The path template (`/api/v1/calls`), not the filled-in URL. */
  path: string
  /** 0 for the first retry. */
  retry: number
}

/** Whether the request may be sent again at all, whatever its outcome. */
export function isReplayable(method: string, path: string, o: RetryOptions): boolean {
  return !(method.toUpperCase() === 'POST' && path === '/api/v1/calls') || o.retryPostCalls
}

/** A status the spec calls retryable. No response (a reset, a timeout) is as unknown as a 5xx. */
export function isRetryableOutcome(outcome: Outcome): boolean {
  return outcome.status === null || outcome.status === 429 || outcome.status >= 500
}

/**
 * `Retry-After` in ms: delta-seconds or an HTTP date (RFC 9110). null when absent or unreadable;
 * a date in the past is 0.
 */
export function parseRetryAfter(value: string | null, nowMs: number): number | null {
  if (value == null) return null
  const v = value.trim()
  if (/^\d+$/.test(v)) return Number(v) * 1000
  const at = Date.parse(v)
  if (Number.isNaN(at) || !/[a-z]/i.test(v)) return null
  return Math.max(0, at - nowMs)
}

/** Backoff step n with equal jitter: half of it fixed, half random, so retries never bunch at 0. */
export function backoffMs(retry: number, o: RetryOptions, random: () => number): number {
  const step = Math.min(o.maxDelayMs, o.baseDelayMs * 2 ** retry)
  return Math.round(step / 2 + (random() * step) / 2)
}

export type RetryDecision =
  | { retry: true; delayMs: number }
  | { retry: false; reason: 'not_retryable' | 'not_replayable' | 'exhausted' | 'retry_after_too_long' }

/** Whether to send again after `outcome`, and after how long. */
export function decideRetry(attempt: Attempt, outcome: Outcome, o: RetryOptions, nowMs: number, random: () => number): RetryDecision {
  if (!isRetryableOutcome(outcome)) return { retry: false, reason: 'not_retryable' }
  if (!isReplayable(attempt.method, attempt.path, o)) return { retry: false, reason: 'not_replayable' }
  if (attempt.retry >= o.maxRetries) return { retry: false, reason: 'exhausted' }
  const backoff = backoffMs(attempt.retry, o, random)
  const asked = outcome.status === null ? null : parseRetryAfter(outcome.retryAfter, nowMs)
  if (asked === null) return { retry: true, delayMs: backoff }
  if (asked > o.maxRetryAfterMs) return { retry: false, reason: 'retry_after_too_long' }
  // The server's wait is a floor. A little jitter on top keeps clients refused in the same second
  // from coming back in the same millisecond; a longer backoff step wins when it is longer.
  const spread = Math.round((random() * o.baseDelayMs) / 4)
  return { retry: true, delayMs: Math.max(asked + spread, backoff) }
}
