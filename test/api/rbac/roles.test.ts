import t from 'tap'
import type { ManualClock } from '../../../core/index.js'
import { startTestApp } from '../../helpers/app.js'
import { RBAC, ROLE, actorOf, addMember, auditOf, code, createRole, freshEmail, invite, login, setup, withoutRequestId } from '../../helpers/rbac.js'

const ROLES = `${RBAC}/roles`
const INVITATION_TTL_MS = 7 * 86_400_000
const UNKNOWN_USER = '00000000-0000-4000-8000-000000000000'

t.test('built-in roles are listed and can be neither changed nor deleted', async (t) => {
  const { a, owner } = await setup(t)
  const list = await a.request('GET', ROLES, { token: owner.token })
  t.equal(list.status, 200)
  const builtins = list.body.filter((r: { builtin: boolean }) => r.builtin)
  t.same(
    builtins.map((r: { id: number; key: string }) => [r.id, r.key]),
    [
      [1, 'owner'],
      [2, 'admin'],
      [3, 'developer'],
      [4, 'viewer'],
    ],
  )
  t.match(builtins[0], { member_count: 1 }, 'the registering user owns the organization')
  const catalog = (await a.request('GET', `${RBAC}/permissions`, { token: owner.token })).body
  t.equal(builtins[0].permissions.length, catalog.length, 'an owner holds every permission')
  t.notOk(
    builtins[3].permissions.some((p: string) => p.endsWith(':write')),
    'a viewer writes nothing',
  )

  for (const id of Object.values(ROLE)) {
    const patch = await a.request('PATCH', `${ROLES}/${id}`, { token: owner.token, body: { name: 'Mine now' } })
    t.same([patch.status, code(patch)], [409, 'builtin_role'], `PATCH role ${id}`)
    const del = await a.request('DELETE', `${ROLES}/${id}`, { token: owner.token })
    t.same([del.status, code(del)], [409, 'builtin_role'], `DELETE role ${id}`)
  }
  t.same((await a.request('GET', ROLES, { token: owner.token })).body.slice(0, 4), list.body.slice(0, 4), 'unchanged')
})

t.test('custom role lifecycle: create, conflict, change, validate, delete — each audited', async (t) => {
  const { a, owner } = await setup(t)
  const created = await createRole(a, owner, 'Support Agent', ['members:read', 'audit:read'])
  t.equal(created.status, 201)
  t.match(created.body, { name: 'Support Agent', description: '', builtin: false, member_count: 0, permissions: ['members:read', 'audit:read'] })
  t.ok(Number.isInteger(created.body.id) && created.body.id > 4, 'an integer id after the built-ins')
  const id: number = created.body.id
  t.ok(
    (await a.request('GET', ROLES, { token: owner.token })).body.some((r: { id: number }) => r.id === id),
    'listed',
  )

  for (const name of ['Support Agent', 'support agent', 'Admin']) {
    const dup = await createRole(a, owner, name, [])
    t.same([dup.status, code(dup)], [409, 'role_exists'], `"${name}" is taken`)
  }
  const other = (await createRole(a, owner, 'Auditor', ['audit:read'])).body.id
  const clash = await a.request('PATCH', `${ROLES}/${other}`, { token: owner.token, body: { name: 'SUPPORT AGENT' } })
  t.same([clash.status, code(clash)], [409, 'role_exists'], 'renaming onto another role is a conflict')

  const patched = await a.request('PATCH', `${ROLES}/${id}`, { token: owner.token, body: { name: 'Support', permissions: ['members:read'] } })
  t.equal(patched.status, 200)
  t.match(patched.body, { id, name: 'Support', permissions: ['members:read'] })
  const described = await a.request('PATCH', `${ROLES}/${id}`, { token: owner.token, body: { description: 'Front line' } })
  t.match(described.body, { name: 'Support', description: 'Front line', permissions: ['members:read'] }, 'a partial change keeps the rest')

  for (const [body, where] of [
    [{ permissions: ['members:read', 'agents:fly'] }, ['body', 'permissions', 1]],
    [{}, ['body']],
    [{ permissions: ['members:read', 'members:read'] }, ['body', 'permissions']],
  ] as const) {
    const bad = await a.request('PATCH', `${ROLES}/${id}`, { token: owner.token, body })
    t.equal(bad.status, 422, JSON.stringify(body))
    t.same(
      bad.body.detail.map((d: { loc: unknown }) => d.loc),
      [where],
    )
  }
  t.equal((await createRole(a, owner, 'Bad', ['everything:all'])).status, 422, 'an unknown permission cannot be created either')

  t.equal((await a.request('DELETE', `${ROLES}/${id}`, { token: owner.token })).status, 204)
  t.notOk(
    (await a.request('GET', ROLES, { token: owner.token })).body.some((r: { id: number }) => r.id === id),
    'gone',
  )
  t.equal((await a.request('DELETE', `${ROLES}/${id}`, { token: owner.token })).status, 404, 'deleting again finds nothing')

  for (const action of ['role.created', 'role.updated', 'role.deleted']) {
    const rows = await auditOf(a, owner, action)
    t.ok(
      rows.some((r) => r.resource_id === String(id) && r.resource_type === 'role' && r.actor.id === owner.userId),
      `${action} audited`,
    )
  }
})

t.test('nobody grants a permission they do not hold', async (t) => {
  const { a, owner } = await setup(t)
  const limited = (await createRole(a, owner, 'Role Manager', ['roles:read', 'roles:write'])).body.id
  const manager = await addMember(a, owner, limited, 'manager')
  const beyond = await createRole(a, manager, 'Escalate', ['roles:write', 'agents:write'])
  t.same([beyond.status, code(beyond)], [403, 'permission_denied'])
  const within = await createRole(a, manager, 'Readers', ['roles:read'])
  t.equal(within.status, 201)
  const widen = await a.request('PATCH', `${ROLES}/${within.body.id}`, { token: manager.token, body: { permissions: ['members:write'] } })
  t.same([widen.status, code(widen)], [403, 'permission_denied'])
  const self = await a.request('PATCH', `${ROLES}/${limited}`, { token: manager.token, body: { permissions: ['roles:read', 'roles:write', 'members:write'] } })
  t.same([self.status, code(self)], [403, 'permission_denied'], 'not even by widening their own role')
  t.same((await a.request('GET', ROLES, { token: owner.token })).body.find((r: { id: number }) => r.id === limited).permissions, ['roles:read', 'roles:write'])
})

t.test('a role held by a member or offered by a pending invitation cannot be deleted', async (t) => {
  const { a, owner } = await setup(t)
  const held = (await createRole(a, owner, 'Held', ['members:read'])).body.id
  const member = await addMember(a, owner, held)
  const inUse = await a.request('DELETE', `${ROLES}/${held}`, { token: owner.token })
  t.same([inUse.status, code(inUse)], [409, 'role_in_use'])
  t.match(
    (await a.request('GET', ROLES, { token: owner.token })).body.find((r: { id: number }) => r.id === held),
    { member_count: 1 },
  )

  const offered = (await createRole(a, owner, 'Offered', ['members:read'])).body.id
  const inv = await invite(a, owner, freshEmail('pending'), offered)
  const pending = await a.request('DELETE', `${ROLES}/${offered}`, { token: owner.token })
  t.same([pending.status, code(pending)], [409, 'role_in_use'])
  t.equal((await a.request('DELETE', `${RBAC}/invitations/${inv.body.id}`, { token: owner.token })).status, 204)
  t.equal((await a.request('DELETE', `${ROLES}/${offered}`, { token: owner.token })).status, 204, 'free once the invitation is withdrawn')

  // The member joined through an (accepted) invitation offering `held`; once they hold another
  // role, that history must not keep the role alive nor break its deletion.
  t.equal((await a.request('PATCH', `${RBAC}/members/${member.userId}`, { token: owner.token, body: { role_id: ROLE.viewer } })).status, 200)
  const freed = await a.request('DELETE', `${ROLES}/${held}`, { token: owner.token })
  t.equal(freed.status, 204, freed.text)

  // An expired invitation offers nothing (and is no longer listed), so it does not block deletion.
  const lapsed = (await createRole(a, owner, 'Lapsed', [])).body.id
  t.equal((await invite(a, owner, freshEmail('late'), lapsed)).status, 201)
  const count = await a.request('PATCH', `${ROLES}/${lapsed}`, { token: owner.token, body: { description: 'x' } })
  t.match(count.body, { member_count: 0 }, 'member_count counts members, as the list does')
  ;(a.clock as ManualClock).advance(INVITATION_TTL_MS + 1)
  const token = await login(a, owner.email)
  t.same((await a.request('GET', `${RBAC}/invitations`, { token })).body, [])
  t.equal((await a.request('DELETE', `${ROLES}/${lapsed}`, { token })).status, 204)
})

t.test("another organization's role and an unknown role give the identical 404; a bad id is 422", async (t) => {
  const { a, owner } = await setup(t)
  const stranger = actorOf(await a.register(freshEmail('stranger')))
  const theirs = (await createRole(a, stranger, 'Theirs', [])).body.id
  for (const [method, body] of [
    ['PATCH', { name: 'Stolen' }],
    ['DELETE', undefined],
  ] as const) {
    const foreign = await a.request(method, `${ROLES}/${theirs}`, { token: owner.token, body })
    const unknown = await a.request(method, `${ROLES}/987654`, { token: owner.token, body })
    t.same([foreign.status, code(foreign)], [404, 'not_found'], method)
    t.equal(withoutRequestId(foreign), withoutRequestId(unknown), `${method}: byte-identical but for request_id`)
  }
  t.ok(
    (await a.request('GET', ROLES, { token: stranger.token })).body.some((r: { name: string }) => r.name === 'Theirs'),
    'their role is untouched',
  )
  t.notOk(
    (await a.request('GET', ROLES, { token: owner.token })).body.some((r: { id: number }) => r.id === theirs),
    'and not listed here',
  )
  for (const bad of ['abc', '0', '1.5']) {
    const res = await a.request('PATCH', `${ROLES}/${bad}`, { token: owner.token, body: { name: 'x' } })
    t.equal(res.status, 422, bad)
    t.same(
      res.body.detail.map((d: { loc: unknown }) => d.loc),
      [['path', 'role_id']],
    )
  }
  const assign = await a.request('PATCH', `${RBAC}/members/${owner.userId}`, { token: owner.token, body: { role_id: theirs } })
  t.not(assign.status, 200, "another organization's role cannot be assigned")
  t.equal((await a.request('PATCH', `${RBAC}/members/${UNKNOWN_USER}`, { token: owner.token, body: { role_id: 4 } })).status, 404)
})

t.test("a custom role's permissions take effect at request time", async (t) => {
  const { a, owner } = await setup(t)
  const id = (await createRole(a, owner, 'Shifting', ['members:read'])).body.id
  const member = await addMember(a, owner, id)
  t.equal((await a.request('GET', `${RBAC}/members`, { token: member.token })).status, 200)
  t.equal((await a.request('GET', ROLES, { token: member.token })).status, 403)

  await a.request('PATCH', `${ROLES}/${id}`, { token: owner.token, body: { permissions: ['roles:read'] } })
  t.equal((await a.request('GET', ROLES, { token: member.token })).status, 200, 'granted on the same token')
  const gone = await a.request('GET', `${RBAC}/members`, { token: member.token })
  t.same([gone.status, code(gone)], [403, 'permission_denied'], 'withdrawn on the same token')
})

t.test('names without Latin letters get distinct keys', async (t) => {
  const a = await startTestApp()
  t.teardown(() => a.close())
  const owner = await a.register()
  const make = (name: string) => a.request('POST', '/api/v1/rbac/roles', { token: owner.access_token, body: { name, permissions: [] } })
  const first = await make('管理者')
  const second = await make('観察者')
  t.equal(first.status, 201)
  t.equal(second.status, 201)
  t.not(first.body.key, second.body.key)
  t.equal((await make('管理者')).status, 409, 'the same name still clashes')
})
