import t from 'tap'
import type { ManualClock } from '../../../core/index.js'
import { mailedToken, startTestApp, type TestApp } from '../../helpers/app.js'

const PASSWORD = 'correct horse battery'
const NEW_PASSWORD = 'a brand new passphrase'

async function app(t: { teardown(fn: () => unknown): void }): Promise<TestApp> {
  const a = await startTestApp()
  t.teardown(() => a.close())
  return a
}

const mails = (a: TestApp, email: string, kind: string) => a.services.repos.mailOutbox.forRecipient(email).filter((m) => m.kind === kind)
const post = (a: TestApp, path: string, body: unknown) => a.request('POST', `/api/v1/auth/${path}`, { body })
const login = (a: TestApp, email: string, password: string) => post(a, 'login', { email, password })

t.test('verify-email with the mailed token signs in and marks the email verified, once', async (t) => {
  const a = await app(t)
  await a.register('verify@example.com')
  const token = mailedToken(a, 'verify@example.com', 'verify_email')
  const res = await post(a, 'verify-email', { token })
  t.equal(res.status, 200)
  t.equal(res.body.token_type, 'bearer')
  t.equal(res.body.user.email_verified, true)
  const me = await a.request('GET', '/api/v1/auth/me', { token: res.body.access_token })
  t.equal(me.body.email_verified, true)

  const again = await post(a, 'verify-email', { token })
  t.equal(again.status, 400)
  t.equal(again.body.error.code, 'invalid_token')
  t.equal((await post(a, 'verify-email', { token: 'z'.repeat(43) })).status, 400, 'an unknown token')
})

t.test('a verification token expires after 24 hours', async (t) => {
  const a = await app(t)
  await a.register('late@example.com')
  await a.register('intime@example.com')
  const late = mailedToken(a, 'late@example.com', 'verify_email')
  const inTime = mailedToken(a, 'intime@example.com', 'verify_email')
  ;(a.clock as ManualClock).advance(24 * 3_600_000 - 1)
  t.equal((await post(a, 'verify-email', { token: inTime })).status, 200)
  ;(a.clock as ManualClock).advance(2)
  const res = await post(a, 'verify-email', { token: late })
  t.equal(res.status, 400)
  t.equal(res.body.error.code, 'invalid_token')
})

t.test('resend-verification sends a new mail in the asked language', async (t) => {
  const a = await app(t)
  const reg = await a.register('resend@example.com')
  const res = await a.request('POST', '/api/v1/auth/resend-verification?locale=tr', { token: reg.access_token })
  t.equal(res.status, 204)
  const sent = mails(a, 'resend@example.com', 'verify_email')
  t.equal(sent.length, 2)
  t.match(sent[0]!.subject, /Confirm your Ozan email/)
  t.equal(sent[1]!.subject, 'Ozan e-posta adresinizi doğrulayın')
  t.match(sent[1]!.body_text, /bağlantıyı 24 saat içinde/)

  const verified = await post(a, 'verify-email', { token: mailedToken(a, 'resend@example.com', 'verify_email') })
  t.equal(verified.status, 200)
  const after = await a.request('POST', '/api/v1/auth/resend-verification', { token: reg.access_token })
  t.equal(after.status, 204)
  t.equal(mails(a, 'resend@example.com', 'verify_email').length, 2, 'no mail once verified')
})

t.test('resend-verification refuses an unknown locale and an anonymous caller', async (t) => {
  const a = await app(t)
  const reg = await a.register('badlocale@example.com')
  const res = await a.request('POST', '/api/v1/auth/resend-verification?locale=xx', { token: reg.access_token })
  t.equal(res.status, 422)
  t.same(
    res.body.detail.map((d: { loc: unknown }) => d.loc),
    [['query', 'locale']],
  )
  t.equal((await a.request('POST', '/api/v1/auth/resend-verification')).status, 401)
  t.equal(mails(a, 'badlocale@example.com', 'verify_email').length, 1)
})

t.test('forgot-password answers identically for known and unknown emails; only the known one gets mail', async (t) => {
  const a = await app(t)
  await a.register('forgetful@example.com')
  const known = await post(a, 'forgot-password', { email: 'forgetful@example.com' })
  const unknown = await post(a, 'forgot-password', { email: 'stranger@example.com' })
  t.equal(known.status, 204)
  t.equal(unknown.status, 204)
  t.equal(known.text, unknown.text)
  const headers = (h: Headers) => [...h].filter(([name]) => name !== 'x-request-id' && name !== 'date')
  t.same(headers(known.headers), headers(unknown.headers))

  t.equal(mails(a, 'forgetful@example.com', 'reset_password').length, 1)
  t.same(a.services.repos.mailOutbox.forRecipient('stranger@example.com'), [])
  const tokens = a.db.prepare("SELECT count(*) AS n FROM email_tokens WHERE purpose = 'reset_password'").get() as { n: number }
  t.equal(tokens.n, 1)
})

t.test('reset-password sets the new password and ends every other session', async (t) => {
  const a = await app(t)
  const reg = await a.register('reset@example.com')
  const older = await login(a, 'reset@example.com', PASSWORD)
  t.equal(older.status, 200)
  await post(a, 'forgot-password', { email: 'reset@example.com', locale: 'tr' })
  t.equal(mails(a, 'reset@example.com', 'reset_password')[0]!.subject, 'Ozan parolanızı sıfırlayın')
  const token = mailedToken(a, 'reset@example.com', 'reset_password')

  const res = await post(a, 'reset-password', { token, password: NEW_PASSWORD })
  t.equal(res.status, 200)
  t.equal(res.body.user.id, reg.user.id)
  t.equal((await a.request('GET', '/api/v1/auth/me', { token: res.body.access_token })).status, 200)

  for (const session of [reg, older.body]) {
    t.equal((await a.request('GET', '/api/v1/auth/me', { token: session.access_token })).status, 401, 'older access token')
    t.equal((await post(a, 'refresh', { refresh_token: session.refresh_token })).status, 401, 'older refresh token')
  }
  t.equal((await login(a, 'reset@example.com', PASSWORD)).status, 401, 'the old password fails')
  t.equal((await login(a, 'reset@example.com', NEW_PASSWORD)).status, 200, 'the new password works')

  const again = await post(a, 'reset-password', { token, password: 'yet another passphrase' })
  t.equal(again.status, 400)
  t.equal(again.body.error.code, 'invalid_token')
  t.equal((await login(a, 'reset@example.com', NEW_PASSWORD)).status, 200, 'a refused reset changes nothing')
})

t.test('a reset token expires after one hour', async (t) => {
  const a = await app(t)
  await a.register('slow@example.com')
  await post(a, 'forgot-password', { email: 'slow@example.com' })
  const token = mailedToken(a, 'slow@example.com', 'reset_password')
  ;(a.clock as ManualClock).advance(3_600_000 + 1)
  const res = await post(a, 'reset-password', { token, password: NEW_PASSWORD })
  t.equal(res.status, 400)
  t.equal(res.body.error.code, 'invalid_token')
  t.equal((await login(a, 'slow@example.com', PASSWORD)).status, 200, 'the password is unchanged')
})

t.test('forgot-password is throttled per email, known or not, and recovers with time', async (t) => {
  const a = await app(t)
  await a.register('flooded@example.com')
  for (const email of ['flooded@example.com', 'nobody@example.com']) {
    for (let i = 0; i < 5; i++) t.equal((await post(a, 'forgot-password', { email })).status, 204)
    const limited = await post(a, 'forgot-password', { email })
    t.equal(limited.status, 429, `sixth request for ${email} is refused`)
    t.equal(limited.body.error.code, 'rate_limited')
    t.equal(limited.headers.get('retry-after'), '60')
  }
  t.equal(mails(a, 'flooded@example.com', 'reset_password').length, 5, 'the refused request sent nothing')
  ;(a.clock as ManualClock).advance(60_000)
  t.equal((await post(a, 'forgot-password', { email: 'flooded@example.com' })).status, 204)
})

t.test('a made-up reset token is refused before any password hashing', async (t) => {
  const a = await app(t)
  const res = await post(a, 'reset-password', { token: 'x'.repeat(43), password: NEW_PASSWORD })
  t.equal(res.status, 400)
  t.equal(res.body.error.code, 'invalid_token')
})
