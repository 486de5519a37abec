import t from 'tap'
import { expectStatus } from '../../helpers/tenancy-fixtures.js'
import { E, NOW, planScene, recordVoiceCall, voiceAgent } from './fixtures.js'

// The live-call cap and monthly minutes of the plan, where calls start. The engine's counter
// (services.webCalls.liveCalls) is the one the web-call gate, inbound phone calls and placed phone
// calls take their slot from, so holding a slot here is what a connected call does.

const mint = (s: Awaited<ReturnType<typeof planScene>>, workflowId: string) =>
  s.a.request('POST', '/api/v1/calls/web-token', { token: s.owner.token, body: { workflow_uuid: workflowId } })

t.test("the plan's live-call cap (1) applies under a roomier server cap (10): 429 concurrency_limit, room again once the call ends", async (t) => {
  const s = await planScene(t)
  const id = await voiceAgent(s.a, s.owner)
  const live = s.a.services.webCalls.liveCalls
  t.equal(s.a.services.entitlementGuard.liveCallCap(s.owner.organizationId), 1)
  const release = live.acquire(s.owner.organizationId)
  t.ok(release, 'the first call connects')
  t.equal(live.acquire(s.owner.organizationId), null, 'a second call (inbound phone, web) is refused a slot')
  const over = await mint(s, id)
  t.equal(over.status, 429)
  t.equal(over.body.error.code, 'concurrency_limit')
  const web = await s.a.request('POST', '/api/v1/calls', { token: s.owner.token, body: { channel: 'web', workflow_uuid: id } })
  t.equal(web.body.error.code, 'concurrency_limit', 'POST /calls with channel web too')
  const got = expectStatus(await s.a.request('GET', E, { token: s.owner.token }), 200, 'entitlements')
  t.same(got.limits.live_calls, { limit: 1, used: 1, remaining: 0 }, 'the live call is counted')
  release!()
  t.equal((await mint(s, id)).status, 201, 'room again')
})

t.test('a plan cannot lift an organization over the server cap: the stricter of the two applies', async (t) => {
  const s = await planScene(t, undefined, { OZAN_MAX_LIVE_CALLS_PER_ORG: '2' })
  s.assign('roomy') // live_calls 5
  const org = s.owner.organizationId
  t.equal(s.a.services.entitlementGuard.liveCallCap(org), 2)
  const live = s.a.services.webCalls.liveCalls
  t.ok(live.acquire(org) && live.acquire(org), 'two calls')
  t.equal(live.acquire(org), null, 'not a third')
  const got = expectStatus(await s.a.request('GET', E, { token: s.owner.token }), 200, 'entitlements')
  t.same(got.limits.live_calls, { limit: 2, used: 2, remaining: 0 })
})

t.test("monthly minutes: this month's calls count, last month's and never-connected ones do not; used up, calls are 402 and the cap is 0", async (t) => {
  const s = await planScene(t)
  const id = await voiceAgent(s.a, s.owner)
  const org = s.owner.organizationId
  recordVoiceCall(s.a, s.owner, { minutes: 30, endedAt: Date.UTC(2026, 4, 20) }) // May: another month
  recordVoiceCall(s.a, s.owner, { minutes: 5, endedAt: NOW - 3_600_000, status: 'failed', turns: 0 }) // never connected
  recordVoiceCall(s.a, s.owner, { minutes: 20, endedAt: NOW - 3_600_000, channel: 'chat' }) // a text chat
  recordVoiceCall(s.a, s.owner, { minutes: 4, endedAt: NOW - 3_600_000 }) // web, this month
  recordVoiceCall(s.a, s.owner, { minutes: 2.5, endedAt: NOW - 60_000, channel: 'phone' }) // phone, this month
  // A call that began in May and ended 3 minutes into June counts its June minutes only.
  recordVoiceCall(s.a, s.owner, { minutes: 63, endedAt: Date.UTC(2026, 5, 1, 0, 3) })
  let got = expectStatus(await s.a.request('GET', E, { token: s.owner.token }), 200, 'entitlements')
  t.same(got.limits.monthly_minutes, { limit: 10, used: 10, remaining: 0 }, '4 + 2.5 + 3 = 9.5, a started minute counts whole')
  t.equal((await mint(s, id)).status, 201, 'under the limit (9.5 of 10 minutes)')

  recordVoiceCall(s.a, s.owner, { minutes: 0.5, endedAt: NOW - 1000 })
  const over = await mint(s, id)
  t.equal(over.status, 402)
  t.equal(over.body.error.code, 'quota_exceeded')
  t.match(over.body.error.message, /10 minutes of voice calls a month/)
  const web = await s.a.request('POST', '/api/v1/calls', { token: s.owner.token, body: { channel: 'web', workflow_uuid: id } })
  t.equal(web.status, 402, 'POST /calls with channel web too')
  const chat = await s.a.request('POST', '/api/v1/calls', { token: s.owner.token, body: { channel: 'chat', workflow_uuid: id } })
  t.equal(chat.status, 201, 'text chats use no minutes')
  t.equal(s.a.services.entitlementGuard.liveCallCap(org), 0, 'the cap is 0: inbound and placed phone calls are refused when they connect')
  t.equal(s.a.services.webCalls.liveCalls.acquire(org), null)

  s.assign('roomy')
  t.equal((await mint(s, id)).status, 201, 'a plan without a minutes limit: calls again')
  got = expectStatus(await s.a.request('GET', E, { token: s.owner.token }), 200, 'entitlements')
  t.same(got.limits.monthly_minutes, { limit: null, used: 10, remaining: null }, 'minutes still reported')
})

t.test('a live call counts its minutes so far', async (t) => {
  const s = await planScene(t)
  const env = s.a.db.prepare('SELECT id FROM environments WHERE organization_id = ? LIMIT 1').get(s.owner.organizationId) as { id: string }
  s.a.db
    .prepare(
      `INSERT INTO sessions (id, organization_id, environment_id, channel, status, definition, config, state, started_at, updated_at)
       VALUES (?, ?, ?, 'web', 'active', '{}', '{}', '{}', ?, ?)`,
    )
    .run(crypto.randomUUID(), s.owner.organizationId, env.id, NOW - 7 * 60_000, NOW - 7 * 60_000)
  const got = expectStatus(await s.a.request('GET', E, { token: s.owner.token }), 200, 'entitlements')
  t.equal(got.limits.monthly_minutes.used, 7)
})

t.test('a plan without web calls: minting and POST /calls (web) are 402 quota_exceeded naming the plan', async (t) => {
  const s = await planScene(t)
  const id = await voiceAgent(s.a, s.owner)
  s.assign('no-web')
  const res = await mint(s, id)
  t.equal(res.status, 402)
  t.equal(res.body.error.code, 'quota_exceeded')
  t.equal(res.body.error.message, 'The No web plan does not include web calls.')
  const web = await s.a.request('POST', '/api/v1/calls', { token: s.owner.token, body: { channel: 'web', workflow_uuid: id } })
  t.equal(web.status, 402)
  const got = expectStatus(await s.a.request('GET', E, { token: s.owner.token }), 200, 'entitlements')
  t.same(got.features.web_calls, { plan: false, flag: true, enabled: false })
})
