import t, { type Test } from 'tap'
import type { ManualClock } from '../../../core/index.js'
import { mailedToken, startTestApp } from '../../helpers/app.js'
import { addMember, createKey, expectStatus, newOwner } from '../../helpers/tenancy-fixtures.js'

const AUDIT = '/api/v1/audit'
const MIN = 60_000
const iso = (ms: number) => new Date(ms).toISOString()

async function setup(t: Test) {
  const a = await startTestApp()
  t.teardown(() => a.close())
  const owner = await newOwner(a)
  const clock = a.clock as ManualClock
  const list = async (query = '', token = owner.token) => {
    const res = await a.request('GET', `${AUDIT}${query}`, { token })
    return { res, actions: Array.isArray(res.body) ? res.body.map((e: { action: string }) => e.action) : [] }
  }
  return { a, owner, clock, list }
}

t.test('security events are recorded, newest first', async (t) => {
  const { a, owner, clock, list } = await setup(t)
  const member = await addMember(a, owner)
  const login = (password: string) => a.request('POST', '/api/v1/auth/login', { body: { email: owner.email, password } })
  const step = () => clock.advance(MIN)

  step()
  expectStatus(await login('correct horse battery'), 200, 'login')
  step()
  t.equal((await login('wrong password!')).status, 401)
  step()
  expectStatus(await a.request('POST', '/api/v1/auth/forgot-password', { body: { email: owner.email } }), 204, 'forgot')
  const reset = await a.request('POST', '/api/v1/auth/reset-password', {
    body: { token: mailedToken(a, owner.email, 'reset_password'), password: 'a brand new secret' },
  })
  const token = expectStatus(reset, 200, 'reset').access_token as string // the reset ended every other session
  step()
  const key = expectStatus(await a.request('POST', '/api/v1/api-keys', { token, body: { name: 'k' } }), 201, 'create key')
  step()
  expectStatus(await a.request('DELETE', `/api/v1/api-keys/${key.id}`, { token }), 204, 'delete key')
  step()
  expectStatus(await a.request('PATCH', `/api/v1/rbac/members/${member.userId}`, { token, body: { role_id: 3 } }), 200, 'change role')
  step()
  expectStatus(await a.request('DELETE', `/api/v1/rbac/members/${member.userId}`, { token }), 204, 'remove member')

  const { res, actions } = await list('?limit=8', token)
  t.same(actions, [
    'member.removed',
    'member.role_changed',
    'api_key.deleted',
    'api_key.created',
    'user.password_reset',
    'user.password_reset_requested',
    'session.login_failed',
    'session.login',
  ])
  const [removed, changed, deleted, created, passwordReset, resetRequested, failed, signedIn] = res.body
  t.match(resetRequested, { resource_id: owner.userId, actor: { type: 'anonymous', id: null } })
  // Nobody proved to be the owner when the password was wrong: the actor is anonymous.
  t.match(failed, { outcome: 'failure', resource_type: 'user', resource_id: owner.userId, actor: { type: 'anonymous', id: null, user_id: null } })
  t.match(signedIn, { outcome: 'success', actor: { id: owner.userId } })
  t.match(passwordReset, { resource_id: owner.userId, outcome: 'success' })
  t.match(created, { resource_id: key.id, actor: { type: 'user', id: owner.userId } })
  t.match(deleted, { resource_id: key.id })
  t.match(changed, { resource_id: member.userId, metadata: { from: 'viewer', to: 'developer' } })
  t.match(removed, { resource_id: member.userId })
  const times = res.body.map((e: { created_at: string }) => Date.parse(e.created_at))
  t.same(
    times,
    [...times].sort((x: number, y: number) => y - x),
    'newest first',
  )

  // A failed sign-in for an email nobody has belongs to no organization: nobody's trail shows it.
  t.equal((await a.request('POST', '/api/v1/auth/login', { body: { email: 'nobody@example.com', password: 'whatever1' } })).status, 401)
  t.equal((await list('?action=session.login_failed', token)).actions.length, 1)
  t.same(a.db.prepare("SELECT organization_id FROM audit_events WHERE action = 'session.login_failed' ORDER BY id").all(), [
    { organization_id: owner.organizationId },
    { organization_id: null },
  ])
})

t.test('filters: action, resource_type, actor, since (inclusive), until (exclusive)', async (t) => {
  const { a, owner, clock, list } = await setup(t)
  const key = await createKey(a, owner) // api_key.created by the owner
  clock.advance(MIN)
  const t1 = clock.now()
  expectStatus(await a.request('POST', '/api/v1/projects', { token: owner.token, body: { name: 'P' } }), 201, 'project')
  clock.advance(MIN)
  const t2 = clock.now()
  expectStatus(await a.request('POST', '/api/v1/rbac/roles', { apiKey: key.key, body: { name: 'R', permissions: ['agents:read'] } }), 201, 'role')

  t.same((await list('?action=project.created')).actions, ['project.created'])
  t.same((await list('?resource_type=api_key')).actions, ['api_key.created'])
  t.same((await list(`?actor=${key.id}`)).actions, ['role.created'])
  t.same((await list(`?since=${iso(t1)}`)).actions, ['role.created', 'project.created'])
  t.same((await list(`?until=${iso(t1)}`)).actions, ['api_key.created', 'user.registered'])
  t.same((await list(`?since=${iso(t1)}&until=${iso(t2)}`)).actions, ['project.created'])
  t.same((await list(`?since=${encodeURIComponent(new Date(t2).toISOString().replace('Z', '+00:00'))}`)).actions, ['role.created'], 'an offset time works')
  t.same((await list('?action=role.created&resource_type=project')).actions, [], 'filters combine')
  t.same((await list('?action=nothing.like.this')).res.headers.get('x-total-count'), '0')
  t.equal((await list('?since=yesterday')).res.status, 422)
})

t.test('limit and offset page the trail; X-Total-Count counts all matches', async (t) => {
  const { a, owner, list } = await setup(t)
  const ids: string[] = []
  for (let i = 0; i < 5; i++)
    ids.push(expectStatus(await a.request('POST', '/api/v1/projects', { token: owner.token, body: { name: `P${i}` } }), 201, 'project').id)
  const page = await list('?resource_type=project&limit=2&offset=1')
  t.equal(page.res.status, 200)
  t.equal(page.res.headers.get('x-total-count'), '5')
  t.same(
    page.res.body.map((e: { resource_id: string }) => e.resource_id),
    [ids[3], ids[2]],
  )
  const all = await list('?limit=200')
  t.equal(all.res.headers.get('x-total-count'), String(all.actions.length))
  t.equal((await list('?resource_type=project&offset=5')).actions.length, 0)
  for (const bad of ['limit=0', 'limit=201', 'offset=-1', 'limit=abc']) {
    const res = (await list(`?${bad}`)).res
    t.equal(res.status, 422, bad)
    t.equal(res.body.detail[0].loc[0], 'query', bad)
  }
  const dflt = await list()
  t.equal(dflt.res.status, 200, 'limit defaults')
})

t.test('reading needs audit:read: a viewer and a member:read key may, a workflow:read key may not', async (t) => {
  const { a, owner, list } = await setup(t)
  const viewer = await addMember(a, owner, 4)
  const own = await list()
  const seen = await list('', viewer.token)
  t.equal(seen.res.status, 200)
  t.ok(seen.actions.includes('invitation.accepted'))
  t.same(seen.actions, own.actions, 'the viewer sees the same trail')

  const reader = await createKey(a, owner, ['member:read'])
  t.equal((await a.request('GET', AUDIT, { apiKey: reader.key })).status, 200)
  const narrow = await createKey(a, owner, ['workflow:read'])
  const denied = await a.request('GET', AUDIT, { apiKey: narrow.key })
  t.equal(denied.status, 403)
  t.equal(denied.body.error.code, 'permission_denied')
  t.equal((await a.request('GET', AUDIT)).status, 401)
})

t.test('the audit_events table refuses UPDATE', async (t) => {
  const { a } = await setup(t)
  const before = a.db.prepare('SELECT * FROM audit_events').all()
  t.ok(before.length > 0)
  t.throws(() => a.db.prepare("UPDATE audit_events SET action = 'forged'").run(), /append-only/)
  t.throws(() => a.db.prepare('UPDATE audit_events SET organization_id = NULL').run(), /append-only/)
  t.same(a.db.prepare('SELECT * FROM audit_events').all(), before, 'nothing changed')
})
