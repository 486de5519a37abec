import t from 'tap'
import { startTestApp } from '../../helpers/app.js'
import { createKey, createWebhookEndpoint, createWorkflow, expectStatus, newOwner } from '../../helpers/tenancy-fixtures.js'
import { E } from './fixtures.js'

// A server whose operator never wrote a plans file: one unlimited plan, and nothing behaves
// differently from before plans existed (the live-call cap stays OZAN_MAX_LIVE_CALLS_PER_ORG).

t.test('without OZAN_PLANS_FILE there is one plan, unlimited, and every organization is on it', async (t) => {
  const a = await startTestApp()
  t.teardown(() => a.close())
  const owner = await newOwner(a)
  const plans = expectStatus(await a.request('GET', `${E}/plans`, { token: owner.token }), 200, 'plans')
  t.same(plans, [
    {
      key: 'unlimited',
      name: 'Unlimited',
      description: 'No limits: the plan of a server whose operator has not defined plans (OZAN_PLANS_FILE).',
      default: true,
      limits: {
        agents: null,
        live_calls: null,
        monthly_minutes: null,
        knowledge_base_documents: null,
        knowledge_base_bytes: null,
        members: null,
        webhook_endpoints: null,
        api_keys: null,
      },
      features: { web_calls: true },
    },
  ])
  const got = expectStatus(await a.request('GET', E, { token: owner.token }), 200, 'entitlements')
  t.equal(got.plan.key, 'unlimited')
  t.same(got.limits.live_calls, { limit: 10, used: 0, remaining: 10 }, "the server's cap (OZAN_MAX_LIVE_CALLS_PER_ORG default 10)")
  for (const k of ['agents', 'monthly_minutes', 'knowledge_base_documents', 'knowledge_base_bytes', 'members', 'webhook_endpoints', 'api_keys'])
    t.equal(got.limits[k].limit, null, `${k} unlimited`)
  t.same(got.limits.members, { limit: null, used: 1, remaining: null }, 'the owner is counted')
})

t.test('with the unlimited plan, creating many of each limited thing works as before', async (t) => {
  const a = await startTestApp({ env: { OZAN_MAX_LIVE_CALLS_PER_ORG: '3' } })
  t.teardown(() => a.close())
  const owner = await newOwner(a)
  for (let i = 0; i < 12; i++) await createWorkflow(a, owner)
  for (let i = 0; i < 12; i++) await createKey(a, owner)
  for (let i = 0; i < 12; i++) await createWebhookEndpoint(a, owner)
  for (let i = 0; i < 12; i++)
    expectStatus(
      await a.request('POST', '/api/v1/knowledge-base/documents', { token: owner.token, body: { title: `D${i}`, text: 'x'.repeat(5000) } }),
      201,
      'doc',
    )
  const got = expectStatus(await a.request('GET', E, { token: owner.token }), 200, 'entitlements')
  t.equal(got.limits.agents.used, 12)
  t.equal(got.limits.api_keys.used, 12)
  t.equal(got.limits.webhook_endpoints.used, 12)
  t.equal(got.limits.knowledge_base_documents.used, 12)
  t.equal(got.limits.knowledge_base_bytes.used, 60_000)
  t.equal(a.services.entitlementGuard.liveCallCap(owner.organizationId), 3, 'the live-call cap is the server one, unchanged')
  t.same(got.limits.live_calls, { limit: 3, used: 0, remaining: 3 })
})
