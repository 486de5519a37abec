import t, { type Test } from 'tap'
import type { ManualClock } from '../../../core/index.js'
import { mailedToken, startTestApp, type TestApp } from '../../helpers/app.js'

const PASSWORD = 'correct horse battery'
const VICTIM = 'owner@example.com'
const VICTIM_ADDRESS = '198.51.100.7'

/** Behind a trusted proxy, so each request can come from the address the test names. */
async function app(t: Test, env: Record<string, string> = {}): Promise<TestApp> {
  const a = await startTestApp({ env: { OZAN_TRUST_PROXY: 'true', ...env } })
  t.teardown(() => a.close())
  return a
}

function login(a: TestApp, email: string, password: string, address: string) {
  return a.request('POST', '/api/v1/auth/login', { body: { email, password }, headers: { 'x-forwarded-for': address } })
}

/** Registers the victim and signs in once from their usual address, so it is familiar to the account. */
async function victimWithHome(t: Test, a: TestApp) {
  await a.register(VICTIM)
  t.equal((await login(a, VICTIM, PASSWORD, VICTIM_ADDRESS)).status, 200, 'the owner signs in at home')
}

const strangers = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `203.0.113.${from + i + 1}`)

function auditRows(a: TestApp, action: string) {
  return a.db.prepare('SELECT ip, resource_id, metadata FROM audit_events WHERE action = ? ORDER BY id').all(action) as {
    ip: string
    resource_id: string | null
    metadata: string | null
  }[]
}

t.test('the attacker at one address: ten failures, then 429 with Retry-After for that address, right password included', async (t) => {
  const a = await app(t)
  await victimWithHome(t, a)
  const attacker = '203.0.113.66'
  for (let i = 0; i < 10; i++) t.equal((await login(a, VICTIM, `guess ${i}`, attacker)).status, 401, `guess ${i + 1}`)
  const refused = await login(a, VICTIM, 'guess 10', attacker)
  t.equal(refused.status, 429)
  t.equal(refused.body.error.code, 'rate_limited')
  t.equal(refused.headers.get('retry-after'), '30', 'one token back at 2 per minute')
  t.equal((await login(a, VICTIM, PASSWORD, attacker)).status, 429, 'a throttled address gets no oracle: the right password is refused too')

  t.equal((await login(a, VICTIM, PASSWORD, VICTIM_ADDRESS)).status, 200, 'the owner at home is not locked out')

  ;(a.clock as ManualClock).advance(30_000)
  t.equal((await login(a, VICTIM, 'guess 11', attacker)).status, 401, 'a refilled token buys one more guess')
  t.equal((await login(a, VICTIM, 'guess 12', attacker)).status, 429)
})

t.test('the victim: strangers failing from other addresses never make the right password fail at a new address either, below the ceiling', async (t) => {
  const a = await app(t)
  await a.register(VICTIM)
  // Twelve failures from one stranger, and one from each of thirty more.
  for (let i = 0; i < 12; i++) await login(a, VICTIM, `guess ${i}`, '203.0.113.200')
  for (const address of strangers(30)) t.equal((await login(a, VICTIM, 'guess', address)).status, 401)
  t.equal((await login(a, VICTIM, PASSWORD, '192.0.2.10')).status, 200, 'right password from an address that has not failed')
})

t.test("the victim's own wrong tries still count at their address", async (t) => {
  const a = await app(t)
  await victimWithHome(t, a)
  for (let i = 0; i < 10; i++) t.equal((await login(a, VICTIM, 'typo', VICTIM_ADDRESS)).status, 401)
  const refused = await login(a, VICTIM, PASSWORD, VICTIM_ADDRESS)
  t.equal(refused.status, 429, 'a familiar address is no exemption from its own bucket')
  t.equal(refused.headers.get('retry-after'), '30')
})

t.test('guesses spread over many addresses are bounded by the account ceiling; a familiar address still signs in', async (t) => {
  const a = await app(t, { OZAN_LOGIN_ACCOUNT_CEILING_BURST: '20', OZAN_LOGIN_ACCOUNT_CEILING_REFILL_PER_MIN: '2' })
  await victimWithHome(t, a)
  for (const address of strangers(20)) t.equal((await login(a, VICTIM, 'guess', address)).status, 401, address)

  const next = await login(a, VICTIM, 'guess', '203.0.113.250')
  t.equal(next.status, 429, 'a fresh address is refused once the ceiling is spent')
  t.equal(next.headers.get('retry-after'), '30')
  t.equal((await login(a, VICTIM, PASSWORD, '203.0.113.251')).status, 429, 'even with the right password: a fresh address is no proof')

  const home = await login(a, VICTIM, PASSWORD, VICTIM_ADDRESS)
  t.equal(home.status, 200, 'the owner at a familiar address gets through')
  t.ok(
    a.logs.some((l) => l.includes('"login_past_ceiling"')),
    'and that is logged',
  )
  t.equal((await login(a, VICTIM, 'typo', VICTIM_ADDRESS)).status, 401, 'their failures are counted, not refused')

  ;(a.clock as ManualClock).advance(30_000)
  t.equal((await login(a, VICTIM, 'guess', '203.0.113.252')).status, 401, 'the refilled ceiling lets one more stranger guess')
  t.equal((await login(a, VICTIM, 'guess', '203.0.113.253')).status, 429)
})

t.test('an owner refused at an unfamiliar address while the ceiling is spent gets in by a password reset, and that address becomes familiar', async (t) => {
  const a = await app(t, { OZAN_LOGIN_ACCOUNT_CEILING_BURST: '5' })
  await a.register(VICTIM)
  for (const address of strangers(5)) await login(a, VICTIM, 'guess', address)
  const travelling = '192.0.2.77'
  t.equal((await login(a, VICTIM, PASSWORD, travelling)).status, 429)

  const forgot = await a.request('POST', '/api/v1/auth/forgot-password', { body: { email: VICTIM }, headers: { 'x-forwarded-for': travelling } })
  t.equal(forgot.status, 204)
  const reset = await a.request('POST', '/api/v1/auth/reset-password', {
    body: { token: mailedToken(a, VICTIM, 'reset_password'), password: 'a brand new passphrase' },
    headers: { 'x-forwarded-for': travelling },
  })
  t.equal(reset.status, 200, 'the reset signs the owner in')
  t.equal((await login(a, VICTIM, 'a brand new passphrase', travelling)).status, 200, 'and the address now passes the spent ceiling')
  t.equal((await login(a, VICTIM, 'a brand new passphrase', '192.0.2.78')).status, 429, 'other fresh addresses still do not')
})

t.test('an email with no account is throttled exactly like one with an account', async (t) => {
  const a = await app(t, { OZAN_LOGIN_ACCOUNT_CEILING_BURST: '3' })
  await a.register(VICTIM)
  const bodies: Record<string, unknown>[] = []
  for (const email of [VICTIM, 'nobody@example.com']) {
    const statuses: number[] = []
    for (const address of strangers(3)) statuses.push((await login(a, email, 'guess', address)).status)
    const refused = await login(a, email, 'guess', '203.0.113.99')
    statuses.push(refused.status)
    t.same(statuses, [401, 401, 401, 429], email)
    t.equal(refused.headers.get('retry-after'), '30')
    const { request_id: _ignored, ...rest } = refused.body.error
    bodies.push(rest)
  }
  t.same(bodies[0], bodies[1], 'the same 429 body')
})

t.test('one address spraying many accounts meets the per-address bucket; other addresses are unaffected', async (t) => {
  const a = await app(t, { OZAN_LOGIN_ADDRESS_BURST: '5' })
  await victimWithHome(t, a)
  const sprayer = '203.0.113.44'
  for (let i = 0; i < 5; i++) t.equal((await login(a, `user${i}@example.com`, 'guess', sprayer)).status, 401)
  t.equal((await login(a, 'user9@example.com', 'guess', sprayer)).status, 429)
  t.equal((await login(a, VICTIM, PASSWORD, sprayer)).status, 429, 'every account, from that address')
  t.equal((await login(a, VICTIM, PASSWORD, VICTIM_ADDRESS)).status, 200, 'the owner elsewhere is untouched')
})

t.test('a lockout is logged and audited once, when the bucket runs dry, without the email or password', async (t) => {
  const a = await app(t, { OZAN_LOGIN_ACCOUNT_BURST: '3' })
  const reg = await a.register(VICTIM)
  const attacker = '203.0.113.66'
  for (let i = 0; i < 3; i++) await login(a, VICTIM, 'secret-guess-xyz', attacker)
  for (let i = 0; i < 4; i++) t.equal((await login(a, VICTIM, 'secret-guess-xyz', attacker)).status, 429)

  const rows = auditRows(a, 'session.login_throttled')
  t.equal(rows.length, 1, 'one event, not one per refusal')
  t.equal(rows[0]!.ip, attacker)
  t.equal(rows[0]!.resource_id, reg.user.id)
  t.same(JSON.parse(rows[0]!.metadata!), { scope: 'account_address', retry_after_s: 30 })
  const lines = a.logs.filter((l) => l.includes('"login_lockout"'))
  t.equal(lines.length, 1)
  t.match(JSON.parse(lines[0]!), { level: 40, scope: 'account_address', retry_after_s: 30, user_id: reg.user.id, address: attacker })
  t.notOk(lines[0]!.includes(VICTIM) || lines[0]!.includes('secret-guess-xyz'), 'no email or password in the line')
})

t.test('concurrent failures from many addresses cannot outrun the ceiling', async (t) => {
  const a = await app(t, { OZAN_LOGIN_ACCOUNT_CEILING_BURST: '4' })
  await a.register(VICTIM)
  const replies = await Promise.all(strangers(12).map((address) => login(a, VICTIM, 'guess', address)))
  t.same(replies.map((r) => r.status).sort(), [...Array(4).fill(401), ...Array(8).fill(429)])
  t.equal(auditRows(a, 'session.login_throttled').length, 1, 'one lockout, seen by exactly one of the racing failures')
})
