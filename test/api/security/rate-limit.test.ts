import t from 'tap'
import { ManualClock } from '../../../core/index.js'
import { MemoryRateLimitStore } from '../../../api/security/rate-limit.js'

const rule = { burst: 3, refillPerMin: 6 } // one token every 10 s

function store(maxKeys?: number) {
  const clock = new ManualClock(1_000_000)
  return { clock, limiter: new MemoryRateLimitStore(clock, maxKeys) }
}

t.test('a full bucket allows burst takes, then refuses with Retry-After', async (t) => {
  const { limiter } = store()
  for (let i = 0; i < 3; i++) t.same(limiter.take('k', rule), { allowed: true, retryAfterS: 0 })
  t.same(limiter.take('k', rule), { allowed: false, retryAfterS: 10 })
})

t.test('peek reports without spending', async (t) => {
  const { limiter } = store()
  for (let i = 0; i < 5; i++) t.same(limiter.peek('k', rule), { allowed: true, retryAfterS: 0 })
  limiter.take('k', rule)
  limiter.take('k', rule)
  t.equal(limiter.peek('k', rule).allowed, true)
  limiter.take('k', rule)
  t.same(limiter.peek('k', rule), { allowed: false, retryAfterS: 10 })
})

t.test('tokens refill with time, fractionally, and Retry-After shrinks', async (t) => {
  const { clock, limiter } = store()
  for (let i = 0; i < 3; i++) limiter.take('k', rule)
  clock.advance(4_000)
  t.same(limiter.peek('k', rule), { allowed: false, retryAfterS: 6 })
  clock.advance(6_000)
  t.same(limiter.take('k', rule), { allowed: true, retryAfterS: 0 })
  t.equal(limiter.take('k', rule).allowed, false)
})

t.test('Retry-After is at least one second', async (t) => {
  const { clock, limiter } = store()
  for (let i = 0; i < 3; i++) limiter.take('k', rule)
  clock.advance(9_900)
  t.same(limiter.peek('k', rule), { allowed: false, retryAfterS: 1 })
})

t.test('refused takes do not dig the bucket deeper', async (t) => {
  const { clock, limiter } = store()
  for (let i = 0; i < 3; i++) limiter.take('k', rule)
  for (let i = 0; i < 10; i++) t.equal(limiter.take('k', rule).allowed, false)
  clock.advance(10_000)
  t.equal(limiter.take('k', rule).allowed, true)
})

t.test('a long idle bucket refills to burst, not beyond', async (t) => {
  const { clock, limiter } = store()
  limiter.take('k', rule)
  clock.advance(3_600_000)
  for (let i = 0; i < 3; i++) t.equal(limiter.take('k', rule).allowed, true)
  t.equal(limiter.take('k', rule).allowed, false)
})

t.test('keys are independent', async (t) => {
  const { limiter } = store()
  for (let i = 0; i < 3; i++) limiter.take('a', rule)
  t.equal(limiter.take('a', rule).allowed, false)
  t.equal(limiter.take('b', rule).allowed, true)
})

t.test('a cost above one spends that many tokens and waits for all of them', async (t) => {
  const { clock, limiter } = store()
  t.same(limiter.take('k', rule, 2), { allowed: true, retryAfterS: 0 })
  t.same(limiter.take('k', rule, 2), { allowed: false, retryAfterS: 10 })
  clock.advance(10_000)
  t.equal(limiter.take('k', rule, 2).allowed, true)
  t.same(limiter.take('k', rule, 3), { allowed: false, retryAfterS: 30 })
})

t.test('beyond maxKeys the least recently used key is forgotten', async (t) => {
  const { limiter } = store(2)
  for (let i = 0; i < 3; i++) {
    limiter.take('a', rule)
    limiter.take('b', rule)
  }
  limiter.take('a', rule) // a is now the most recent
  limiter.take('c', rule) // evicts b
  t.equal(limiter.peek('a', rule).allowed, false, 'a is remembered')
  t.equal(limiter.peek('b', rule).allowed, true, 'b was forgotten, so it starts full')
})

t.test('refund gives a taken token back, never beyond burst', async (t) => {
  const { limiter } = store()
  for (let i = 0; i < 3; i++) limiter.take('k', rule)
  limiter.refund('k', rule)
  t.equal(limiter.take('k', rule).allowed, true)
  t.equal(limiter.take('k', rule).allowed, false)

  limiter.take('full', rule)
  for (let i = 0; i < 5; i++) limiter.refund('full', rule)
  limiter.refund('never-seen', rule)
  for (const key of ['full', 'never-seen']) {
    for (let i = 0; i < 3; i++) t.equal(limiter.take(key, rule).allowed, true, key)
    t.equal(limiter.take(key, rule).allowed, false, `${key} holds no more than burst`)
  }
})

t.test('beyond maxKeys a bucket that has refilled is forgotten before a drained one, however recently used', async (t) => {
  const { clock, limiter } = store(3)
  for (let i = 0; i < 3; i++) limiter.take('drained', rule) // empty: full again 30 s after
  limiter.take('spent-once', rule) // full again 10 s after
  clock.advance(15_000)
  limiter.take('fresh', rule) // the third key
  limiter.take('newest', rule) // a fourth: one must go
  t.same(limiter.peek('drained', rule), { allowed: true, retryAfterS: 0 }, 'drained has refilled one and a half tokens by now')
  limiter.take('drained', rule)
  t.equal(limiter.peek('drained', rule).allowed, false, 'drained kept its state, though it was the least recently used')
  t.equal(limiter.take('newest', rule).allowed, true, 'the key just written is kept')
})

t.test('under a flood of fresh keys, the bucket holding a client back longest outlives them', async (t) => {
  const { limiter } = store(100)
  const slow = { burst: 100, refillPerMin: 2 } // like the sign-in ceiling
  for (let i = 0; i < 100; i++) limiter.take('ceiling', slow)
  for (let i = 0; i < 1_000; i++) limiter.take(`flood-${i}`, rule)
  t.same(limiter.take('ceiling', slow), { allowed: false, retryAfterS: 30 }, 'still drained, not forgotten and full again')
})
