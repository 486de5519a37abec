import t, { type Test } from 'tap'
import { startTestApp } from '../../helpers/app.js'
import { addMember, createKey, expectStatus, newOwner } from '../../helpers/tenancy-fixtures.js'

// The tool library's CRUD: versioned writes, names unique per organization, secrets write-only,
// soft delete, and organizations that never see each other's tools.

const TOOLS = '/api/v1/tools'
const ORDER_TOOL = {
  name: 'lookup_order',
  description: 'Look up an order by its number.',
  parameters: { type: 'object', properties: { order_id: { type: 'string', description: 'The order number' } }, required: ['order_id'] },
  runs: { type: 'http', method: 'GET', url: 'https://93.184.216.34/orders/{{order_id}}', headers: { Accept: 'application/json' } },
  secret_headers: { Authorization: 'Bearer very-secret-token-123' },
}

async function setup(t: Test) {
  const a = await startTestApp()
  t.teardown(() => a.close())
  return { a, owner: await newOwner(a) }
}

t.test('a tool is created at version 1, listed, read, and its secret header values are never shown', async (t) => {
  const { a, owner } = await setup(t)
  const res = await a.request('POST', TOOLS, { token: owner.token, body: ORDER_TOOL })
  const tool = expectStatus(res, 201, 'create')
  t.match(tool, {
    name: 'lookup_order',
    version: 1,
    latest_version: 1,
    runs: { type: 'http', method: 'GET', timeout_ms: 10000, headers: { Accept: 'application/json' } },
    secret_header_names: ['Authorization'],
    created_by: owner.userId,
  })
  t.notOk(res.text.includes('very-secret-token-123'), 'the secret is not in the response')
  const list = expectStatus(await a.request('GET', TOOLS, { token: owner.token }), 200, 'list')
  t.same(
    list.map((x: { id: string }) => x.id),
    [tool.id],
  )
  t.notOk(JSON.stringify(list).includes('very-secret'), 'nor in the list')
  const stored = a.db.prepare('SELECT secret_headers_sealed FROM tool_versions WHERE tool_id = ?').get(tool.id) as { secret_headers_sealed: Buffer }
  t.notOk(stored.secret_headers_sealed.toString('latin1').includes('very-secret'), 'stored sealed')
  t.match(expectStatus(await a.request('GET', `${TOOLS}/${tool.id}`, { token: owner.token }), 200, 'get'), { id: tool.id, version: 1 })
})

t.test('an update writes the next version; past versions stay readable as they were', async (t) => {
  const { a, owner } = await setup(t)
  const { id } = expectStatus(await a.request('POST', TOOLS, { token: owner.token, body: ORDER_TOOL }), 201, 'create')
  const v2 = expectStatus(
    await a.request('PATCH', `${TOOLS}/${id}`, { token: owner.token, body: { description: 'Find an order.', runs: { ...ORDER_TOOL.runs, timeout_ms: 2500 } } }),
    200,
    'update',
  )
  t.match(v2, { version: 2, latest_version: 2, description: 'Find an order.', runs: { timeout_ms: 2500 }, secret_header_names: ['Authorization'] })
  const v3 = expectStatus(await a.request('PATCH', `${TOOLS}/${id}`, { token: owner.token, body: { name: 'find_order', secret_headers: {} } }), 200, 'rename')
  t.match(v3, { version: 3, name: 'find_order', description: 'Find an order.', secret_header_names: [] })
  t.match(expectStatus(await a.request('GET', `${TOOLS}/${id}?version=1`, { token: owner.token }), 200, 'v1'), {
    version: 1,
    latest_version: 3,
    name: 'lookup_order',
    description: 'Look up an order by its number.',
    runs: { timeout_ms: 10000 },
  })
  const versions = expectStatus(await a.request('GET', `${TOOLS}/${id}/versions?limit=2`, { token: owner.token }), 200, 'versions')
  t.same(
    versions.map((v: { version: number }) => v.version),
    [3, 2],
  )
  const next = expectStatus(await a.request('GET', `${TOOLS}/${id}/versions?before=2`, { token: owner.token }), 200, 'next page')
  t.same(
    next.map((v: { version: number }) => v.version),
    [1],
  )
  t.equal((await a.request('GET', `${TOOLS}/${id}?version=9`, { token: owner.token })).status, 404)
})

t.test('names are unique among live tools; a deleted tool frees its name and leaves the API', async (t) => {
  const { a, owner } = await setup(t)
  const { id } = expectStatus(await a.request('POST', TOOLS, { token: owner.token, body: ORDER_TOOL }), 201, 'create')
  const again = await a.request('POST', TOOLS, { token: owner.token, body: ORDER_TOOL })
  t.match(again, { status: 409, body: { error: { code: 'tool_name_taken' } } })
  const other = expectStatus(await a.request('POST', TOOLS, { token: owner.token, body: { ...ORDER_TOOL, name: 'other' } }), 201, 'other')
  t.match(await a.request('PATCH', `${TOOLS}/${other.id}`, { token: owner.token, body: { name: 'lookup_order' } }), {
    status: 409,
    body: { error: { code: 'tool_name_taken' } },
  })
  t.equal((await a.request('DELETE', `${TOOLS}/${id}`, { token: owner.token })).status, 204)
  t.equal((await a.request('GET', `${TOOLS}/${id}`, { token: owner.token })).status, 404)
  t.equal((await a.request('PATCH', `${TOOLS}/${id}`, { token: owner.token, body: { description: 'x' } })).status, 404)
  t.equal((await a.request('POST', `${TOOLS}/${id}/test`, { token: owner.token, body: { arguments: { order_id: '1' } } })).status, 404)
  t.equal((await a.request('DELETE', `${TOOLS}/${id}`, { token: owner.token })).status, 404)
  expectStatus(await a.request('POST', TOOLS, { token: owner.token, body: ORDER_TOOL }), 201, 'the name is free again')
})

t.test("another organization's tool is answered exactly like an unknown one", async (t) => {
  const { a, owner } = await setup(t)
  const intruder = await newOwner(a)
  const { id } = expectStatus(await a.request('POST', TOOLS, { token: owner.token, body: ORDER_TOOL }), 201, 'create')
  for (const [method, path, body] of [
    ['GET', `${TOOLS}/${id}`, undefined],
    ['GET', `${TOOLS}/${id}/versions`, undefined],
    ['PATCH', `${TOOLS}/${id}`, { description: 'mine now' }],
    ['POST', `${TOOLS}/${id}/test`, { arguments: { order_id: '1' } }],
    ['DELETE', `${TOOLS}/${id}`, undefined],
  ] as const) {
    const res = await a.request(method, path, { token: intruder.token, body })
    t.match(res, { status: 404, body: { error: { code: 'not_found' } } }, `${method} ${path}`)
  }
  t.same(expectStatus(await a.request('GET', TOOLS, { token: intruder.token }), 200, 'list'), [], 'not listed')
  t.match(expectStatus(await a.request('GET', `${TOOLS}/${id}`, { token: owner.token }), 200, 'still there'), {
    latest_version: 1,
    description: ORDER_TOOL.description,
  })
})

t.test('tools belong to the organization: every environment sees the same library', async (t) => {
  const { a, owner } = await setup(t)
  const { id } = expectStatus(
    await a.request('POST', TOOLS, { token: owner.token, body: ORDER_TOOL, headers: { 'x-environment-id': 'staging' } }),
    201,
    'create',
  )
  const prod = expectStatus(await a.request('GET', TOOLS, { token: owner.token, headers: { 'x-environment-id': 'prod' } }), 200, 'list in prod')
  t.same(
    prod.map((x: { id: string }) => x.id),
    [id],
  )
})

t.test('permissions: org:read reads, org:manage writes; viewers and developers only read', async (t) => {
  const { a, owner } = await setup(t)
  const { id } = expectStatus(await a.request('POST', TOOLS, { token: owner.token, body: ORDER_TOOL }), 201, 'create')
  const reader = await createKey(a, owner, ['org:read'])
  const manager = await createKey(a, owner, ['org:manage'])
  const agentsOnly = await createKey(a, owner, ['workflow:read', 'workflow:write'])
  t.equal((await a.request('GET', TOOLS, { apiKey: reader.key })).status, 200)
  t.equal((await a.request('GET', `${TOOLS}/${id}`, { apiKey: reader.key })).status, 200)
  const denied = await a.request('POST', TOOLS, { apiKey: reader.key, body: { ...ORDER_TOOL, name: 'by_reader' } })
  t.match(denied, { status: 403, body: { error: { code: 'permission_denied', message: /tools:write/ } } })
  t.equal((await a.request('POST', `${TOOLS}/${id}/test`, { apiKey: reader.key, body: {} })).status, 403, 'a test run acts: it needs tools:write')
  t.equal((await a.request('GET', TOOLS, { apiKey: agentsOnly.key })).status, 403)
  t.equal((await a.request('POST', TOOLS, { apiKey: manager.key, body: { ...ORDER_TOOL, name: 'by_manager' } })).status, 201)
  for (const role of [3, 4]) {
    const member = await addMember(a, owner, role)
    t.equal((await a.request('GET', TOOLS, { token: member.token })).status, 200, `role ${role} reads`)
    t.equal((await a.request('PATCH', `${TOOLS}/${id}`, { token: member.token, body: { description: 'x' } })).status, 403, `role ${role} cannot write`)
    t.equal((await a.request('DELETE', `${TOOLS}/${id}`, { token: member.token })).status, 403, `role ${role} cannot delete`)
  }
  const admin = await addMember(a, owner, 2)
  t.equal((await a.request('PATCH', `${TOOLS}/${id}`, { token: admin.token, body: { description: 'By the admin.' } })).status, 200)
})

t.test('mutations reach the audit trail', async (t) => {
  const { a, owner } = await setup(t)
  const { id } = expectStatus(await a.request('POST', TOOLS, { token: owner.token, body: ORDER_TOOL }), 201, 'create')
  expectStatus(await a.request('PATCH', `${TOOLS}/${id}`, { token: owner.token, body: { description: 'Changed.' } }), 200, 'update')
  expectStatus(await a.request('DELETE', `${TOOLS}/${id}`, { token: owner.token }), 204, 'delete')
  const trail = expectStatus(await a.request('GET', '/api/v1/audit?limit=50', { token: owner.token }), 200, 'audit')
  const items = (trail.items ?? trail) as { action: string; resource_id: string }[]
  t.same(
    items
      .filter((e) => e.resource_id === id)
      .map((e) => e.action)
      .sort(),
    ['tool.created', 'tool.deleted', 'tool.updated'],
  )
})
