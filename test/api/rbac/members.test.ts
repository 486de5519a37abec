import t from 'tap'
import { RBAC, ROLE, actorOf, addMember, auditOf, code, createKey, freshEmail, invite, login, setup, withoutRequestId } from '../../helpers/rbac.js'

const MEMBERS = `${RBAC}/members`
const UNKNOWN_USER = '00000000-0000-4000-8000-000000000000'

t.test('members are listed with their roles; anyone with members:read may list', async (t) => {
  const { a, owner } = await setup(t)
  const viewer = await addMember(a, owner, ROLE.viewer, 'viewer')
  const res = await a.request('GET', MEMBERS, { token: viewer.token })
  t.equal(res.status, 200)
  t.same(
    res.body.map((m: { user_id: string; role: { key: string } }) => [m.user_id, m.role.key]).sort(),
    [
      [owner.userId, 'owner'],
      [viewer.userId, 'viewer'],
    ].sort(),
  )
  const me = res.body.find((m: { user_id: string }) => m.user_id === viewer.userId)
  t.match(me, { email: viewer.email, name: 'Test User', role: { id: ROLE.viewer, key: 'viewer', name: 'Viewer' } })
  t.ok(Date.parse(me.joined_at) > 0)
})

t.test("an owner changes a member's role; it applies at once and is audited", async (t) => {
  const { a, owner } = await setup(t)
  const m = await addMember(a, owner, ROLE.viewer)
  t.equal((await a.request('GET', '/api/v1/rbac/invitations', { token: m.token })).status, 200, 'a viewer reads invitations')
  t.equal((await a.request('POST', '/api/v1/projects', { token: m.token, body: { name: 'p' } })).status, 403)

  const res = await a.request('PATCH', `${MEMBERS}/${m.userId}`, { token: owner.token, body: { role_id: ROLE.admin } })
  t.equal(res.status, 200)
  t.match(res.body, { user_id: m.userId, role: { id: ROLE.admin, key: 'admin' } })
  t.equal((await a.request('GET', '/api/v1/auth/me', { token: m.token })).body.role, 'admin', 'the same token carries the new role')
  t.equal((await a.request('POST', '/api/v1/projects', { token: m.token, body: { name: 'p' } })).status, 201)

  const rows = await auditOf(a, owner, 'member.role_changed')
  t.equal(rows.length, 1)
  t.match(rows[0], { resource_type: 'member', resource_id: m.userId, actor: { id: owner.userId }, metadata: { from: 'viewer', to: 'admin' } })
  const bad = await a.request('PATCH', `${MEMBERS}/${m.userId}`, { token: owner.token, body: { role_id: 'admin' } })
  t.equal(bad.status, 422)
})

t.test('the last owner can be neither demoted nor removed, until a second owner exists', async (t) => {
  const { a, owner } = await setup(t)
  const demote = await a.request('PATCH', `${MEMBERS}/${owner.userId}`, { token: owner.token, body: { role_id: ROLE.admin } })
  t.same([demote.status, code(demote)], [409, 'last_owner'])
  const remove = await a.request('DELETE', `${MEMBERS}/${owner.userId}`, { token: owner.token })
  t.same([remove.status, code(remove)], [409, 'last_owner'])
  const key = await createKey(a, owner)
  const byKey = await a.request('DELETE', `${MEMBERS}/${owner.userId}`, { apiKey: key })
  t.same([byKey.status, code(byKey)], [409, 'last_owner'], 'nor through an API key')
  t.equal((await a.request('GET', '/api/v1/auth/me', { token: owner.token })).body.role, 'owner')

  const second = await addMember(a, owner, ROLE.owner, 'second')
  const nowOk = await a.request('PATCH', `${MEMBERS}/${owner.userId}`, { token: owner.token, body: { role_id: ROLE.admin } })
  t.equal(nowOk.status, 200, 'with two owners one may step down')
  const lastAgain = await a.request('DELETE', `${MEMBERS}/${second.userId}`, { token: second.token })
  t.same([lastAgain.status, code(lastAgain)], [409, 'last_owner'], 'the remaining owner is now the last')

  t.equal((await a.request('PATCH', `${MEMBERS}/${owner.userId}`, { token: second.token, body: { role_id: ROLE.owner } })).status, 200)
  t.equal((await a.request('DELETE', `${MEMBERS}/${owner.userId}`, { token: second.token })).status, 204, 'with two owners one may be removed')
})

t.test('an admin cannot demote or remove an owner, nor grant ownership', async (t) => {
  const { a, owner } = await setup(t)
  const admin = await addMember(a, owner, ROLE.admin, 'admin')
  const viewer = await addMember(a, owner, ROLE.viewer, 'viewer')
  for (const res of [
    await a.request('PATCH', `${MEMBERS}/${owner.userId}`, { token: admin.token, body: { role_id: ROLE.viewer } }),
    await a.request('DELETE', `${MEMBERS}/${owner.userId}`, { token: admin.token }),
    await a.request('PATCH', `${MEMBERS}/${viewer.userId}`, { token: admin.token, body: { role_id: ROLE.owner } }),
    await a.request('PATCH', `${MEMBERS}/${admin.userId}`, { token: admin.token, body: { role_id: ROLE.owner } }),
    await invite(a, admin, freshEmail('boss'), ROLE.owner),
  ])
    t.same([res.status, code(res)], [403, 'permission_denied'])
  const roles = Object.fromEntries(
    (await a.request('GET', MEMBERS, { token: owner.token })).body.map((m: { user_id: string; role: { key: string } }) => [m.user_id, m.role.key]),
  )
  t.same(roles, { [owner.userId]: 'owner', [admin.userId]: 'admin', [viewer.userId]: 'viewer' }, 'nothing changed')

  t.equal(
    (await a.request('PATCH', `${MEMBERS}/${viewer.userId}`, { token: admin.token, body: { role_id: ROLE.developer } })).status,
    200,
    'an admin manages non-owners',
  )
  t.equal((await a.request('DELETE', `${MEMBERS}/${viewer.userId}`, { token: admin.token })).status, 204)
})

t.test("a removed member's sessions and unscoped keys stop at once", async (t) => {
  const { a, owner } = await setup(t)
  const m = await addMember(a, owner, ROLE.admin)
  const key = await createKey(a, m)
  const ownOrgToken = await login(a, m.email) // signs in to their first organization, their own
  t.equal((await a.request('GET', '/api/v1/auth/me', { apiKey: key })).status, 200)

  t.equal((await a.request('DELETE', `${MEMBERS}/${m.userId}`, { token: owner.token })).status, 204)
  for (const res of [await a.request('GET', '/api/v1/auth/me', { token: m.token }), await a.request('GET', '/api/v1/auth/me', { apiKey: key })])
    t.same([res.status, code(res)], [401, 'authentication_required'])

  const sessions = a.db
    .prepare('SELECT revoked_at, revoked_reason FROM auth_sessions WHERE user_id = ? AND organization_id = ?')
    .all(m.userId, owner.organizationId) as { revoked_at: number | null; revoked_reason: string | null }[]
  t.ok(sessions.length >= 1)
  t.ok(
    sessions.every((s) => s.revoked_at !== null && s.revoked_reason === 'member_removed'),
    'every session there is revoked',
  )
  t.equal((await a.request('GET', '/api/v1/auth/me', { token: ownOrgToken })).status, 200, 'their own organization is untouched')
  t.notOk((await a.request('GET', MEMBERS, { token: owner.token })).body.some((x: { user_id: string }) => x.user_id === m.userId))
  const again = await a.request('DELETE', `${MEMBERS}/${m.userId}`, { token: owner.token })
  t.equal(again.status, 404, 'removing again finds nobody')

  const rows = await auditOf(a, owner, 'member.removed')
  t.equal(rows.length, 1)
  t.match(rows[0], { resource_type: 'member', resource_id: m.userId, actor: { id: owner.userId }, metadata: { email: m.email, role: 'admin' } })
})

t.test('an unknown user and a user of another organization give the identical 404', async (t) => {
  const { a, owner } = await setup(t)
  const stranger = actorOf(await a.register(freshEmail('stranger')))
  for (const [method, body] of [
    ['PATCH', { role_id: ROLE.viewer }],
    ['DELETE', undefined],
  ] as const) {
    const foreign = await a.request(method, `${MEMBERS}/${stranger.userId}`, { token: owner.token, body })
    const unknown = await a.request(method, `${MEMBERS}/${UNKNOWN_USER}`, { token: owner.token, body })
    t.same([foreign.status, code(foreign)], [404, 'not_found'], method)
    t.equal(withoutRequestId(foreign), withoutRequestId(unknown), `${method}: byte-identical but for request_id`)
  }
  t.equal((await a.request('GET', '/api/v1/auth/me', { token: stranger.token })).body.role, 'owner', 'the stranger is untouched')
  const path = await a.request('DELETE', `${MEMBERS}/not-a-uuid`, { token: owner.token })
  t.same(
    path.body.detail.map((d: { loc: unknown }) => d.loc),
    [['path', 'user_id']],
  )
})
