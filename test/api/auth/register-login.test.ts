import t from 'tap'
import type { ManualClock } from '../../../core/index.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'

const PASSWORD = 'correct horse battery'

function withoutRequestId(body: { error: Record<string, unknown> }) {
  const { request_id: _ignored, ...rest } = body.error
  return rest
}

async function app(t: { teardown(fn: () => unknown): void }, env?: Record<string, string>): Promise<TestApp> {
  const a = await startTestApp({ env })
  t.teardown(() => a.close())
  return a
}

t.test('register answers 201 with a TokenResponse', async (t) => {
  const a = await app(t)
  const res = await a.request('POST', '/api/v1/auth/register', {
    body: { email: 'ada@example.com', password: PASSWORD, name: 'Ada', organization_name: 'Analytical' },
  })
  t.equal(res.status, 201)
  t.equal(res.body.token_type, 'bearer')
  t.equal(res.body.expires_in, 900)
  t.type(res.body.access_token, 'string')
  t.type(res.body.refresh_token, 'string')
  t.match(res.body.user, { email: 'ada@example.com', name: 'Ada', email_verified: false, role: 'owner', auth_method: 'session' })
  t.equal(res.body.user.organization.name, 'Analytical')

  const me = await a.request('GET', '/api/v1/auth/me', { token: res.body.access_token })
  t.equal(me.status, 200)
  t.equal(me.body.id, res.body.user.id)
})

t.test('register creates an organization, a default project with three environments, and an owner membership', async (t) => {
  const a = await app(t)
  const tokens = await a.register('grace@example.com')
  const userId: string = tokens.user.id
  const orgId: string = tokens.user.organization.id

  const orgs = a.db.prepare('SELECT id, created_by FROM organizations WHERE created_by = ?').all(userId)
  t.same(orgs, [{ id: orgId, created_by: userId }])
  const projects = a.db.prepare('SELECT id, is_default FROM projects WHERE organization_id = ?').all(orgId) as { id: string; is_default: number }[]
  t.equal(projects.length, 1)
  t.equal(projects[0]!.is_default, 1)
  const envs = a.db.prepare('SELECT slug FROM environments WHERE project_id = ? ORDER BY slug').all(projects[0]!.id)
  t.same(envs, [{ slug: 'dev' }, { slug: 'prod' }, { slug: 'staging' }])
  const members = a.db.prepare('SELECT user_id, role_id FROM org_members WHERE organization_id = ?').all(orgId)
  t.same(members, [{ user_id: userId, role_id: 1 }])
})

t.test('a second registration of an email, in any letter case, is 409 email_taken', async (t) => {
  const a = await app(t)
  await a.register('taken@example.com')
  for (const email of ['taken@example.com', 'TAKEN@Example.com']) {
    const res = await a.request('POST', '/api/v1/auth/register', { body: { email, password: PASSWORD, name: 'X' } })
    t.equal(res.status, 409, email)
    t.equal(res.body.error.code, 'email_taken')
  }
  t.equal((a.db.prepare('SELECT count(*) AS n FROM users').get() as { n: number }).n, 1)
})

t.test('login with the right password returns a working token pair', async (t) => {
  const a = await app(t)
  const reg = await a.register('lin@example.com')
  const res = await a.request('POST', '/api/v1/auth/login', { body: { email: 'lin@example.com', password: PASSWORD } })
  t.equal(res.status, 200)
  t.equal(res.body.user.id, reg.user.id)
  t.not(res.body.refresh_token, reg.refresh_token)
  const me = await a.request('GET', '/api/v1/auth/me', { token: res.body.access_token })
  t.equal(me.status, 200)
  t.equal(me.body.organization.id, reg.user.organization.id)
})

t.test('a wrong password and an unknown email give the same 401 invalid_credentials', async (t) => {
  const a = await app(t)
  await a.register('known@example.com')
  const wrong = await a.request('POST', '/api/v1/auth/login', { body: { email: 'known@example.com', password: 'not the password' } })
  const unknown = await a.request('POST', '/api/v1/auth/login', { body: { email: 'nobody@example.com', password: 'not the password' } })
  t.equal(wrong.status, 401)
  t.equal(unknown.status, 401)
  t.equal(wrong.body.error.code, 'invalid_credentials')
  t.same(withoutRequestId(wrong.body), withoutRequestId(unknown.body))
  t.not(wrong.body.error.request_id, unknown.body.error.request_id)
})

t.test('failed logins are throttled per account', async (t) => {
  const a = await app(t, { OZAN_LOGIN_ACCOUNT_BURST: '3', OZAN_LOGIN_ACCOUNT_REFILL_PER_MIN: '1', OZAN_LOGIN_ADDRESS_BURST: '1000' })
  await a.register('target@example.com')
  await a.register('bystander@example.com')
  const login = (email: string, password: string) => a.request('POST', '/api/v1/auth/login', { body: { email, password } })

  for (let i = 0; i < 3; i++) t.equal((await login('target@example.com', 'wrong password')).status, 401)
  const limited = await login('target@example.com', 'wrong password')
  t.equal(limited.status, 429)
  t.equal(limited.body.error.code, 'rate_limited')
  t.equal(limited.headers.get('retry-after'), '60')
  // A throttled account refuses even the right password, or throttling would be an oracle.
  t.equal((await login('TARGET@example.com', PASSWORD)).status, 429, 'letter case does not dodge the limit')
  t.equal((await login('bystander@example.com', PASSWORD)).status, 200, 'other accounts are unaffected')

  ;(a.clock as ManualClock).advance(30_000)
  const halfway = await login('target@example.com', PASSWORD)
  t.equal(halfway.status, 429)
  t.equal(halfway.headers.get('retry-after'), '30')

  ;(a.clock as ManualClock).advance(30_000)
  t.equal((await login('target@example.com', PASSWORD)).status, 200, 'one token has refilled')
})

t.test('failed logins are throttled per client address across accounts', async (t) => {
  const a = await app(t, { OZAN_LOGIN_ADDRESS_BURST: '3', OZAN_LOGIN_ADDRESS_REFILL_PER_MIN: '2', OZAN_LOGIN_ACCOUNT_BURST: '1000' })
  await a.register('real@example.com')
  const login = (email: string, password: string) => a.request('POST', '/api/v1/auth/login', { body: { email, password } })

  for (let i = 0; i < 3; i++) t.equal((await login(`guess${i}@example.com`, 'wrong password')).status, 401)
  const limited = await login('guess9@example.com', 'wrong password')
  t.equal(limited.status, 429)
  t.equal(limited.body.error.code, 'rate_limited')
  t.equal(limited.headers.get('retry-after'), '30')
  t.equal((await login('real@example.com', PASSWORD)).status, 429, 'the address is throttled for every account')

  ;(a.clock as ManualClock).advance(30_000)
  t.equal((await login('real@example.com', PASSWORD)).status, 200)
  t.equal((await login('guess10@example.com', 'wrong password')).status, 401, 'the refilled token is spent by a failure')
  t.equal((await login('guess11@example.com', 'wrong password')).status, 429)
})

t.test('concurrent failed logins cannot outrun the per-account limit', async (t) => {
  const a = await app(t, { OZAN_LOGIN_ACCOUNT_BURST: '3', OZAN_LOGIN_ACCOUNT_REFILL_PER_MIN: '1', OZAN_LOGIN_ADDRESS_BURST: '1000' })
  await a.register('parallel@example.com')
  // Password checks take tens of milliseconds; a limit consulted only before them lets every
  // request of a burst through.
  const replies = await Promise.all(
    Array.from({ length: 12 }, () => a.request('POST', '/api/v1/auth/login', { body: { email: 'parallel@example.com', password: 'wrong password' } })),
  )
  const statuses = replies.map((r) => r.status).sort()
  t.same(statuses, [...Array(3).fill(401), ...Array(9).fill(429)])
  const ok = await a.request('POST', '/api/v1/auth/login', { body: { email: 'parallel@example.com', password: PASSWORD } })
  t.equal(ok.status, 429, 'the account stays throttled')
})

t.test('successful logins do not use up the allowance', async (t) => {
  const a = await app(t, {
    OZAN_LOGIN_ACCOUNT_BURST: '2',
    OZAN_LOGIN_ACCOUNT_REFILL_PER_MIN: '1',
    OZAN_LOGIN_ADDRESS_BURST: '2',
    OZAN_LOGIN_ADDRESS_REFILL_PER_MIN: '1',
  })
  await a.register('steady@example.com')
  for (let i = 0; i < 5; i++) {
    const res = await a.request('POST', '/api/v1/auth/login', { body: { email: 'steady@example.com', password: PASSWORD } })
    t.equal(res.status, 200, `login ${i + 1}`)
  }
})
