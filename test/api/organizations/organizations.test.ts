import { randomUUID } from 'node:crypto'
import http from 'node:http'
import t from 'tap'
import { startTestApp, type Reply, type TestApp } from '../../helpers/app.js'

const ORG = '/api/v1/organization'
const ORGS = '/api/v1/organizations'

async function setup(t: { teardown(fn: () => unknown): void }, env?: Record<string, string>) {
  const a = await startTestApp({ env })
  t.teardown(() => a.close())
  return a
}

const apiKeyOf = async (a: TestApp, token: string): Promise<string> => {
  const res = await a.request('POST', '/api/v1/api-keys', { token, body: { name: 'k' } })
  if (res.status !== 201) throw new Error(`api key: ${res.status} ${res.text}`)
  return res.body.key
}

/** The response text with its request id blanked: what "byte-identical but for request_id" compares. */
const sansRequestId = (r: Reply) => r.text.replace(r.body.error.request_id, '<id>')

t.test('GET /organization shows the org the caller acts in, with role, member count and default environment', async (t) => {
  const a = await setup(t)
  const owner = await a.register()
  const res = await a.request('GET', ORG, { token: owner.access_token })
  t.equal(res.status, 200)
  t.match(res.body, { id: owner.user.organization.id, name: owner.user.organization.name, role: 'owner', member_count: 1, default_environment: 'dev' })
  t.ok(Date.parse(res.body.created_at) > 0)

  // A second member shows in the count and sees their own role.
  const other = await a.register()
  a.services.repos.organizations.addMember(owner.user.organization.id, other.user.id, 4, Date.now())
  const switched = await a.request('POST', `${ORGS}/switch`, { token: other.access_token, body: { organization_id: owner.user.organization.id } })
  t.equal(switched.status, 200)
  const seen = await a.request('GET', ORG, { token: switched.body.access_token })
  t.match(seen.body, { id: owner.user.organization.id, role: 'viewer', member_count: 2 })
})

t.test('PATCH /organization renames and changes the default environment; viewers are refused', async (t) => {
  const a = await setup(t)
  const owner = await a.register()
  const token = owner.access_token
  const renamed = await a.request('PATCH', ORG, { token, body: { name: '  Acme  ' } })
  t.equal(renamed.status, 200)
  t.match(renamed.body, { name: 'Acme', default_environment: 'dev' })
  const moved = await a.request('PATCH', ORG, { token, body: { default_environment: 'prod' } })
  t.match(moved.body, { name: 'Acme', default_environment: 'prod' })
  t.match((await a.request('GET', ORG, { token })).body, { name: 'Acme', default_environment: 'prod' })

  for (const body of [{}, { name: '' }, { default_environment: 'qa' }]) {
    const bad = await a.request('PATCH', ORG, { token, body })
    t.equal(bad.status, 422, JSON.stringify(body))
    t.ok(Array.isArray(bad.body.detail))
  }

  a.db.prepare('UPDATE org_members SET role_id = 4 WHERE user_id = ?').run(owner.user.id)
  const denied = await a.request('PATCH', ORG, { token, body: { name: 'Hijacked' } })
  t.equal(denied.status, 403)
  t.equal(denied.body.error.code, 'permission_denied')
  t.equal(a.services.repos.organizations.get(owner.user.organization.id)!.name, 'Acme', 'nothing changed')
})

t.test('GET /organizations lists every membership and marks the current one', async (t) => {
  const a = await setup(t)
  const owner = await a.register()
  const first = owner.user.organization.id
  const created = await a.request('POST', ORGS, { token: owner.access_token, body: { name: 'Second' } })
  t.equal(created.status, 201)
  const second = created.body.organization.id

  const fromFirst = await a.request('GET', ORGS, { token: owner.access_token })
  t.equal(fromFirst.status, 200)
  const byId = <T extends { id: string }>(rows: T[]) => [...rows].sort((x, y) => x.id.localeCompare(y.id))
  t.same(
    byId(fromFirst.body),
    byId([
      { id: first, name: owner.user.organization.name, role: 'owner', current: true },
      { id: second, name: 'Second', role: 'owner', current: false },
    ]),
  )
  const fromSecond = await a.request('GET', ORGS, { token: created.body.access_token })
  t.same(
    fromSecond.body.filter((o: { current: boolean }) => o.current).map((o: { id: string }) => o.id),
    [second],
  )

  // Someone else's organization is not listed.
  const stranger = await a.register()
  const theirs = await a.request('GET', ORGS, { token: stranger.access_token })
  t.same(
    theirs.body.map((o: { id: string }) => o.id),
    [stranger.user.organization.id],
  )
})

t.test('POST /organizations with a session: 201, and the new tokens act in the new organization', async (t) => {
  const a = await setup(t)
  const owner = await a.register()
  const res = await a.request('POST', ORGS, { token: owner.access_token, body: { name: 'Fresh' } })
  t.equal(res.status, 201)
  t.equal(res.body.token_type, 'bearer')
  const orgId: string = res.body.organization.id
  t.not(orgId, owner.user.organization.id)
  t.match(res.body.organization, { name: 'Fresh', role: 'owner', member_count: 1, default_environment: 'dev' })
  t.match(res.body.user, { id: owner.user.id, organization: { id: orgId, name: 'Fresh' }, role: 'owner' })

  const org = await a.request('GET', ORG, { token: res.body.access_token })
  t.match(org.body, { id: orgId, name: 'Fresh', role: 'owner' })
  const projects = await a.request('GET', '/api/v1/projects', { token: res.body.access_token })
  t.equal(projects.body.length, 1)
  t.match(projects.body[0], { is_default: true })
  t.same(
    projects.body[0].environments.map((e: { slug: string }) => e.slug),
    ['dev', 'staging', 'prod'],
  )

  // The old token still acts in the old organization.
  t.equal((await a.request('GET', ORG, { token: owner.access_token })).body.id, owner.user.organization.id)
  // The refresh token of the new session stays in the new organization.
  const refreshed = await a.request('POST', '/api/v1/auth/refresh', { body: { refresh_token: res.body.refresh_token } })
  t.equal(refreshed.status, 200)
  t.equal(refreshed.body.user.organization.id, orgId)
})

t.test('POST /organizations and /organizations/switch refuse an API key with 403 user_session_required', async (t) => {
  const a = await setup(t)
  const owner = await a.register()
  const key = await apiKeyOf(a, owner.access_token)
  const before = a.db.prepare('SELECT COUNT(*) AS n FROM organizations').get()
  const create = await a.request('POST', ORGS, { apiKey: key, body: { name: 'Via key' } })
  t.equal(create.status, 403)
  t.equal(create.body.error.code, 'user_session_required')
  t.same(a.db.prepare('SELECT COUNT(*) AS n FROM organizations').get(), before, 'no organization created')
  const sw = await a.request('POST', `${ORGS}/switch`, { apiKey: key, body: { organization_id: owner.user.organization.id } })
  t.equal(sw.status, 403)
  t.equal(sw.body.error.code, 'user_session_required')
})

t.test('POST /organizations/switch binds tokens to a member org; a foreign or unknown org is the same 404', async (t) => {
  const a = await setup(t)
  const owner = await a.register()
  const second = (await a.request('POST', ORGS, { token: owner.access_token, body: { name: 'Two' } })).body.organization.id

  const sw = await a.request('POST', `${ORGS}/switch`, { token: owner.access_token, body: { organization_id: second } })
  t.equal(sw.status, 200)
  t.match(sw.body.organization, { id: second, name: 'Two', role: 'owner' })
  t.equal(sw.body.user.organization.id, second)
  t.equal((await a.request('GET', ORG, { token: sw.body.access_token })).body.id, second)
  const back = await a.request('POST', `${ORGS}/switch`, { token: sw.body.access_token, body: { organization_id: owner.user.organization.id } })
  t.equal((await a.request('GET', ORG, { token: back.body.access_token })).body.id, owner.user.organization.id)

  const stranger = await a.register()
  const foreign = await a.request('POST', `${ORGS}/switch`, { token: owner.access_token, body: { organization_id: stranger.user.organization.id } })
  const unknown = await a.request('POST', `${ORGS}/switch`, { token: owner.access_token, body: { organization_id: randomUUID() } })
  t.equal(foreign.status, 404)
  t.equal(foreign.body.error.code, 'not_found')
  t.not(foreign.body.error.request_id, unknown.body.error.request_id)
  t.equal(sansRequestId(foreign), sansRequestId(unknown), 'a foreign org is indistinguishable from a missing one')

  const invalid = await a.request('POST', `${ORGS}/switch`, { token: owner.access_token, body: { organization_id: 'nope' } })
  t.equal(invalid.status, 422)
  t.same(invalid.body.detail[0].loc, ['body', 'organization_id'])
})

/** GET /regions with a chosen Host header (fetch cannot set Host). */
function regions(a: TestApp, host?: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${a.url}/api/v1/regions`, { headers: host ? { host } : {} }, (res) => {
      let text = ''
      res.on('data', (c) => (text += c))
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }))
    })
    req.on('error', reject)
  })
}

t.test('GET /regions is public and lists OZAN_REGIONS (default: local)', async (t) => {
  const a = await setup(t, { OZAN_PUBLIC_URL: 'https://ozan.example.com/' })
  const res = await regions(a, 'ozan.example.com')
  t.equal(res.status, 200)
  // A region without its own URL is served at this deployment's public URL.
  t.same(res.body, [{ id: 'local', name: 'Local', api_url: 'https://ozan.example.com', current: true }])
  t.same((await regions(a)).body, res.body)
})

t.test('GET /regions lists configured regions and marks the one serving the request host', async (t) => {
  const a = await setup(t, { OZAN_REGIONS: 'eu=Europe,us=United States=https://us.example.com', OZAN_PUBLIC_URL: 'https://eu.example.com' })
  const eu = { id: 'eu', name: 'Europe', api_url: 'https://eu.example.com' }
  const us = { id: 'us', name: 'United States', api_url: 'https://us.example.com' }
  t.same((await regions(a, 'us.example.com')).body, [
    { ...eu, current: false },
    { ...us, current: true },
  ])
  t.same(
    (await regions(a, 'US.Example.com')).body,
    [
      { ...eu, current: false },
      { ...us, current: true },
    ],
    'host names ignore case',
  )
  t.same((await regions(a, 'eu.example.com')).body, [
    { ...eu, current: true },
    { ...us, current: false },
  ])
  // A host that is none of them (e.g. a direct address) falls back to the first region.
  t.same((await regions(a)).body, [
    { ...eu, current: true },
    { ...us, current: false },
  ])
})
