import t from 'tap'
import { z } from 'zod'
import { defineRoute } from '../../../api/index.js'
import { SCOPES, SCOPE_PERMISSIONS, type Scope } from '../../../api/rbac/index.js'
import type { Reply, TestApp } from '../../helpers/app.js'
import { RBAC, code, createKey, createRole, freshEmail, setup } from '../../helpers/rbac.js'

// A probe route that answers with the caller's permissions as the authenticator resolved them.
const probe = defineRoute({
  operationId: 'test_permissions',
  method: 'get',
  path: '/api/v1/test/permissions',
  auth: 'A',
  tag: 'test',
  summary: "the caller's permissions",
  status: 200,
  response: z.array(z.string()),
  handler: ({ auth }) => [...auth.permissions].sort(),
})

const { a, owner } = await setup(t, { extraRoutes: () => [probe] })
// A custom role within member:manage, so a key holding only that scope may offer it.
const inviteRole = (await createRole(a, owner, 'Inviter', ['members:write'])).body.id as number

type Call = (a: TestApp, key: string) => Promise<Reply>
const me: Call = (a, apiKey) => a.request('GET', '/api/v1/auth/me', { apiKey })
const get =
  (path: string): Call =>
  (a, apiKey) =>
    a.request('GET', path, { apiKey })

// Today's routes cover members, roles, the audit trail, request logs, API keys and organization
// settings. The workflow:* scopes (agents, sessions, calls, analytics), knowledge_base:* and
// org:read (phone numbers, tools, campaigns, do-not-call, integrations, automations, webhooks,
// credentials, billing) have no route of their own yet: for them "allowed" is GET /auth/me, and
// the exact permission set is checked through the probe route below instead.
const CASES: Record<Scope, { allowed: Call; status: number; denied: Call }> = {
  'workflow:read': { allowed: me, status: 200, denied: get(`${RBAC}/members`) },
  'workflow:write': { allowed: me, status: 200, denied: get(`${RBAC}/roles`) },
  'workflow:publish': { allowed: me, status: 200, denied: get('/api/v1/api-keys') },
  'workflow:run': { allowed: me, status: 200, denied: get('/api/v1/audit') },
  'knowledge_base:read': { allowed: me, status: 200, denied: get('/api/v1/request-logs') },
  'knowledge_base:write': { allowed: me, status: 200, denied: (a, apiKey) => a.request('PATCH', '/api/v1/organization', { apiKey, body: { name: 'x' } }) },
  'org:read': { allowed: me, status: 200, denied: (a, apiKey) => a.request('PATCH', '/api/v1/organization', { apiKey, body: { name: 'x' } }) },
  'org:manage': {
    allowed: (a, apiKey) => a.request('PATCH', '/api/v1/organization', { apiKey, body: { name: 'Renamed by key' } }),
    status: 200,
    denied: get('/api/v1/api-keys'), // listing keys is member:read, not org:manage
  },
  'member:read': {
    allowed: get(`${RBAC}/members`),
    status: 200,
    denied: (a, apiKey) => a.request('POST', `${RBAC}/invitations`, { apiKey, body: { email: freshEmail('x'), role_id: inviteRole } }),
  },
  'member:manage': {
    allowed: (a, apiKey) => a.request('POST', `${RBAC}/invitations`, { apiKey, body: { email: freshEmail('invitee'), role_id: inviteRole } }),
    status: 201,
    denied: get(`${RBAC}/members`), // viewing members is member:read
  },
  'role:manage': {
    allowed: (a, apiKey) => a.request('POST', `${RBAC}/roles`, { apiKey, body: { name: 'Made by key', permissions: ['roles:write'] } }),
    status: 201,
    denied: get(`${RBAC}/roles`), // listing roles is member:read
  },
}

const keys = new Map<Scope, string>()
for (const scope of SCOPES) keys.set(scope, await createKey(a, owner, [scope]))
t.teardown(() => a.close())

t.test('the table covers all 11 scopes of the spec', async (t) => {
  t.equal(SCOPES.length, 11)
  t.same(Object.keys(CASES).sort(), [...SCOPES].sort())
})

for (const scope of SCOPES) {
  t.test(`a key with only ${scope} succeeds where allowed and gets 403 permission_denied elsewhere`, async (t) => {
    const key = keys.get(scope)!
    const ok = await CASES[scope].allowed(a, key)
    t.equal(ok.status, CASES[scope].status, ok.text)
    const denied = await CASES[scope].denied(a, key)
    t.equal(denied.status, 403)
    t.equal(code(denied), 'permission_denied')
    const held = (await a.request('GET', '/api/v1/test/permissions', { apiKey: key })).body
    t.same(held, [...SCOPE_PERMISSIONS[scope]].sort(), `${scope} holds exactly its permission set`)
  })
}

t.test('every permission-checked route × every scope: 403 exactly when the scope lacks its permission', async (t) => {
  const checked = a.app.routes.filter((r) => r.permission)
  t.ok(checked.length >= 10, 'routes with permissions exist')
  const fill = (path: string) => path.replace('{role_id}', '999999').replace(/\{[a-z_]+\}/g, '00000000-0000-4000-8000-000000000000')
  for (const scope of SCOPES) {
    for (const route of checked) {
      // No body: a permitted request then fails validation (422) or finds nothing (404), so the
      // matrix never changes state; a refused one must be refused before either.
      const res = await a.request(route.method.toUpperCase(), fill(route.path), { apiKey: keys.get(scope)! })
      const allowed = SCOPE_PERMISSIONS[scope].includes(route.permission!)
      if (allowed) t.not(res.status, 403, `${scope} may ${route.operationId}`)
      else t.same([res.status, code(res)], [403, 'permission_denied'], `${scope} may not ${route.operationId}`)
    }
  }
})

t.test('a key with several scopes holds their union', async (t) => {
  const key = await createKey(a, owner, ['member:read', 'role:manage'])
  t.equal((await a.request('GET', `${RBAC}/roles`, { apiKey: key })).status, 200)
  const created = await a.request('POST', `${RBAC}/roles`, { apiKey: key, body: { name: 'Union', permissions: ['roles:read'] } })
  t.equal(created.status, 201)
  const held = (await a.request('GET', '/api/v1/test/permissions', { apiKey: key })).body
  t.same(held, [...SCOPE_PERMISSIONS['member:read'], ...SCOPE_PERMISSIONS['role:manage']].sort())
  t.equal((await a.request('PATCH', '/api/v1/organization', { apiKey: key, body: { name: 'x' } })).status, 403)
})
