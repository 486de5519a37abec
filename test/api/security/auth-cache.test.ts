// Every change that can alter who a caller is, what they may do, where they act or what /me
// shows takes effect on the very next request, although authentication answers from a cache.
// Each test first warms the cache (two identical requests), then changes one thing, then asks once.
import { randomUUID } from 'node:crypto'
import t, { type Test } from 'tap'
import type { ManualClock } from '../../../core/index.js'
import { openDatabase } from '../../../db/index.js'
import type { TestApp } from '../../helpers/app.js'
import { RBAC, ROLE, addMember, code, createKey, createRole, setup, type Actor } from '../../helpers/rbac.js'

const ME = '/api/v1/auth/me'
const KEYS = '/api/v1/api-keys'
const DAY_MS = 86_400_000
/** What the scope workflow:read carries: a key scoped so may be made by whoever holds these. */
const WORKFLOW_READ = ['agents:read', 'sessions:read', 'calls:read', 'analytics:read']

const me = (a: TestApp, apiKey: string) => a.request('GET', ME, { apiKey })
async function warm(t: Test, a: TestApp, auth: { apiKey?: string; token?: string }, headers: Record<string, string> = {}) {
  for (let i = 0; i < 2; i++) t.equal((await a.request('GET', ME, { ...auth, headers })).status, 200, 'warm')
}
/** Whether the credential may create an API key (owner, admin: yes; developer, viewer: no). */
const mayCreateKey = async (a: TestApp, auth: { apiKey?: string; token?: string }) =>
  (await a.request('POST', KEYS, { ...auth, body: { name: 'probe', scopes: ['workflow:read'] } })).status

/** The environment a request acted in, as the audit event of a key it created recorded it. */
async function environmentOf(a: TestApp, owner: Actor, apiKey: string, header?: string): Promise<string> {
  const headers: Record<string, string> = header === undefined ? {} : { 'x-environment-id': header }
  const created = await a.request('POST', KEYS, { apiKey, headers, body: { name: 'probe', scopes: ['workflow:read'] } })
  if (created.status !== 201) throw new Error(`create key: ${created.status} ${created.text}`)
  const audit = await a.request('GET', '/api/v1/audit?action=api_key.created&limit=1', { token: owner.token })
  if (audit.body[0].resource_id !== created.body.id) throw new Error('the newest audit event is not this request')
  return audit.body[0].environment_id
}

t.test('a key deleted through the API is refused on the next request', async (t) => {
  const { a, owner } = await setup(t)
  const created = (await a.request('POST', KEYS, { token: owner.token, body: { name: 'k' } })).body
  await warm(t, a, { apiKey: created.key })
  t.equal((await a.request('DELETE', `${KEYS}/${created.id}`, { token: owner.token })).status, 204)
  const res = await me(a, created.key)
  t.same([res.status, code(res)], [401, 'authentication_required'])
})

t.test('a key deleted by another connection to the database is refused on the next request', async (t) => {
  const { a, owner } = await setup(t)
  const created = (await a.request('POST', KEYS, { token: owner.token, body: { name: 'k' } })).body
  await warm(t, a, { apiKey: created.key })
  // Another process on the same file (ozan api beside ozan engine, the sqlite3 shell).
  const other = openDatabase(`${a.dataDir}/ozan.db`)
  t.equal(other.prepare('DELETE FROM api_keys WHERE id = ?').run(created.id).changes, 1)
  other.close()
  t.equal((await me(a, created.key)).status, 401)
})

t.test('a cached key still expires by the clock', async (t) => {
  const { a, owner } = await setup(t)
  const { key } = (await a.request('POST', KEYS, { token: owner.token, body: { name: 'short', expires_in_days: 1 } })).body
  ;(a.clock as ManualClock).advance(DAY_MS - 1)
  await warm(t, a, { apiKey: key })
  ;(a.clock as ManualClock).advance(1)
  const res = await me(a, key)
  t.same([res.status, code(res)], [401, 'authentication_required'])
})

t.test("a wrong secret with a cached key's lookup id is refused", async (t) => {
  const { a, owner } = await setup(t)
  const key = await createKey(a, owner)
  await warm(t, a, { apiKey: key })
  const flipped = key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A')
  t.equal((await me(a, flipped)).status, 401)
  t.equal((await me(a, key)).status, 200)
})

t.test('a member removed through the API: their unscoped key and session stop, their scoped key shows no role', async (t) => {
  const { a, owner } = await setup(t)
  const m = await addMember(a, owner, ROLE.admin)
  const unscoped = await createKey(a, m)
  const scoped = await createKey(a, m, ['workflow:read'])
  for (const auth of [{ apiKey: unscoped }, { apiKey: scoped }, { token: m.token }]) await warm(t, a, auth)
  t.equal((await a.request('DELETE', `${RBAC}/members/${m.userId}`, { token: owner.token })).status, 204)
  t.same([(await me(a, unscoped)).status, code(await me(a, unscoped))], [401, 'authentication_required'])
  t.equal((await a.request('GET', ME, { token: m.token })).status, 401)
  const byScoped = await me(a, scoped)
  t.equal(byScoped.status, 200, 'a scoped key keeps its scopes')
  t.equal(byScoped.body.role, null, 'its creator is no member any more')
})

t.test("a member's role changed through the API applies to their unscoped key and session at once", async (t) => {
  const { a, owner } = await setup(t)
  const m = await addMember(a, owner, ROLE.admin)
  const key = await createKey(a, m)
  await warm(t, a, { apiKey: key })
  await warm(t, a, { token: m.token })
  t.equal(await mayCreateKey(a, { apiKey: key }), 201)

  t.equal((await a.request('PATCH', `${RBAC}/members/${m.userId}`, { token: owner.token, body: { role_id: ROLE.viewer } })).status, 200)
  t.equal((await me(a, key)).body.role, 'viewer')
  t.equal(await mayCreateKey(a, { apiKey: key }), 403, 'demoted, the unscoped key loses the right')
  t.equal(await mayCreateKey(a, { token: m.token }), 403, 'and so does the session')

  t.equal((await a.request('PATCH', `${RBAC}/members/${m.userId}`, { token: owner.token, body: { role_id: ROLE.admin } })).status, 200)
  t.equal(await mayCreateKey(a, { apiKey: key }), 201, 'promoted again, it regains it')
})

t.test("a custom role's permissions edited through the API apply to its holders' keys at once", async (t) => {
  const { a, owner } = await setup(t)
  const role = await createRole(a, owner, 'Key keeper', ['api_keys:read', 'api_keys:write', ...WORKFLOW_READ])
  t.equal(role.status, 201)
  const m = await addMember(a, owner, role.body.id)
  const key = await createKey(a, m, ['workflow:read'])
  const unscoped = await createKey(a, m)
  await warm(t, a, { apiKey: unscoped })
  t.equal(await mayCreateKey(a, { apiKey: unscoped }), 201)

  const edit = await a.request('PATCH', `${RBAC}/roles/${role.body.id}`, { token: owner.token, body: { permissions: WORKFLOW_READ } })
  t.equal(edit.status, 200)
  t.equal(await mayCreateKey(a, { apiKey: unscoped }), 403, 'the role lost api_keys:write')
  t.equal((await me(a, key)).status, 200, 'a scoped key is not its role')
})

t.test("the organization's default environment changed through the API moves the next request", async (t) => {
  const { a, owner } = await setup(t)
  const key = await createKey(a, owner)
  const before = await environmentOf(a, owner, key)
  t.equal(await environmentOf(a, owner, key), before, 'cached')
  t.equal((await a.request('PATCH', '/api/v1/organization', { token: owner.token, body: { default_environment: 'prod' } })).status, 200)
  const after = await environmentOf(a, owner, key)
  t.not(after, before)
  const projects = (await a.request('GET', '/api/v1/projects', { token: owner.token })).body
  const prod = projects.find((p: { is_default: boolean }) => p.is_default).environments.find((e: { slug: string }) => e.slug === 'prod')
  t.equal(after, prod.id)
})

t.test('an environment id that did not exist yet selects its environment once it is created', async (t) => {
  const { a, owner } = await setup(t)
  const key = await createKey(a, owner)
  const fallback = await environmentOf(a, owner, key)
  const id = randomUUID()
  t.equal(await environmentOf(a, owner, key, id), fallback, 'unknown: the default')
  t.equal(await environmentOf(a, owner, key, id), fallback, 'cached')
  // A project made by hand, with its environment's id chosen in advance.
  const projectId = randomUUID()
  a.db.prepare('INSERT INTO projects (id, organization_id, name, is_default, created_at) VALUES (?, ?, ?, 0, 0)').run(projectId, owner.organizationId, 'Later')
  a.db
    .prepare("INSERT INTO environments (id, organization_id, project_id, slug, created_at) VALUES (?, ?, ?, 'dev', 0)")
    .run(id, owner.organizationId, projectId)
  t.equal(await environmentOf(a, owner, key, id), id)
  t.equal(await environmentOf(a, owner, key), fallback, 'no header still means the default')
})

t.test('/me shows a renamed organization and a verified email on the next request', async (t) => {
  const { a, owner } = await setup(t)
  const key = await createKey(a, owner)
  await warm(t, a, { apiKey: key })
  t.equal((await me(a, key)).body.email_verified, false)
  t.equal((await a.request('PATCH', '/api/v1/organization', { token: owner.token, body: { name: 'Renamed' } })).status, 200)
  t.equal((await me(a, key)).body.organization.name, 'Renamed')
  a.services.repos.users.markVerified(owner.userId, a.clock.now())
  t.equal((await me(a, key)).body.email_verified, true)
})

t.test('writes in a transaction that rolls back leave authentication as it was', async (t) => {
  const { a, owner } = await setup(t)
  const key = await createKey(a, owner)
  await warm(t, a, { apiKey: key })
  t.throws(() =>
    a.services.repos.transaction(() => {
      a.db.prepare('DELETE FROM api_keys').run()
      t.equal(a.services.authCache.apiKey(key.split('_')[1]!), undefined, 'inside, the deletion is visible')
      throw new Error('roll back')
    }),
  )
  t.equal((await me(a, key)).status, 200, 'after the rollback the key works again')
  a.db.prepare('DELETE FROM api_keys').run()
  t.equal((await me(a, key)).status, 401)
})
