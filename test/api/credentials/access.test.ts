import t, { type Test } from 'tap'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { addMember, createKey, newOwner, type Actor } from '../../helpers/tenancy-fixtures.js'

// Reading credentials is part of `org:read` (credentials:read), changing them of `org:manage`
// (credentials:write); credentials are organization-wide and another organization's are not there.

const CREDENTIALS = '/api/v1/credentials'
const SECRET = 'sk-access-test-0123456789abcdef'
const ROLE = { developer: 3, viewer: 4 } as const

async function setup(t: Test) {
  const a = await startTestApp()
  t.teardown(() => a.close())
  const owner = await newOwner(a)
  const stored = await a.request('PUT', CREDENTIALS, { token: owner.token, body: { provider: 'openai', fields: { api_key: SECRET } } })
  t.equal(stored.status, 200)
  return { a, owner }
}

type Auth = { token: string } | { apiKey: string }
const attempts = (a: TestApp, auth: Auth) => ({
  list: () => a.request('GET', CREDENTIALS, auth),
  put: () => a.request('PUT', CREDENTIALS, { ...auth, body: { provider: 'deepgram', fields: { api_key: 'dg-0123456789abcdef' } } }),
  del: () => a.request('DELETE', `${CREDENTIALS}/openai`, auth),
})

async function expectReadOnly(t: Test, a: TestApp, owner: Actor, auth: Auth) {
  const as = attempts(a, auth)
  const list = await as.list()
  t.equal(list.status, 200, 'may list')
  t.same(
    list.body.map((c: { provider: string }) => c.provider),
    ['openai'],
  )
  t.notOk(list.text.includes(SECRET.slice(0, -4)), 'masked for readers too')
  for (const [what, res] of [
    ['PUT', await as.put()],
    ['DELETE', await as.del()],
  ] as const) {
    t.equal(res.status, 403, `${what} is refused`)
    t.equal(res.body.error.code, 'permission_denied')
    t.match(res.body.error.message, /credentials:write/)
  }
  t.ok(a.services.credentials.reveal(owner.organizationId, 'openai'), 'the credential is untouched')
  t.equal(a.services.credentials.reveal(owner.organizationId, 'deepgram'), null, 'nothing was stored')
}

t.test('a viewer and a developer may read (org:read) but not change (org:manage) credentials', async (t) => {
  const { a, owner } = await setup(t)
  await t.test('viewer', async (t) => expectReadOnly(t, a, owner, { token: (await addMember(a, owner, ROLE.viewer)).token }))
  await t.test('developer', async (t) => expectReadOnly(t, a, owner, { token: (await addMember(a, owner, ROLE.developer)).token }))
})

t.test('API keys: org:read reads, org:manage writes, other scopes do neither', async (t) => {
  const { a, owner } = await setup(t)
  await t.test('org:read key', async (t) => expectReadOnly(t, a, owner, { apiKey: (await createKey(a, owner, ['org:read'])).key }))
  const other = attempts(a, { apiKey: (await createKey(a, owner, ['workflow:read', 'member:read'])).key })
  t.equal((await other.list()).status, 403, 'a key without org:read cannot list')
  const manage = attempts(a, { apiKey: (await createKey(a, owner, ['org:manage'])).key })
  t.equal((await manage.put()).status, 200, 'org:manage stores')
  t.equal((await manage.del()).status, 204, 'org:manage deletes')
  t.equal(a.services.credentials.reveal(owner.organizationId, 'openai'), null)
})

t.test('without a credential the routes are 401', async (t) => {
  const { a } = await setup(t)
  for (const res of [await a.request('GET', CREDENTIALS), await attempts(a, { token: 'nope' }).put(), await a.request('DELETE', `${CREDENTIALS}/openai`)]) {
    t.equal(res.status, 401)
    t.equal(res.body.error.code, 'authentication_required')
  }
})

t.test('another organization neither sees nor deletes the credential (404), nor reveals it', async (t) => {
  const { a, owner } = await setup(t)
  const stranger = await newOwner(a)
  const theirs = attempts(a, { token: stranger.token })
  t.same((await theirs.list()).body, [], 'their list is empty')
  const del = await theirs.del()
  t.equal(del.status, 404)
  t.equal(del.body.error.code, 'not_found')
  t.equal(a.services.credentials.reveal(stranger.organizationId, 'openai'), null)
  t.same(a.services.credentials.reveal(owner.organizationId, 'openai'), { api_key: SECRET }, 'still there for its owner')

  // Their own credential for the same provider is theirs alone, and deleting it leaves ours.
  const own = await a.request('PUT', CREDENTIALS, { token: stranger.token, body: { provider: 'openai', fields: { api_key: 'sk-stranger-0000000000zzzz' } } })
  t.equal(own.status, 200)
  t.same(a.services.credentials.reveal(owner.organizationId, 'openai'), { api_key: SECRET }, 'not replaced by theirs')
  t.equal((await theirs.del()).status, 204)
  t.same(a.services.credentials.reveal(owner.organizationId, 'openai'), { api_key: SECRET }, 'not deleted with theirs')
  t.same(
    (await a.request('GET', CREDENTIALS, { token: owner.token })).body.map((c: { fields: unknown }) => c.fields),
    [{ api_key: '••••cdef' }],
  )
})

t.test('credentials are organization-wide: the same in every environment', async (t) => {
  const { a, owner } = await setup(t)
  const lists = await Promise.all(
    ['dev', 'staging', 'prod'].map((env) => a.request('GET', CREDENTIALS, { token: owner.token, headers: { 'x-environment-id': env } })),
  )
  for (const l of lists) t.same(l.body, lists[0]!.body)
  t.equal(lists[0]!.body.length, 1)
  const del = await a.request('DELETE', `${CREDENTIALS}/openai`, { token: owner.token, headers: { 'x-environment-id': 'prod' } })
  t.equal(del.status, 204, 'deleted from another environment than the default')
})
