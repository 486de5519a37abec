import t from 'tap'
import { UNLIMITED_PLAN, type Plan } from '../../../api/entitlements/index.js'
import { liveCallCap, minutesOf, minutesUsedUp, monthStart, refusal, standing } from '../../../api/entitlements/quota.js'

const plan = (limits: Partial<Plan['limits']>): Plan => ({ ...UNLIMITED_PLAN, key: 'small', name: 'Small', limits: { ...UNLIMITED_PLAN.limits, ...limits } })

t.test('a limit of null never refuses, however much is held', async (t) => {
  t.equal(refusal(UNLIMITED_PLAN, 'agents', 1e12, 1), null)
  t.equal(refusal(UNLIMITED_PLAN, 'knowledge_base_bytes', 1e15, 1e9), null)
})

t.test('up to the limit fits; one past it is refused with the plan, the limit and the count named', async (t) => {
  const small = plan({ agents: 3 })
  t.equal(refusal(small, 'agents', 2, 1), null, 'the third agent fits')
  const message = refusal(small, 'agents', 3, 1)
  t.equal(message, 'The Small plan allows 3 agents; the organization has 3. Remove some, or ask the operator for a larger plan.')
  t.equal(refusal(plan({ agents: 1 }), 'agents', 1, 1)?.includes('allows 1 agent;'), true, 'singular for one')
})

t.test('bytes are checked with the size of what is added, not one', async (t) => {
  const small = plan({ knowledge_base_bytes: 1000 })
  t.equal(refusal(small, 'knowledge_base_bytes', 600, 400), null, 'exactly at the limit fits')
  t.type(refusal(small, 'knowledge_base_bytes', 600, 401), 'string')
})

t.test('a limit of 0 refuses the first one', async (t) => {
  t.type(refusal(plan({ webhook_endpoints: 0 }), 'webhook_endpoints', 0, 1), 'string')
})

t.test('adding nothing (re-inviting an invited address) is never refused at the limit', async (t) => {
  t.equal(refusal(plan({ members: 2 }), 'members', 2, 0), null)
})

t.test('the live-call cap is the stricter of the server cap and the plan cap', async (t) => {
  t.equal(liveCallCap(10, null), 10, 'no plan cap: the server cap')
  t.equal(liveCallCap(10, 3), 3, 'a smaller plan cap wins')
  t.equal(liveCallCap(2, 50), 2, 'a plan cannot lift an organization over the server cap')
  t.equal(liveCallCap(10, 0), 0)
})

t.test('monthly minutes count from the first of the calendar month, UTC', async (t) => {
  t.equal(monthStart(Date.UTC(2026, 10, 27, 12, 30)), Date.UTC(2026, 10, 1))
  t.equal(monthStart(Date.UTC(2026, 0, 1, 0, 0, 0)), Date.UTC(2026, 0, 1), 'the first instant of a month starts it')
  t.equal(monthStart(Date.UTC(2026, 11, 31, 23, 59, 59, 999)), Date.UTC(2026, 11, 1))
})

t.test('a started minute is reported whole; minutes are used up only at the limit', async (t) => {
  t.equal(minutesOf(0), 0)
  t.equal(minutesOf(1), 1)
  t.equal(minutesOf(60_000), 1)
  t.equal(minutesOf(60_001), 2)
  const small = plan({ monthly_minutes: 10 })
  t.equal(minutesUsedUp(small, 10 * 60_000 - 1), false)
  t.equal(minutesUsedUp(small, 10 * 60_000), true)
  t.equal(minutesUsedUp(UNLIMITED_PLAN, 1e12), false)
})

t.test('a standing reports what remains, never below zero, and null remaining when unlimited', async (t) => {
  t.same(standing(5, 2), { limit: 5, used: 2, remaining: 3 })
  t.same(standing(5, 9), { limit: 5, used: 9, remaining: 0 }, 'over after the plan shrank')
  t.same(standing(null, 9), { limit: null, used: 9, remaining: null })
})
