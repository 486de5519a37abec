// SIP trunks (issue #21 item 2): CRUD in the request's environment, the password write-only and
// sealed, addresses validated and guarded, audited without secrets, org:read / org:manage.
import t, { type Test } from 'tap'
import { addMember, createKey, expectStatus, newOwner } from '../../helpers/tenancy-fixtures.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'

const TRUNKS = '/api/v1/sip-trunks'
const PUBLIC_HOST = '93.184.216.34'

async function app(t: Test, env: Record<string, string> = {}): Promise<TestApp> {
  const a = await startTestApp({ env })
  t.teardown(() => a.close())
  return a
}

t.test('a trunk is created with defaults, read back without its password, changed and deleted', async (t) => {
  const a = await app(t)
  const owner = await newOwner(a)
  const created = await a.request('POST', TRUNKS, {
    token: owner.token,
    body: {
      name: 'Carrier',
      host: PUBLIC_HOST,
      username: '902120000000',
      password: 'hunter2-very-secret',
      register: true,
      allowed_sources: ['198.51.100.0/24'],
    },
  })
  t.equal(created.status, 201, created.text)
  const trunk = created.body
  t.match(trunk, {
    name: 'Carrier',
    host: PUBLIC_HOST,
    port: 5060,
    transport: 'udp',
    outbound_proxy: null,
    domain: null,
    username: '902120000000',
    auth_username: null,
    password_set: true,
    register: true,
    register_expires_s: 600,
    allowed_sources: ['198.51.100.0/24'],
    registration: { state: 'unregistered', error: null, changed_at: null, registered_until: null },
  })
  t.notOk('password' in trunk, 'the password is never returned')
  t.notMatch(created.text, 'hunter2', 'not even inside another field')

  const listed = expectStatus(await a.request('GET', TRUNKS, { token: owner.token }), 200, 'list')
  t.same(
    listed.map((x: { id: string }) => x.id),
    [trunk.id],
  )
  t.same(expectStatus(await a.request('GET', `${TRUNKS}/${trunk.id}`, { token: owner.token }), 200, 'get'), trunk)

  const patched = await a.request('PATCH', `${TRUNKS}/${trunk.id}`, {
    token: owner.token,
    body: { port: 5080, transport: 'tcp', password: null, register: false },
  })
  t.equal(patched.status, 200, patched.text)
  t.match(patched.body, { port: 5080, transport: 'tcp', password_set: false, register: false, name: 'Carrier', username: '902120000000' })
  const row = a.services.repos.sipTrunks.byId(trunk.id)!
  t.equal(row.password_sealed, null, 'password: null removes the sealed value')

  t.equal((await a.request('DELETE', `${TRUNKS}/${trunk.id}`, { token: owner.token })).status, 204)
  t.equal((await a.request('GET', `${TRUNKS}/${trunk.id}`, { token: owner.token })).status, 404)
  t.equal((await a.request('DELETE', `${TRUNKS}/${trunk.id}`, { token: owner.token })).status, 404, 'a second delete finds nothing')
})

t.test('the password is sealed at rest, bound to its trunk, and opens for the SIP service', async (t) => {
  const a = await app(t)
  const owner = await newOwner(a)
  const one = expectStatus(
    await a.request('POST', TRUNKS, { token: owner.token, body: { name: 'A', host: PUBLIC_HOST, password: 'pw-one-1234567' } }),
    201,
    'a',
  )
  const two = expectStatus(
    await a.request('POST', TRUNKS, { token: owner.token, body: { name: 'B', host: PUBLIC_HOST, password: 'pw-two-7654321' } }),
    201,
    'b',
  )
  const raw = a.db.prepare('SELECT * FROM sip_trunks').all() as Record<string, unknown>[]
  for (const r of raw) t.notOk(JSON.stringify(r).includes('pw-one') || Buffer.from(r.password_sealed as Buffer).includes('pw-'), 'no clear password in the row')
  const rowOne = a.services.repos.sipTrunks.byId(one.id)!
  const rowTwo = a.services.repos.sipTrunks.byId(two.id)!
  t.equal(a.services.trunkPasswords.open(rowOne), 'pw-one-1234567')
  t.throws(
    () => a.services.trunkPasswords.open({ ...rowTwo, password_sealed: rowOne.password_sealed, key_id: rowOne.key_id }),
    /authentication failed/,
    'a sealed password moved to another trunk does not open',
  )
  t.throws(() => a.services.trunkPasswords.open({ ...rowOne, organization_id: 'another-org' }), /authentication failed/)
})

t.test('bad input is answered 422 at the field', async (t) => {
  const a = await app(t)
  const owner = await newOwner(a)
  const cases: [Record<string, unknown>, (string | number)[]][] = [
    [{ host: 'sip:carrier.example.com' }, ['body', 'host']],
    [{ host: 'carrier.example.com:5060' }, ['body', 'host']],
    [{ host: 'nodots' }, ['body', 'host']],
    [{ host: `${'a'.repeat(64)}.example.com` }, ['body', 'host']],
    [{ port: 0 }, ['body', 'port']],
    [{ port: 65_536 }, ['body', 'port']],
    [{ transport: 'tls' }, ['body', 'transport']],
    [{ outbound_proxy: 'proxy.example.com:99999' }, ['body', 'outbound_proxy']],
    [{ username: 'has space' }, ['body', 'username']],
    [{ username: 'x'.repeat(65) }, ['body', 'username']],
    [{ password: 'line\r\nbreak' }, ['body', 'password']],
    [{ password: 'p'.repeat(257) }, ['body', 'password']],
    [{ register: true }, ['body', 'username']],
    [{ register_expires_s: 59 }, ['body', 'register_expires_s']],
    [{ allowed_sources: ['10.0.0.0/33'] }, ['body', 'allowed_sources', 0]],
    [{ allowed_sources: ['example.com'] }, ['body', 'allowed_sources', 0]],
    [{ allowed_sources: Array.from({ length: 33 }, (_, i) => `198.51.100.${i}`) }, ['body', 'allowed_sources']],
    [{ name: '' }, ['body', 'name']],
  ]
  for (const [patch, loc] of cases) {
    const res = await a.request('POST', TRUNKS, { token: owner.token, body: { name: 'T', host: PUBLIC_HOST, ...patch } })
    t.equal(res.status, 422, `${JSON.stringify(patch).slice(0, 80)} → 422`)
    t.ok(
      res.body.detail?.some((d: { loc: unknown[] }) => JSON.stringify(d.loc) === JSON.stringify(loc)),
      `at ${loc.join('.')}: ${res.text.slice(0, 200)}`,
    )
  }
  const secret = await a.request('POST', TRUNKS, { token: owner.token, body: { name: 'T', host: PUBLIC_HOST, password: 'p'.repeat(257) } })
  t.notMatch(secret.text, 'pppppppp', 'a refused password is not echoed')
  t.equal(
    a.services.repos.sipTrunks.list({ organizationId: owner.organizationId, environmentId: a.services.repos.sipTrunks.all()[0]?.environment_id ?? '' }).length,
    0,
    'nothing stored',
  )
  // A PATCH that turns registration on without a username is refused too.
  const trunk = expectStatus(await a.request('POST', TRUNKS, { token: owner.token, body: { name: 'T', host: PUBLIC_HOST } }), 201, 'create')
  const on = await a.request('PATCH', `${TRUNKS}/${trunk.id}`, { token: owner.token, body: { register: true } })
  t.equal(on.status, 422)
  t.same(on.body.detail[0].loc, ['body', 'register'])
})

t.test('the carrier address passes the outbound guard when stored', async (t) => {
  const a = await app(t)
  const owner = await newOwner(a)
  for (const host of ['127.0.0.1', '10.1.2.3', '169.254.169.254', '::1']) {
    const res = await a.request('POST', TRUNKS, { token: owner.token, body: { name: 'T', host } })
    t.equal(res.status, 422, `${host} is refused`)
    t.match(res.body.detail[0], { type: 'destination_refused', loc: ['body', 'host'] })
  }
  const proxy = await a.request('POST', TRUNKS, { token: owner.token, body: { name: 'T', host: PUBLIC_HOST, outbound_proxy: '127.0.0.1:5060' } })
  t.match(proxy.body.detail[0], { type: 'destination_refused', loc: ['body', 'outbound_proxy'] })
  const trunk = expectStatus(await a.request('POST', TRUNKS, { token: owner.token, body: { name: 'T', host: PUBLIC_HOST } }), 201, 'public')
  const moved = await a.request('PATCH', `${TRUNKS}/${trunk.id}`, { token: owner.token, body: { host: '192.168.1.1' } })
  t.equal(moved.status, 422, 'a PATCH is guarded too')

  const allowed = await app(t, { OZAN_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8' })
  const o2 = await newOwner(allowed)
  const local = await allowed.request('POST', TRUNKS, { token: o2.token, body: { name: 'Local kamailio', host: '127.0.0.1' } })
  t.equal(local.status, 201, 'a range the operator allows is accepted (a carrier on the local network)')
})

t.test('a trunk with numbers cannot be deleted; the limit per environment holds', async (t) => {
  const a = await app(t)
  const owner = await newOwner(a)
  const trunk = expectStatus(await a.request('POST', TRUNKS, { token: owner.token, body: { name: 'T', host: PUBLIC_HOST } }), 201, 'create')
  expectStatus(await a.request('POST', '/api/v1/phone-numbers', { token: owner.token, body: { number: '+902120000001', trunk_id: trunk.id } }), 201, 'number')
  const refused = await a.request('DELETE', `${TRUNKS}/${trunk.id}`, { token: owner.token })
  t.equal(refused.status, 409)
  t.equal(refused.body.error.code, 'trunk_in_use')
  t.match(refused.body.error.message, /1 phone number still use/)
  t.equal((await a.request('GET', `${TRUNKS}/${trunk.id}`, { token: owner.token })).status, 200, 'still there')

  for (let i = 1; i < 50; i++)
    expectStatus(await a.request('POST', TRUNKS, { token: owner.token, body: { name: `T${i}`, host: PUBLIC_HOST } }), 201, `trunk ${i}`)
  const over = await a.request('POST', TRUNKS, { token: owner.token, body: { name: 'T51', host: PUBLIC_HOST } })
  t.equal(over.status, 409)
  t.equal(over.body.error.code, 'sip_trunk_limit')
  const prod = await a.request('POST', TRUNKS, { token: owner.token, headers: { 'x-environment-id': 'prod' }, body: { name: 'P', host: PUBLIC_HOST } })
  t.equal(prod.status, 201, 'the limit is per environment')
})

t.test('trunks belong to one environment', async (t) => {
  const a = await app(t)
  const owner = await newOwner(a)
  const dev = expectStatus(await a.request('POST', TRUNKS, { token: owner.token, body: { name: 'Dev', host: PUBLIC_HOST } }), 201, 'dev')
  const prodHeaders = { 'x-environment-id': 'prod' }
  t.same(expectStatus(await a.request('GET', TRUNKS, { token: owner.token, headers: prodHeaders }), 200, 'prod list'), [])
  t.equal((await a.request('GET', `${TRUNKS}/${dev.id}`, { token: owner.token, headers: prodHeaders })).status, 404)
  t.equal((await a.request('PATCH', `${TRUNKS}/${dev.id}`, { token: owner.token, headers: prodHeaders, body: { name: 'x' } })).status, 404)
  t.equal((await a.request('DELETE', `${TRUNKS}/${dev.id}`, { token: owner.token, headers: prodHeaders })).status, 404)
})

t.test('org:read views, org:manage changes (viewer role, scoped keys)', async (t) => {
  const a = await app(t)
  const owner = await newOwner(a)
  const trunk = expectStatus(await a.request('POST', TRUNKS, { token: owner.token, body: { name: 'T', host: PUBLIC_HOST } }), 201, 'create')
  const viewer = await addMember(a, owner, 4)
  t.equal((await a.request('GET', TRUNKS, { token: viewer.token })).status, 200, 'a viewer lists')
  t.equal((await a.request('POST', TRUNKS, { token: viewer.token, body: { name: 'V', host: PUBLIC_HOST } })).status, 403, 'a viewer cannot create')
  t.equal((await a.request('PATCH', `${TRUNKS}/${trunk.id}`, { token: viewer.token, body: { name: 'V' } })).status, 403)
  t.equal((await a.request('DELETE', `${TRUNKS}/${trunk.id}`, { token: viewer.token })).status, 403)
  const reader = await createKey(a, owner, ['org:read'])
  const manager = await createKey(a, owner, ['org:manage'])
  const other = await createKey(a, owner, ['workflow:read'])
  t.equal((await a.request('GET', TRUNKS, { apiKey: reader.key })).status, 200)
  t.equal((await a.request('POST', TRUNKS, { apiKey: reader.key, body: { name: 'K', host: PUBLIC_HOST } })).status, 403)
  t.equal((await a.request('GET', TRUNKS, { apiKey: other.key })).status, 403, 'workflow:read does not see trunks')
  t.equal((await a.request('POST', TRUNKS, { apiKey: manager.key, body: { name: 'K', host: PUBLIC_HOST } })).status, 201)
})

t.test('changes reach the audit trail with field names, never the password', async (t) => {
  const a = await app(t)
  const owner = await newOwner(a)
  const trunk = expectStatus(
    await a.request('POST', TRUNKS, { token: owner.token, body: { name: 'T', host: PUBLIC_HOST, password: 'audit-secret-pw' } }),
    201,
    'create',
  )
  expectStatus(await a.request('PATCH', `${TRUNKS}/${trunk.id}`, { token: owner.token, body: { password: 'audit-secret-pw2', port: 5070 } }), 200, 'patch')
  expectStatus(await a.request('DELETE', `${TRUNKS}/${trunk.id}`, { token: owner.token }), 204, 'delete')
  const audit = expectStatus(await a.request('GET', '/api/v1/audit?resource_type=sip_trunk', { token: owner.token }), 200, 'audit')
  const items = (audit.items ?? audit) as { action: string; resource_id: string; metadata: Record<string, unknown> | null }[]
  t.same(items.map((i) => i.action).sort(), ['sip_trunk.created', 'sip_trunk.deleted', 'sip_trunk.updated'])
  for (const i of items) t.equal(i.resource_id, trunk.id)
  t.same(items.find((i) => i.action === 'sip_trunk.updated')!.metadata, { fields: ['port', 'password'] })
  t.notMatch(JSON.stringify(audit), 'audit-secret', 'no password in the trail')
  t.notOk(
    a.logs.some((l) => l.includes('audit-secret')),
    'nor in any log line',
  )
})
