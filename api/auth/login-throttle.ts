import type { Clock } from '../../core/index.js'
import { ApiError } from '../http/errors.js'
import type { BucketRule, RateLimitStore } from '../security/rate-limit.js'

/**
 * Failed sign-ins spend tokens of three buckets:
 * - one account from one client address (`perAccountAddress`, small: an attacker at one address
 *   is stopped after a handful of guesses, and so is a user mistyping at theirs);
 * - one account from every address together (`perAccount`, a ceiling far higher, so guesses spread
 *   over many addresses stay bounded without strangers' failures locking the account early);
 * - one address across every account (`perAddress`, against password spraying).
 * Once the account ceiling is spent, only addresses that signed in to the account successfully
 * before (`KnownSignInAddresses`) may still try, each within its own per-account-address bucket:
 * strangers' failures from elsewhere never make the owner's right password fail at a familiar
 * address. Buckets are keyed by the normalized email whether or not it has an account, so a 429
 * tells nothing about which emails exist.
 */
export interface LoginThrottleRules {
  perAccountAddress: BucketRule
  perAccount: BucketRule
  perAddress: BucketRule
}

export type ThrottleScope = 'account_address' | 'account' | 'address'

/** The tokens one sign-in attempt holds until its outcome is known. */
export interface LoginAttempt {
  readonly account: string
  readonly address: string
  readonly taken: readonly (readonly [ThrottleScope, string, BucketRule])[]
  /** The account ceiling was empty and this address got through as a known one. */
  readonly pastCeiling: boolean
  /** Buckets this attempt's token emptied: should it fail, a lockout begins with it. */
  readonly emptied: readonly ThrottleScope[]
}

export interface Lockout {
  scope: ThrottleScope
  retryAfterS: number
}

/** How long a successful sign-in keeps its address familiar to the account. */
export const KNOWN_ADDRESS_TTL_MS = 30 * 24 * 3600 * 1000

/**
 * (account, address) pairs that signed in successfully, newest last; bounded, least recently
 * used dropped first. In memory like `MemoryRateLimitStore` (a restart forgets both alike).
 */
export class KnownSignInAddresses {
  private readonly lastSuccessAt = new Map<string, number>()

  constructor(
    private readonly clock: Clock,
    private readonly maxEntries = 100_000,
    private readonly ttlMs = KNOWN_ADDRESS_TTL_MS,
  ) {}

  remember(account: string, address: string): void {
    const key = pairKey(account, address)
    this.lastSuccessAt.delete(key)
    this.lastSuccessAt.set(key, this.clock.now())
    if (this.lastSuccessAt.size > this.maxEntries) this.lastSuccessAt.delete(this.lastSuccessAt.keys().next().value as string)
  }

  has(account: string, address: string): boolean {
    const at = this.lastSuccessAt.get(pairKey(account, address))
    return at !== undefined && this.clock.now() - at < this.ttlMs
  }
}

function pairKey(account: string, address: string): string {
  // A newline never occurs in an email that reached here or in a client address.
  return `${account}\n${address}`
}

export function normalizeAccount(email: string): string {
  return email.trim().toLowerCase()
}

export class LoginThrottle {
  constructor(
    private readonly limiter: RateLimitStore,
    private readonly known: KnownSignInAddresses,
    private readonly rules: LoginThrottleRules,
  ) {}

  /**
   * Takes the attempt's tokens before the password is checked: the check takes tens of
   * milliseconds, so a limit consulted first and charged afterwards would let a whole burst of
   * concurrent guesses through. Throws 429 `rate_limited` (with `Retry-After`) when refused, having
   * given back whatever it took.
   */
  begin(email: string, address: string): LoginAttempt {
    const account = normalizeAccount(email)
    const buckets: [ThrottleScope, string, BucketRule][] = [
      ['account_address', `login:account_address:${pairKey(account, address)}`, this.rules.perAccountAddress],
      ['account', `login:account:${account}`, this.rules.perAccount],
      ['address', `login:address:${address}`, this.rules.perAddress],
    ]
    const taken: [ThrottleScope, string, BucketRule][] = []
    const emptied: ThrottleScope[] = []
    let pastCeiling = false
    for (const bucket of buckets) {
      const [scope, key, rule] = bucket
      const state = this.limiter.take(key, rule)
      if (state.allowed) {
        taken.push(bucket)
        // Taken and looked at in one synchronous step, so of concurrent attempts exactly one sees
        // the bucket run dry.
        if (!this.limiter.peek(key, rule).allowed) emptied.push(scope)
        continue
      }
      if (scope === 'account' && this.known.has(account, address)) {
        pastCeiling = true
        continue
      }
      for (const [, k, r] of taken) this.limiter.refund(k, r)
      throw new ApiError('rate_limited', undefined, { 'Retry-After': String(state.retryAfterS) })
    }
    return { account, address, taken, pastCeiling, emptied }
  }

  /** Only failures spend tokens: a user who types the password right is never throttled by their own successes. */
  succeeded(attempt: LoginAttempt): void {
    for (const [, key, rule] of attempt.taken) this.limiter.refund(key, rule)
    this.known.remember(attempt.account, attempt.address)
  }

  /** A sign-in proved by other means (registration, a password reset) makes its address familiar too. */
  provenAt(email: string, address: string): void {
    this.known.remember(normalizeAccount(email), address)
  }

  /** The lockouts this failure begins (the buckets its tokens emptied), worth a log line and an audit event. */
  failed(attempt: LoginAttempt): Lockout[] {
    return attempt.taken
      .filter(([scope]) => attempt.emptied.includes(scope))
      .map(([scope, key, rule]) => ({ scope, retryAfterS: this.limiter.peek(key, rule).retryAfterS }))
  }
}
