import t from 'tap'
import { startTestApp, type Reply, type TestApp } from '../../helpers/app.js'
import { SMALL_GRAPH, addMember, createKey, createWorkflow, expectStatus, newOwner } from '../../helpers/tenancy-fixtures.js'

// The spec's scope table: workflow:read "View agents", workflow:write "Create and edit agents",
// workflow:publish "Publish and promote agents". Each key below holds one scope; every workflow
// route is tried with it, and the ones outside the scope must answer 403 permission_denied.

const W = '/api/v1/workflows'
const a: TestApp = await startTestApp()
t.teardown(() => a.close())
const owner = await newOwner(a)

type Op =
  | 'list'
  | 'templates'
  | 'get'
  | 'version'
  | 'create'
  | 'put_definition'
  | 'put_config'
  | 'duplicate'
  | 'archive'
  | 'unarchive'
  | 'delete'
  | 'publish'
  | 'promote'

/** One call of each kind, as a key holder; each call gets a fresh agent (published once) so none depends on another. */
async function call(op: Op, apiKey: string): Promise<Reply> {
  const id = await createWorkflow(a, owner)
  expectStatus(await a.request('POST', `${W}/${id}/publish`, { token: owner.token }), 200, 'publish')
  if (op === 'unarchive') expectStatus(await a.request('POST', `${W}/${id}/archive`, { token: owner.token }), 200, 'archive')
  const as = { apiKey }
  switch (op) {
    case 'list':
      return a.request('GET', W, as)
    case 'templates':
      return a.request('GET', `${W}/templates`, as)
    case 'get':
      return a.request('GET', `${W}/${id}`, as)
    case 'version':
      return a.request('GET', `${W}/${id}/versions/1`, as)
    case 'create':
      return a.request('POST', W, { ...as, body: { name: 'By key' } })
    case 'put_definition':
      return a.request('PUT', `${W}/${id}/definition`, { ...as, body: SMALL_GRAPH })
    case 'put_config':
      return a.request('PUT', `${W}/${id}/config`, { ...as, body: {} })
    case 'duplicate':
      return a.request('POST', `${W}/${id}/duplicate`, as)
    case 'archive':
      return a.request('POST', `${W}/${id}/archive`, as)
    case 'unarchive':
      return a.request('POST', `${W}/${id}/unarchive`, as)
    case 'delete':
      return a.request('DELETE', `${W}/${id}`, as)
    case 'publish':
      return a.request('POST', `${W}/${id}/publish`, as)
    // A fresh agent has no copy anywhere, so a permitted promote succeeds.
    case 'promote':
      return a.request('POST', `${W}/${id}/promote`, { ...as, body: { target_environment: 'prod' } })
  }
}

const SUCCESS: Record<Op, number> = {
  list: 200,
  templates: 200,
  get: 200,
  version: 200,
  create: 201,
  put_definition: 200,
  put_config: 200,
  duplicate: 201,
  archive: 200,
  unarchive: 200,
  delete: 204,
  publish: 200,
  promote: 200,
}
const READ: Op[] = ['list', 'templates', 'get', 'version']
const WRITE: Op[] = ['create', 'put_definition', 'put_config', 'duplicate', 'archive', 'unarchive', 'delete']
const PUBLISH: Op[] = ['publish', 'promote']

const CASES: [string, Op[]][] = [
  ['workflow:read', READ],
  ['workflow:write', WRITE],
  ['workflow:publish', PUBLISH],
]

for (const [scope, allowed] of CASES) {
  t.test(`a key with only ${scope} may ${allowed.join(', ')} and nothing else`, async (t) => {
    const { key } = await createKey(a, owner, [scope])
    for (const op of Object.keys(SUCCESS) as Op[]) {
      const res = await call(op, key)
      if (allowed.includes(op)) t.equal(res.status, SUCCESS[op], `${op} allowed`, { body: res.text })
      else t.match({ status: res.status, code: res.body?.error?.code }, { status: 403, code: 'permission_denied' }, `${op} denied`)
    }
  })
}

t.test('a denied write leaves the agent as it was', async (t) => {
  const { key } = await createKey(a, owner, ['workflow:read'])
  const id = await createWorkflow(a, owner)
  const before = expectStatus(await a.request('GET', `${W}/${id}`, { token: owner.token }), 200, 'get')
  t.equal((await a.request('PUT', `${W}/${id}/definition`, { apiKey: key, body: SMALL_GRAPH })).status, 403)
  t.equal((await a.request('POST', `${W}/${id}/publish`, { apiKey: key })).status, 403)
  t.equal((await a.request('DELETE', `${W}/${id}`, { apiKey: key })).status, 403)
  t.same(expectStatus(await a.request('GET', `${W}/${id}`, { token: owner.token }), 200, 'get'), before)
})

t.test('the viewer role reads agents but cannot create or publish them; a developer can', async (t) => {
  const viewer = await addMember(a, owner, 4)
  const developer = await addMember(a, owner, 3)
  const id = await createWorkflow(a, owner)
  t.equal((await a.request('GET', `${W}/${id}`, { token: viewer.token })).status, 200)
  t.equal((await a.request('POST', W, { token: viewer.token, body: { name: 'No' } })).status, 403)
  t.equal((await a.request('POST', `${W}/${id}/publish`, { token: viewer.token })).status, 403)
  t.equal((await a.request('POST', W, { token: developer.token, body: { name: 'Yes' } })).status, 201)
  t.equal((await a.request('POST', `${W}/${id}/publish`, { token: developer.token })).status, 200)
})
