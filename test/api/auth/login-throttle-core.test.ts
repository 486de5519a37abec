import t from 'tap'
import { ManualClock } from '../../../core/index.js'
import { KNOWN_ADDRESS_TTL_MS, KnownSignInAddresses, LoginThrottle } from '../../../api/auth/login-throttle.js'
import { ApiError } from '../../../api/http/errors.js'
import { MemoryRateLimitStore } from '../../../api/security/rate-limit.js'

const RULES = {
  perAccountAddress: { burst: 2, refillPerMin: 1 },
  perAccount: { burst: 3, refillPerMin: 1 },
  perAddress: { burst: 4, refillPerMin: 1 },
}

function build() {
  const clock = new ManualClock(1_000_000)
  const limiter = new MemoryRateLimitStore(clock)
  const known = new KnownSignInAddresses(clock, 3)
  return { clock, limiter, known, throttle: new LoginThrottle(limiter, known, RULES) }
}

function refusal(fn: () => unknown): { code: string; retryAfter: string | undefined } | null {
  try {
    fn()
    return null
  } catch (err) {
    if (!(err instanceof ApiError)) throw err
    return { code: err.code, retryAfter: err.headers['Retry-After'] }
  }
}

t.test('a familiar address is forgotten once the TTL has passed since its last success', async (t) => {
  const { clock, known } = build()
  known.remember('a@example.com', '192.0.2.1')
  clock.advance(KNOWN_ADDRESS_TTL_MS - 1)
  t.ok(known.has('a@example.com', '192.0.2.1'))
  t.notOk(known.has('b@example.com', '192.0.2.1'), 'per account')
  t.notOk(known.has('a@example.com', '192.0.2.2'), 'per address')
  clock.advance(1)
  t.notOk(known.has('a@example.com', '192.0.2.1'))
})

t.test('the familiar-address memory is bounded, least recently used dropped first', async (t) => {
  const { known } = build()
  for (const n of [1, 2, 3]) known.remember('a@example.com', `192.0.2.${n}`)
  known.remember('a@example.com', '192.0.2.1') // used again: now the newest
  known.remember('a@example.com', '192.0.2.4')
  t.same(
    [1, 2, 3, 4].map((n) => known.has('a@example.com', `192.0.2.${n}`)),
    [true, false, true, true],
  )
})

t.test('a refused attempt gives back the tokens it took from the buckets before the one that refused', async (t) => {
  const { throttle, limiter } = build()
  // Spend the account ceiling from three other addresses.
  for (const n of [1, 2, 3]) throttle.failed(throttle.begin('a@example.com', `203.0.113.${n}`))
  t.same(
    refusal(() => throttle.begin('a@example.com', '198.51.100.1')),
    { code: 'rate_limited', retryAfter: '60' },
  )
  t.ok(limiter.peek('login:address:198.51.100.1', RULES.perAddress).allowed)
  // Its per-account-address bucket is still full: two more tries would be allowed if the ceiling were not spent.
  throttle.provenAt('A@Example.com ', '198.51.100.1')
  throttle.failed(throttle.begin('a@example.com', '198.51.100.1'))
  throttle.failed(throttle.begin('a@example.com', '198.51.100.1'))
  t.same(
    refusal(() => throttle.begin('a@example.com', '198.51.100.1')),
    { code: 'rate_limited', retryAfter: '60' },
    'then its own bucket refuses',
  )
})

t.test('a success gives back every token and makes the address familiar; failures report only the buckets they emptied', async (t) => {
  const { throttle, known } = build()
  throttle.succeeded(throttle.begin('a@example.com', '192.0.2.1'))
  t.ok(known.has('a@example.com', '192.0.2.1'))
  t.same(throttle.failed(throttle.begin('a@example.com', '192.0.2.1')), [])
  t.same(throttle.failed(throttle.begin('a@example.com', '192.0.2.1')), [{ scope: 'account_address', retryAfterS: 60 }])
  t.same(
    throttle.failed(throttle.begin('a@example.com', '192.0.2.2')),
    [{ scope: 'account', retryAfterS: 60 }],
    'the third failure overall empties the ceiling',
  )
  known.remember('a@example.com', '192.0.2.5')
  const past = throttle.begin('a@example.com', '192.0.2.5')
  t.ok(past.pastCeiling, 'a familiar address passes the spent ceiling')
  t.same(
    past.taken.map(([scope]) => scope),
    ['account_address', 'address'],
    'without a ceiling token to give back',
  )
})
