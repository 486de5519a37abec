import t from 'tap'
import type { ManualClock } from '../../../core/index.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'

const PASSWORD = 'correct horse battery'

async function app(t: { teardown(fn: () => unknown): void }): Promise<TestApp> {
  const a = await startTestApp()
  t.teardown(() => a.close())
  return a
}

const me = (a: TestApp, token: string) => a.request('GET', '/api/v1/auth/me', { token })
const refresh = (a: TestApp, refreshToken: string) => a.request('POST', '/api/v1/auth/refresh', { body: { refresh_token: refreshToken } })
const login = (a: TestApp, email: string) => a.request('POST', '/api/v1/auth/login', { body: { email, password: PASSWORD } })

t.test('GET /auth/me answers for a bearer access token', async (t) => {
  const a = await app(t)
  const reg = await a.register('me@example.com')
  const res = await me(a, reg.access_token)
  t.equal(res.status, 200)
  t.match(res.body, { id: reg.user.id, email: 'me@example.com', role: 'owner', auth_method: 'session' })
  t.equal(res.body.organization.id, reg.user.organization.id)

  const none = await a.request('GET', '/api/v1/auth/me')
  t.equal(none.status, 401)
  t.equal(none.body.error.code, 'authentication_required')
  t.equal((await me(a, 'not.a.jwt')).status, 401)
  const tampered = reg.access_token.slice(0, -4) + (reg.access_token.endsWith('AAAA') ? 'BBBB' : 'AAAA')
  t.equal((await me(a, tampered)).status, 401, 'a token with a changed signature is refused')
})

t.test('an access token stops working when it expires', async (t) => {
  const a = await app(t)
  const reg = await a.register('expiry@example.com')
  const clock = a.clock as ManualClock
  clock.advance(899_000)
  t.equal((await me(a, reg.access_token)).status, 200, 'still valid just before expires_in')
  clock.advance(1_000)
  const expired = await me(a, reg.access_token)
  t.equal(expired.status, 401)
  t.equal(expired.body.error.code, 'authentication_required')

  const renewed = await refresh(a, reg.refresh_token)
  t.equal(renewed.status, 200, 'the refresh token outlives the access token')
  t.equal((await me(a, renewed.body.access_token)).status, 200)
})

t.test('refresh rotates: each call returns a new working pair', async (t) => {
  const a = await app(t)
  const reg = await a.register('rotate@example.com')
  ;(a.clock as ManualClock).advance(1_000)
  const second = await refresh(a, reg.refresh_token)
  t.equal(second.status, 200)
  t.equal(second.body.token_type, 'bearer')
  t.not(second.body.refresh_token, reg.refresh_token)
  t.not(second.body.access_token, reg.access_token)
  t.equal(second.body.user.id, reg.user.id)
  ;(a.clock as ManualClock).advance(1_000)
  const third = await refresh(a, second.body.refresh_token)
  t.equal(third.status, 200)
  t.not(third.body.refresh_token, second.body.refresh_token)
  t.equal((await me(a, third.body.access_token)).status, 200)
})

t.test('reusing a spent refresh token ends the whole session', async (t) => {
  const a = await app(t)
  const reg = await a.register('reuse@example.com')
  const other = await login(a, 'reuse@example.com')
  ;(a.clock as ManualClock).advance(1_000)
  const second = await refresh(a, reg.refresh_token)
  t.equal(second.status, 200)

  const replay = await refresh(a, reg.refresh_token)
  t.equal(replay.status, 401)
  t.equal(replay.body.error.code, 'authentication_required')

  t.equal((await refresh(a, second.body.refresh_token)).status, 401, 'the newest refresh token of the family is dead')
  t.equal((await me(a, second.body.access_token)).status, 401, "the family's access token is dead")
  t.equal((await me(a, reg.access_token)).status, 401)
  const row = a.db.prepare('SELECT revoked_reason FROM auth_sessions WHERE user_id = ? AND revoked_at IS NOT NULL').all(reg.user.id)
  t.same(row, [{ revoked_reason: 'refresh_token_reuse' }])

  t.equal((await me(a, other.body.access_token)).status, 200, 'another session of the same user lives on')
  t.equal((await refresh(a, other.body.refresh_token)).status, 200)
})

t.test('an unknown refresh token is 401', async (t) => {
  const a = await app(t)
  const res = await refresh(a, 'x'.repeat(43))
  t.equal(res.status, 401)
  t.equal(res.body.error.code, 'authentication_required')
})

t.test('a refresh token stops working when its session expires', async (t) => {
  const a = await app(t)
  const reg = await a.register('old@example.com')
  ;(a.clock as ManualClock).advance(30 * 86_400_000)
  t.equal((await refresh(a, reg.refresh_token)).status, 401)
})

t.test('logout ends the session: its access and refresh tokens stop working', async (t) => {
  const a = await app(t)
  const reg = await a.register('bye@example.com')
  const other = await login(a, 'bye@example.com')
  const out = await a.request('POST', '/api/v1/auth/logout', { token: reg.access_token })
  t.equal(out.status, 204)
  t.equal(out.text, '')
  t.equal((await me(a, reg.access_token)).status, 401)
  t.equal((await refresh(a, reg.refresh_token)).status, 401)
  t.equal((await me(a, other.body.access_token)).status, 200, 'only the session that logged out ends')

  t.equal((await a.request('POST', '/api/v1/auth/logout')).status, 401)
})

t.test('logout with an API key is 403 user_session_required', async (t) => {
  const a = await app(t)
  const reg = await a.register('keyed@example.com')
  const key = await a.request('POST', '/api/v1/api-keys', { token: reg.access_token, body: { name: 'k' } })
  t.equal(key.status, 201)
  const res = await a.request('POST', '/api/v1/auth/logout', { apiKey: key.body.key })
  t.equal(res.status, 403)
  t.equal(res.body.error.code, 'user_session_required')
})
