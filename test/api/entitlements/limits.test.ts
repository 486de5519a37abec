import t, { type Test } from 'tap'
import type { Reply } from '../../helpers/app.js'
import {
  addMember,
  createKey,
  createWebhookEndpoint,
  createWorkflow,
  expectStatus,
  invitationToken,
  newOwner,
  uniqueEmail,
} from '../../helpers/tenancy-fixtures.js'
import { E, planScene } from './fixtures.js'

// The default plan of these tests ("Small", fixtures.ts): 2 agents, 2 API keys, 1 webhook
// endpoint, 2 knowledge-base documents of at most 100 bytes together, 2 members.

const refusedByPlan = (t: Test, r: Reply, what: string) => {
  t.equal(r.status, 402, `${what}: 402`)
  t.equal(r.body?.error?.code, 'quota_exceeded', `${what}: quota_exceeded`)
  t.match(r.body?.error?.message, /^The Small plan allows /, `${what}: the message names the plan and its limit`)
}

t.test('agents: creating, duplicating and promoting past the limit are 402; deleting one makes room', async (t) => {
  const { a, owner } = await planScene(t)
  const first = await createWorkflow(a, owner)
  await createWorkflow(a, owner)
  const W = '/api/v1/workflows'
  refusedByPlan(t, await a.request('POST', W, { token: owner.token, body: { name: 'Third' } }), 'create')
  refusedByPlan(t, await a.request('POST', `${W}/${first}/duplicate`, { token: owner.token }), 'duplicate')
  refusedByPlan(t, await a.request('POST', `${W}/${first}/promote`, { token: owner.token, body: { target_environment: 'prod' } }), 'promote')
  const listed = expectStatus(await a.request('GET', W, { token: owner.token }), 200, 'list')
  t.equal(listed.length, 2, 'nothing was created by the refused requests')

  t.equal((await a.request('DELETE', `${W}/${first}`, { token: owner.token })).status, 204)
  t.equal((await a.request('POST', W, { token: owner.token, body: { name: 'Again' } })).status, 201, 'room again after a delete')
})

t.test('agents count across environments: a promoted copy takes a place', async (t) => {
  const { a, owner } = await planScene(t)
  const id = await createWorkflow(a, owner)
  const promoted = await a.request('POST', `/api/v1/workflows/${id}/promote`, { token: owner.token, body: { target_environment: 'prod' } })
  t.equal(promoted.status, 200, 'the second agent, in prod')
  refusedByPlan(t, await a.request('POST', '/api/v1/workflows', { token: owner.token, body: { name: 'Third' } }), 'a third agent in dev')
})

t.test('API keys: the third is 402; deleting one makes room', async (t) => {
  const { a, owner } = await planScene(t)
  const first = await createKey(a, owner)
  await createKey(a, owner)
  refusedByPlan(t, await a.request('POST', '/api/v1/api-keys', { token: owner.token, body: { name: 'third' } }), 'third key')
  t.equal((await a.request('DELETE', `/api/v1/api-keys/${first.id}`, { token: owner.token })).status, 204)
  t.equal((await a.request('POST', '/api/v1/api-keys', { token: owner.token, body: { name: 'again' } })).status, 201)
})

t.test('API keys that have expired no longer count', async (t) => {
  const { a, owner } = await planScene(t)
  await a.request('POST', '/api/v1/api-keys', { token: owner.token, body: { name: 'short', expires_in_days: 1 } })
  await createKey(a, owner)
  refusedByPlan(t, await a.request('POST', '/api/v1/api-keys', { token: owner.token, body: { name: 'third' } }), 'third key')
  ;(a.clock as unknown as { advance(ms: number): void }).advance(86_400_000 + 1)
  // Re-sign in: the access token of an hour ago has expired with the clock moved.
  const session = expectStatus(await a.request('POST', '/api/v1/auth/refresh', { body: { refresh_token: owner.refreshToken } }), 200, 'refresh')
  t.equal((await a.request('POST', '/api/v1/api-keys', { token: session.access_token, body: { name: 'after expiry' } })).status, 201)
})

t.test('webhook endpoints: the second is 402, in any environment; deleting one makes room', async (t) => {
  const { a, owner } = await planScene(t)
  const id = await createWebhookEndpoint(a, owner)
  const body = { url: 'https://93.184.216.34/other', events: ['sip.trunk.down'] }
  const project = expectStatus(await a.request('GET', '/api/v1/projects', { token: owner.token }), 200, 'projects')[0]
  const environments = expectStatus(await a.request('GET', `/api/v1/projects/${project.id}/environments`, { token: owner.token }), 200, 'environments')
  const prod = environments.find((e: { slug: string }) => e.slug === 'prod')
  t.ok(prod, 'a prod environment exists')
  refusedByPlan(t, await a.request('POST', '/api/v1/webhooks/endpoints', { token: owner.token, body }), 'second endpoint')
  refusedByPlan(t, await a.request('POST', '/api/v1/webhooks/endpoints', { token: owner.token, body, headers: { 'x-environment-id': prod.id } }), 'in prod')
  t.equal((await a.request('DELETE', `/api/v1/webhooks/endpoints/${id}`, { token: owner.token })).status, 204)
  t.equal((await a.request('POST', '/api/v1/webhooks/endpoints', { token: owner.token, body })).status, 201)
})

t.test('knowledge base: documents and bytes are both limited; deleting a document frees both', async (t) => {
  const { a, owner } = await planScene(t)
  const KB = '/api/v1/knowledge-base/documents'
  const doc = (text: string) => a.request('POST', KB, { token: owner.token, body: { title: 'Doc', text } })
  const first = expectStatus(await doc('x'.repeat(60)), 201, 'first, 60 bytes')
  refusedByPlan(t, await doc('y'.repeat(41)), '60 + 41 bytes')
  expectStatus(await doc('z'.repeat(40)), 201, '60 + 40 bytes: exactly the limit')
  refusedByPlan(t, await doc('w'), 'a third document')
  t.equal((await a.request('DELETE', `${KB}/${first.id}`, { token: owner.token })).status, 204)
  t.equal((await doc('v'.repeat(60))).status, 201, 'room again')
})

t.test('knowledge base: bytes are counted as sent (UTF-8), and an upload is refused the same way', async (t) => {
  const { a, owner } = await planScene(t)
  const KB = '/api/v1/knowledge-base/documents'
  // 34 two-byte characters: 68 bytes, 34 characters.
  expectStatus(await a.request('POST', KB, { token: owner.token, body: { title: 'Doc', text: 'ş'.repeat(34) } }), 201, 'first')
  const boundary = 'ozan-limit-test'
  const raw = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="notes.txt"\r\nContent-Type: text/plain\r\n\r\n${'u'.repeat(40)}\r\n--${boundary}--\r\n`,
  )
  const up = await a.request('POST', `${KB}/upload`, { token: owner.token, raw, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } })
  refusedByPlan(t, up, '68 + 40 bytes uploaded')
})

t.test('members: open invitations count; re-inviting the same address does not; revoking makes room', async (t) => {
  const { a, owner } = await planScene(t)
  const I = '/api/v1/rbac/invitations'
  const invite = (email: string) => a.request('POST', I, { token: owner.token, body: { email, role_id: 4 } })
  const first = uniqueEmail('first')
  const sent = expectStatus(await invite(first), 201, 'owner + one invitation = 2')
  refusedByPlan(t, await invite(uniqueEmail('second')), 'a second invitation')
  t.equal((await invite(first)).status, 201, 'inviting the same address again replaces its invitation')
  const pending = expectStatus(await a.request('GET', I, { token: owner.token }), 200, 'invitations')
  t.equal(pending.length, 1)
  t.equal((await a.request('DELETE', `${I}/${pending[0].id}`, { token: owner.token })).status, 204)
  t.not(pending[0].id, sent.id, 'the replacement was revoked')
  t.equal((await invite(uniqueEmail('third'))).status, 201, 'room again once revoked')
})

t.test('members: accepting is refused when the plan shrank after the invitation was sent', async (t) => {
  const { a, owner, assign } = await planScene(t)
  assign('roomy')
  await addMember(a, owner)
  const late = await newOwner(a, uniqueEmail('late'))
  expectStatus(await a.request('POST', '/api/v1/rbac/invitations', { token: owner.token, body: { email: late.email, role_id: 4 } }), 201, 'invite on roomy')
  assign('small')
  const accept = await a.request('POST', '/api/v1/rbac/invitations/accept', { token: late.token, body: { token: invitationToken(a, late.email) } })
  refusedByPlan(t, accept, 'accepting as a third member')
  const members = expectStatus(await a.request('GET', '/api/v1/rbac/members', { token: owner.token }), 200, 'members')
  t.equal(members.length, 2, 'not added')
  const invitations = expectStatus(await a.request('GET', '/api/v1/rbac/invitations', { token: owner.token }), 200, 'invitations')
  t.equal(invitations.length, 1, 'the invitation is still open: it can be accepted once there is room')
})

t.test('GET /entitlements reports real counts against each limit', async (t) => {
  const { a, owner } = await planScene(t)
  await createWorkflow(a, owner)
  await createKey(a, owner)
  await createWebhookEndpoint(a, owner)
  await a.request('POST', '/api/v1/knowledge-base/documents', { token: owner.token, body: { title: 'Doc', text: 'a'.repeat(30) } })
  await a.request('POST', '/api/v1/rbac/invitations', { token: owner.token, body: { email: uniqueEmail('x'), role_id: 4 } })
  const got = expectStatus(await a.request('GET', E, { token: owner.token }), 200, 'entitlements')
  t.equal(got.organization_id, owner.organizationId)
  t.match(got.plan, { key: 'small', name: 'Small', default: true })
  t.same(got.limits, {
    agents: { limit: 2, used: 1, remaining: 1 },
    live_calls: { limit: 1, used: 0, remaining: 1 },
    monthly_minutes: { limit: 10, used: 0, remaining: 10 },
    knowledge_base_documents: { limit: 2, used: 1, remaining: 1 },
    knowledge_base_bytes: { limit: 100, used: 30, remaining: 70 },
    members: { limit: 2, used: 2, remaining: 0 },
    webhook_endpoints: { limit: 1, used: 1, remaining: 0 },
    api_keys: { limit: 2, used: 1, remaining: 1 },
  })
  t.same(got.period, { start: '2026-06-01T00:00:00.000Z', end: '2026-07-01T00:00:00.000Z' })
  t.same(got.features, { web_calls: { plan: true, flag: true, enabled: true } })
})

t.test("another organization's resources never count against this one's plan", async (t) => {
  const { a, owner } = await planScene(t)
  const other = await newOwner(a)
  await createWorkflow(a, other)
  await createWorkflow(a, other)
  const got = expectStatus(await a.request('GET', E, { token: owner.token }), 200, 'entitlements')
  t.equal(got.limits.agents.used, 0)
  t.equal((await a.request('POST', '/api/v1/workflows', { token: owner.token, body: { name: 'Mine' } })).status, 201)
})
