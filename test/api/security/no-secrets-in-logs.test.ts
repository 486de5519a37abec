import t from 'tap'
import { mailedToken, startTestApp } from '../../helpers/app.js'

t.test('no password, token, API key or emailed token reaches a log line', async (t) => {
  // trace: the most verbose level, so nothing hides below the configured threshold.
  const a = await startTestApp({ env: { OZAN_LOG_LEVEL: 'trace' } })
  t.teardown(() => a.close())
  const secrets = new Set<string>()
  const keep = (...values: string[]) => values.forEach((v) => secrets.add(v))
  const email = 'logs@example.com'
  const password = 'first secret passphrase'
  const wrongPassword = 'wrong secret passphrase'
  const newPassword = 'second secret passphrase'
  const rejectedPassword = 'rejected secret passphrase'
  keep(password, wrongPassword, newPassword, rejectedPassword)

  const reg = await a.register(email, password)
  keep(reg.access_token, reg.refresh_token)
  const verifyToken = mailedToken(a, email, 'verify_email')
  keep(verifyToken)
  const verified = await a.request('POST', '/api/v1/auth/verify-email', { body: { token: verifyToken } })
  keep(verified.body.access_token, verified.body.refresh_token)

  const login = await a.request('POST', '/api/v1/auth/login', { body: { email, password } })
  keep(login.body.access_token, login.body.refresh_token)
  t.equal((await a.request('POST', '/api/v1/auth/login', { body: { email, password: wrongPassword } })).status, 401)
  // A rejected body is answered with a 422 that must not carry the password into a log either.
  const invalid = await a.request('POST', '/api/v1/auth/register', { body: { email: 'not-an-email', password: rejectedPassword, name: 'x' } })
  t.equal(invalid.status, 422)

  const refreshed = await a.request('POST', '/api/v1/auth/refresh', { body: { refresh_token: login.body.refresh_token } })
  keep(refreshed.body.access_token, refreshed.body.refresh_token)
  t.equal((await a.request('POST', '/api/v1/auth/refresh', { body: { refresh_token: login.body.refresh_token } })).status, 401)

  const created = await a.request('POST', '/api/v1/api-keys', { token: reg.access_token, body: { name: 'logged?' } })
  const key: string = created.body.key
  keep(key, key.slice(created.body.prefix.length))
  t.equal((await a.request('GET', '/api/v1/auth/me', { apiKey: key })).status, 200)
  t.equal((await a.request('GET', '/api/v1/auth/me', { token: key })).status, 401)
  // Secrets in a query string are not part of the API, but clients do send them.
  t.equal((await a.request('GET', `/api/v1/auth/me?api_key=${key}&access_token=${reg.access_token}`)).status, 401)

  await a.request('POST', '/api/v1/auth/forgot-password', { body: { email } })
  const resetToken = mailedToken(a, email, 'reset_password')
  keep(resetToken)
  const reset = await a.request('POST', '/api/v1/auth/reset-password', { body: { token: resetToken, password: newPassword } })
  t.equal(reset.status, 200)
  keep(reset.body.access_token, reset.body.refresh_token)
  t.equal((await a.request('POST', '/api/v1/auth/login', { body: { email, password: newPassword } })).status, 200)

  // JWT signatures alone are enough to matter if a line ever holds a truncated token.
  for (const s of [...secrets]) if (s.split('.').length === 3) keep(s.split('.')[2]!)
  t.ok(secrets.size >= 20, `collected ${secrets.size} secrets`)
  t.ok(
    a.logs.some((l) => l.includes('"login_failed"')),
    'the failed sign-in was logged',
  )
  t.ok(
    a.logs.some((l) => l.includes('"refresh_reuse"')),
    'the refresh reuse was logged',
  )
  t.ok(
    a.logs.some((l) => l.includes('outbox')),
    'the waiting mail was logged',
  )
  t.ok(a.logs.filter((l) => l.includes('"msg":"request"')).length >= 14, 'every request was logged')

  for (const secret of secrets) {
    const leaks = a.logs.filter((l) => l.includes(secret))
    t.same(leaks, [], `secret of ${secret.length} characters is not logged`)
  }
})
