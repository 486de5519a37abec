import t, { type Test } from 'tap'
import { z } from 'zod'
import { defineRoute } from '../../../api/index.js'
import { startTestApp, type Reply, type TestApp } from '../../helpers/app.js'
import { PARAM_FIXTURES, createKey, newOwner, type Actor } from '../../helpers/tenancy-fixtures.js'
import { MUTATION_RECIPES, UNAUDITED, type ExpectedEvent, type Scene } from '../../helpers/audit-recipes.js'

// The issue: "Every mutating request and every security event writes an append-only audit event:
// actor, organization, environment, action, resource type and id, client address, user agent,
// request id, time." The routes come from the app, so a new mutating route needs a recipe here.

const AUDIT = '/api/v1/audit'

async function setup(t: Test, a?: TestApp) {
  a ??= await startTestApp({
    env: { OZAN_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8', OZAN_BILLING_PAYMENTS: 'manual', OZAN_BILLING_MANUAL_URL: 'https://pay.example.com/topup' },
  })
  t.teardown(() => a.close())
  const owner = await newOwner(a)
  const projects = (await a.request('GET', '/api/v1/projects', { token: owner.token })).body
  const stagingId: string = projects[0].environments.find((e: { slug: string }) => e.slug === 'staging').id
  return { a, owner, stagingId }
}

/** Every event of an organization's trail (a test app holds far fewer than a page of 200). */
async function trail(a: TestApp, token: string) {
  const res = await a.request('GET', `${AUDIT}?limit=200`, { token })
  if (res.status !== 200) throw new Error(`GET ${AUDIT}: ${res.status} ${res.text}`)
  return res.body as Record<string, any>[] // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** Checks the one event a request wrote, in its organization's trail and nowhere else. */
async function checkEvent(t: Test, a: TestApp, res: Reply, e: ExpectedEvent, userAgent: string, outsiders: Actor[]) {
  const requestId = res.headers.get('x-request-id')!
  const events = (await trail(a, e.org.token)).filter((x) => x.request_id === requestId)
  t.equal(events.length, 1, `one event for request ${requestId}`)
  const ev = events[0]
  if (!ev) return
  t.match(ev, {
    action: e.action,
    resource_type: e.resourceType,
    outcome: e.outcome ?? 'success',
    actor: e.actor,
    environment_id: e.environmentId,
    user_agent: userAgent,
  })
  if (e.resourceId !== undefined) t.equal(ev.resource_id, e.resourceId, 'resource_id')
  t.match(ev.ip, /^(::ffff:)?127\.0\.0\.1$/, 'ip')
  t.ok(Math.abs(Date.parse(ev.created_at) - a.clock.now()) < 1000, 'created_at is the clock time')
  t.equal((a.db.prepare('SELECT count(*) AS n FROM audit_events WHERE request_id = ?').get(requestId) as { n: number }).n, 1, 'no second event anywhere')
  t.equal(
    (a.db.prepare('SELECT organization_id FROM audit_events WHERE request_id = ?').get(requestId) as { organization_id: string }).organization_id,
    e.org.id,
    'stored with its organization',
  )
  for (const o of outsiders) {
    if (o.organizationId === e.org.id) continue
    t.notOk(
      (await trail(a, o.token)).some((x) => x.request_id === requestId),
      `not visible to organization ${o.organizationId}`,
    )
  }
}

t.test('every mutating route writes one audit event with actor, organization, environment, address, agent and request id', async (t) => {
  const { a, owner, stagingId } = await setup(t)
  const stranger = await newOwner(a)
  // POSTs that change nothing declare audit 'none'; they are named here so the list stays deliberate.
  const readOnly = a.app.routes.filter((r) => r.method !== 'get' && r.audit === 'none').map((r) => r.operationId)
  t.comment(`read-only POSTs, not audited: ${readOnly.join(', ')}`)
  const mutating = a.app.routes.filter((r) => r.method !== 'get' && r.audit !== 'none')
  t.ok(mutating.length >= 20, `${mutating.length} mutating routes`)
  for (const route of mutating) {
    const recipe = MUTATION_RECIPES[route.operationId]
    const label = `${route.method.toUpperCase()} ${route.path} (${route.operationId})`
    if (!recipe) {
      if (UNAUDITED[route.operationId]) t.comment(`${label} writes no event: ${UNAUDITED[route.operationId]}`)
      else t.fail(`${label} has no recipe in MUTATION_RECIPES (test/helpers/audit-recipes.ts)`)
      continue
    }
    await t.test(label, async (t) => {
      const userAgent = `ozan-audit-test/${route.operationId}`
      const scene: Scene = {
        a,
        owner,
        stagingId,
        send: (method, path, o = {}) => a.request(method, path, { ...o, headers: { 'user-agent': userAgent, 'x-environment-id': 'staging', ...o.headers } }),
      }
      const { res, expect } = await recipe(scene)
      t.equal(res.status, expect.status ?? route.status, 'status', { body: res.text })
      await checkEvent(t, a, res, expect, userAgent, [owner, stranger])
    })
  }
  for (const op of Object.keys(MUTATION_RECIPES))
    t.ok(
      mutating.some((r) => r.operationId === op),
      `recipe ${op} names a route`,
    )
})

t.test('a key acting is the actor, with its creator as actor user; the actor filter finds either', async (t) => {
  const { a, owner, stagingId } = await setup(t)
  const key = await createKey(a, owner)
  const viaKey = async (method: string, path: string, body?: unknown) => {
    const res = await a.request(method, path, { apiKey: key.key, body, headers: { 'user-agent': 'key-client/1' } })
    t.ok(res.status < 300, `${method} ${path}`, { body: res.text })
    return res
  }
  const created = await viaKey('POST', '/api/v1/api-keys', { name: 'by key' })
  const role = await viaKey('POST', '/api/v1/rbac/roles', { name: 'By key', permissions: ['agents:read'] }) // recorded by the service
  const actor = { type: 'api_key', id: key.id, user_id: owner.userId }
  const events = await trail(a, owner.token)
  const defaultEnv = (await a.request('GET', '/api/v1/projects', { token: owner.token })).body[0].environments.find(
    (e: { is_default: boolean }) => e.is_default,
  ).id
  t.not(defaultEnv, stagingId)
  for (const [res, action] of [
    [created, 'api_key.created'],
    [role, 'role.created'],
  ] as const) {
    t.match(
      events.find((e) => e.request_id === res.headers.get('x-request-id')),
      { action, actor, environment_id: defaultEnv, user_agent: 'key-client/1' },
    )
  }
  const byKey = (await a.request('GET', `${AUDIT}?actor=${key.id}`, { token: owner.token })).body
  t.same(
    byKey.map((e: { action: string }) => e.action),
    ['role.created', 'api_key.created'],
    'actor=<key id> finds what the key did',
  )
  const byUser = (await a.request('GET', `${AUDIT}?actor=${owner.userId}`, { token: owner.token })).body
  t.ok(
    byUser.length > 2 && byKey.every((k: { id: number }) => byUser.some((u: { id: number }) => u.id === k.id)),
    "actor=<user id> includes what the user's keys did",
  )
})

t.test("a nested route's event names the innermost path resource", async (t) => {
  const nested = defineRoute({
    operationId: 'project_key_touch',
    method: 'post',
    path: '/api/v1/projects/{project_uuid}/keys/{key_id}/touch',
    auth: 'A',
    tag: 'Test',
    summary: 'x',
    audit: { action: 'key.touched', resource: 'api_key' },
    params: z.object({ project_uuid: z.uuid(), key_id: z.uuid() }),
    status: 204,
    handler: () => undefined,
  })
  const { a, owner } = await setup(t, await startTestApp({ extraRoutes: () => [nested] }))
  const project = await PARAM_FIXTURES.project_uuid!.create(a, owner)
  const key = await createKey(a, owner)
  const res = await a.request('POST', `/api/v1/projects/${project}/keys/${key.id}/touch`, { token: owner.token })
  t.equal(res.status, 204)
  t.match((await trail(a, owner.token))[0], { action: 'key.touched', resource_type: 'api_key', resource_id: key.id })
})
