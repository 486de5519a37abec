/** When a registration refreshes and how it backs off after failures; every value in ms unless named. */
export interface RegistrationTiming {
  /**
   * A binding granted for G is refreshed at G - min(G / 2, refreshMarginMaxMs) after it was made:
   * halfway for short lifetimes, this long before expiry for long ones.
   */
  readonly refreshMarginMaxMs: number
  /** The wait after the first failure; each further failure doubles it (RFC 5626 §4.5's base-time). */
  readonly retryBaseMs: number
  /** The longest wait between attempts (RFC 5626 §4.5's max-time). */
  readonly retryMaxMs: number
  /** The share of a wait taken off at random, so trunks refused together do not retry together. */
  readonly retryJitterFraction: number
  /** Challenges answered within one attempt: the first, and one more only when the registrar says the nonce was stale. */
  readonly maxChallengesPerAttempt: number
  /** 423 Interval Too Brief answered within one attempt (each must ask for a longer lifetime). */
  readonly maxIntervalRetriesPerAttempt: number
  /** The longest lifetime a 423's Min-Expires may push us to (the API's own upper bound). */
  readonly maxExpiresS: number
}

export const DEFAULT_REGISTRATION_TIMING: RegistrationTiming = {
  // Two non-INVITE transactions timing out (Timer F, 64*T1 = 32 s each over UDP): a challenged
  // refresh that gets no answer fails before the binding it refreshes has run out.
  refreshMarginMaxMs: 64_000,
  retryBaseMs: 30_000,
  retryMaxMs: 600_000,
  // RFC 5626 §4.5 waits a random 50-100% of the computed time.
  retryJitterFraction: 0.5,
  maxChallengesPerAttempt: 2,
  maxIntervalRetriesPerAttempt: 2,
  maxExpiresS: 86_400,
}

/** When to refresh a binding granted for `grantedS` at `nowMs`. */
export function refreshAt(nowMs: number, grantedS: number, timing: RegistrationTiming): number {
  const grantedMs = grantedS * 1000
  return nowMs + grantedMs - Math.min(grantedMs / 2, timing.refreshMarginMaxMs)
}

/**
 * The wait before the next attempt after `failures` consecutive failures (RFC 5626 §4.5):
 * min(max, base * 2^(failures - 1)), less a random share of up to retryJitterFraction of it, and
 * never shorter than the registrar's Retry-After (§21.5.4) nor longer than retryMaxMs.
 */
export function retryDelayMs(failures: number, random: number, timing: RegistrationTiming, retryAfterS?: number): number {
  const exponent = Math.min(Math.max(failures - 1, 0), 30)
  const ceiling = Math.min(timing.retryMaxMs, timing.retryBaseMs * 2 ** exponent)
  const jittered = ceiling * (1 - timing.retryJitterFraction * random)
  return Math.min(timing.retryMaxMs, Math.max(jittered, (retryAfterS ?? 0) * 1000))
}
