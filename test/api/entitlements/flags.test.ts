import t from 'tap'
import { startTestApp } from '../../helpers/app.js'
import { addMember, createKey, expectStatus, newOwner } from '../../helpers/tenancy-fixtures.js'
import { E, voiceAgent } from './fixtures.js'

const F = `${E}/flags`

async function scene(t: { teardown(fn: () => unknown): void }) {
  const a = await startTestApp()
  t.teardown(() => a.close())
  return { a, owner: await newOwner(a) }
}

t.test('a new organization lists the product flags at their defaults', async (t) => {
  const { a, owner } = await scene(t)
  t.same(expectStatus(await a.request('GET', F, { token: owner.token }), 200, 'flags'), { web_calls: true })
})

t.test('upsert creates (201), changes (201) and lists a flag; the description is kept unless sent', async (t) => {
  const { a, owner } = await scene(t)
  const created = expectStatus(
    await a.request('POST', F, { token: owner.token, body: { key: 'beta.dashboard', enabled: true, description: 'New UI' } }),
    201,
    'create',
  )
  t.match(created, { key: 'beta.dashboard', enabled: true, description: 'New UI', product: false, updated_by: owner.userId })
  t.equal(created.updated_at, new Date(a.clock.now()).toISOString())
  const changed = expectStatus(await a.request('POST', F, { token: owner.token, body: { key: 'beta.dashboard', enabled: false } }), 201, 'change')
  t.match(changed, { enabled: false, description: 'New UI' })
  const cleared = expectStatus(
    await a.request('POST', F, { token: owner.token, body: { key: 'beta.dashboard', enabled: false, description: null } }),
    201,
    'clear',
  )
  t.equal(cleared.description, null)
  t.same(expectStatus(await a.request('GET', F, { token: owner.token }), 200, 'flags'), { web_calls: true, 'beta.dashboard': false })
})

t.test('toggle flips a flag without a body value, sets it with one, and flips a product flag from its default', async (t) => {
  const { a, owner } = await scene(t)
  await a.request('POST', F, { token: owner.token, body: { key: 'promo', enabled: false } })
  const toggle = (key: string, body: object = {}) => a.request('POST', `${F}/${key}/toggle`, { token: owner.token, body })
  t.equal(expectStatus(await toggle('promo'), 200, 'flip').enabled, true)
  t.equal(expectStatus(await toggle('promo'), 200, 'flip back').enabled, false)
  t.equal(expectStatus(await toggle('promo', { enabled: false }), 200, 'set').enabled, false, 'setting the value it has keeps it')
  const product = expectStatus(await toggle('web_calls'), 200, 'product flag')
  t.match(product, { key: 'web_calls', enabled: false, product: true })
  t.match(product.description, /Browser web calls/, 'a product flag describes itself')
})

t.test('toggling a key the organization never set, and that the product does not read, is 404', async (t) => {
  const { a, owner } = await scene(t)
  const res = await a.request('POST', `${F}/never_set/toggle`, { token: owner.token, body: {} })
  t.equal(res.status, 404)
  t.equal(res.body.error.code, 'not_found')
})

t.test('flags are per organization: one organization never sees or changes another’s', async (t) => {
  const { a, owner } = await scene(t)
  const other = await newOwner(a)
  await a.request('POST', F, { token: owner.token, body: { key: 'mine', enabled: true } })
  await a.request('POST', `${F}/web_calls/toggle`, { token: owner.token, body: { enabled: false } })
  t.same(expectStatus(await a.request('GET', F, { token: other.token }), 200, 'other flags'), { web_calls: true })
  t.equal((await a.request('POST', `${F}/mine/toggle`, { token: other.token, body: {} })).status, 404)
  t.same(expectStatus(await a.request('GET', F, { token: owner.token }), 200, 'own flags'), { web_calls: false, mine: true }, 'unchanged')
})

t.test('changing flags needs org:manage (403 for a developer, a viewer or a key without it); reading them does not', async (t) => {
  const { a, owner } = await scene(t)
  const developer = await addMember(a, owner, 3)
  const viewer = await addMember(a, owner, 4)
  const readKey = await createKey(a, owner, ['org:read'])
  const manageKey = await createKey(a, owner, ['org:manage'])
  for (const [who, auth] of [
    ['developer', { token: developer.token }],
    ['viewer', { token: viewer.token }],
    ['org:read key', { apiKey: readKey.key }],
  ] as const) {
    const upsert = await a.request('POST', F, { ...auth, body: { key: 'x', enabled: true } })
    t.equal(upsert.status, 403, `${who}: upsert 403`)
    t.equal(upsert.body.error.code, 'permission_denied')
    t.equal((await a.request('POST', `${F}/web_calls/toggle`, { ...auth, body: {} })).status, 403, `${who}: toggle 403`)
    t.equal((await a.request('GET', F, auth)).status, 200, `${who}: can read flags`)
  }
  t.equal((await a.request('POST', F, { apiKey: manageKey.key, body: { key: 'x', enabled: true } })).status, 201, 'an org:manage key can')
  t.equal((await a.request('GET', `${E}/plans`, { token: viewer.token })).status, 200, 'a viewer reads the plans')
  t.equal((await a.request('GET', E, { token: viewer.token })).status, 200, 'and the entitlements (billing:read is in org:read)')
  const runKey = await createKey(a, owner, ['workflow:run'])
  t.equal((await a.request('GET', E, { apiKey: runKey.key })).status, 403, 'a key without billing:read cannot read usage')
})

t.test('every change is audited with who, the key, the value and the value before', async (t) => {
  const { a, owner } = await scene(t)
  await a.request('POST', F, { token: owner.token, body: { key: 'audited', enabled: true } })
  await a.request('POST', `${F}/audited/toggle`, { token: owner.token, body: {} })
  const events = expectStatus(await a.request('GET', '/api/v1/audit?action=feature_flag.set', { token: owner.token }), 200, 'audit')
  const flagEvents = events.filter((e: { action: string }) => e.action === 'feature_flag.set')
  t.equal(flagEvents.length, 2)
  const byTime = [...flagEvents].reverse()
  t.match(byTime[0], { resource_type: 'feature_flag', resource_id: 'audited', metadata: { enabled: true, previous: null, created: true } })
  t.match(byTime[1], { resource_id: 'audited', metadata: { enabled: false, previous: true, created: false } })
})

t.test('bad keys and bodies are 422 with detail[]', async (t) => {
  const { a, owner } = await scene(t)
  for (const key of ['', 'Upper', '1starts-with-digit', 'has space', 'ünicode', 'x'.repeat(65), 'semi;colon', '../up']) {
    const res = await a.request('POST', F, { token: owner.token, body: { key, enabled: true } })
    t.equal(res.status, 422, `key ${JSON.stringify(key.slice(0, 20))}`)
    t.match(res.body.detail[0].loc, ['body', 'key'])
  }
  t.equal((await a.request('POST', F, { token: owner.token, body: { key: 'x'.repeat(64), enabled: true } })).status, 201, '64 characters is fine')
  t.equal((await a.request('POST', F, { token: owner.token, body: { key: 'ok', enabled: 'yes' } })).status, 422, 'enabled must be a boolean')
  t.equal((await a.request('POST', F, { token: owner.token, body: { key: 'ok' } })).status, 422, 'enabled is required')
  t.equal((await a.request('POST', F, { token: owner.token, body: { key: 'ok', enabled: true, description: 'd'.repeat(501) } })).status, 422)
  const path = await a.request('POST', `${F}/Not-A-Key/toggle`, { token: owner.token, body: {} })
  t.equal(path.status, 422, 'a bad key in the path')
  t.match(path.body.detail[0].loc, ['path', 'key'])
  t.equal((await a.request('POST', `${F}/web_calls/toggle`, { token: owner.token, body: { enabled: 1 } })).status, 422)
})

t.test('at most 100 stored flags per organization: the 101st is 409 flag_limit, changing one still works', async (t) => {
  const { a, owner } = await scene(t)
  const repo = a.services.repos.entitlements
  for (let i = 0; i < 100; i++)
    repo.upsertFlag({ organizationId: owner.organizationId, key: `f${i}`, enabled: true, description: undefined, updatedBy: null, now: 0 })
  const over = await a.request('POST', F, { token: owner.token, body: { key: 'one_more', enabled: true } })
  t.equal(over.status, 409)
  t.equal(over.body.error.code, 'flag_limit')
  t.equal(
    (await a.request('POST', `${F}/web_calls/toggle`, { token: owner.token, body: {} })).status,
    409,
    'a product flag set for the first time is stored too',
  )
  t.equal((await a.request('POST', F, { token: owner.token, body: { key: 'f7', enabled: false } })).status, 201, 'an existing flag changes')
  t.equal((await a.request('POST', `${F}/f8/toggle`, { token: owner.token, body: {} })).status, 200)
})

t.test('the web_calls flag switches web calls off and on again: 403 feature_disabled while off', async (t) => {
  const { a, owner } = await scene(t)
  const id = await voiceAgent(a, owner)
  const mint = () => a.request('POST', '/api/v1/calls/web-token', { token: owner.token, body: { workflow_uuid: id } })
  const webCall = () => a.request('POST', '/api/v1/calls', { token: owner.token, body: { channel: 'web', workflow_uuid: id } })
  t.equal((await mint()).status, 201, 'on by default')
  await a.request('POST', F, { token: owner.token, body: { key: 'web_calls', enabled: false } })
  const off = await mint()
  t.equal(off.status, 403)
  t.equal(off.body.error.code, 'feature_disabled')
  t.match(off.body.error.message, /feature flag "web_calls"/)
  t.equal((await webCall()).body.error.code, 'feature_disabled', 'POST /calls with channel web too')
  t.equal(
    (await a.request('POST', '/api/v1/calls', { token: owner.token, body: { channel: 'chat', workflow_uuid: id } })).status,
    201,
    'chat is not a web call',
  )
  const other = await newOwner(a)
  const theirs = await voiceAgent(a, other)
  t.equal(
    (await a.request('POST', '/api/v1/calls/web-token', { token: other.token, body: { workflow_uuid: theirs } })).status,
    201,
    'another organization is unaffected',
  )
  await a.request('POST', `${F}/web_calls/toggle`, { token: owner.token, body: {} })
  t.equal((await mint()).status, 201, 'on again')
  t.equal((await webCall()).status, 201)
})
