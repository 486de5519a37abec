import { randomBytes } from 'node:crypto'
import t from 'tap'
import { AccessTokens } from '../../../api/security/access-tokens.js'
import { MAX_VARIABLES_BYTES, WebCallTokenError, WebCallTokens } from '../../../engine/calls/index.js'
import { tokenFixture } from './helpers.js'

t.test('a minted token verifies to its binding and is single-use', async (t) => {
  const f = tokenFixture(t)
  const { token, jti, expiresAt } = await f.tokens.mint({ ...f.binding, variables: { plan: 'pro' } })
  t.equal(expiresAt, Math.floor(f.clock.now() / 1000) * 1000 + 300_000, 'default lifetime 300 s')
  const v = await f.tokens.verify(token)
  if (!v.ok) throw new Error('expected ok')
  t.match(v.claims, { ...f.binding, jti, expiresAt })
  t.same(f.tokens.consume(v.claims), { ok: true, variables: { plan: 'pro' } })
  t.same(f.tokens.consume(v.claims), { ok: false, closeCode: 4003, reason: 'token_used' })
  t.ok((await f.tokens.verify(token)).ok, 'verify alone does not look at use')
})

t.test('expiry: the JWT expires at its ttl', async (t) => {
  const f = tokenFixture(t)
  const { token } = await f.tokens.mint({ ...f.binding, ttlS: 10 })
  f.clock.advance(9_000)
  t.ok((await f.tokens.verify(token)).ok)
  f.clock.advance(1_000)
  t.same(await f.tokens.verify(token), { ok: false, closeCode: 4002, reason: 'token_expired' })
})

t.test('access tokens and web-call tokens never pass as each other', async (t) => {
  const f = tokenFixture(t)
  const access = new AccessTokens(f.key, 900, f.clock)
  const accessToken = await access.issue({ userId: 'u', organizationId: f.binding.organizationId, sessionId: 's' })
  t.match(await f.tokens.verify(accessToken), { ok: false, closeCode: 4004, reason: 'token_foreign' })
  const { token } = await f.tokens.mint(f.binding)
  t.equal(await access.verify(token), null)
})

t.test('a token of another engine audience, or without a row of its binding, is foreign', async (t) => {
  const f = tokenFixture(t)
  const other = new WebCallTokens({ key: f.key, repo: f.repos.webCallTokens, clock: f.clock, audience: 'eu-engine' })
  t.match(await f.tokens.verify((await other.mint(f.binding)).token), { ok: false, closeCode: 4004 })
  const v = await f.tokens.verify((await f.tokens.mint(f.binding)).token)
  if (!v.ok) throw new Error('expected ok')
  t.match(f.tokens.consume({ ...v.claims, workflowId: 'another' }), { ok: false, closeCode: 4004 })
  t.match(f.tokens.consume({ ...v.claims, jti: 'never-minted' }), { ok: false, closeCode: 4004 })
  t.match(f.tokens.consume(v.claims), { ok: true }, 'the genuine binding still works')
})

t.test('a token signed with another key is invalid', async (t) => {
  const f = tokenFixture(t)
  const stranger = new WebCallTokens({ key: randomBytes(32), repo: f.repos.webCallTokens, clock: f.clock })
  t.match(await f.tokens.verify((await stranger.mint(f.binding)).token), { ok: false, closeCode: 4001, reason: 'token_invalid' })
  t.match(await f.tokens.verify(''), { ok: false, closeCode: 4001 })
})

t.test('lifetime is 1 … 300 s and variables are bounded', async (t) => {
  const f = tokenFixture(t)
  t.throws(() => new WebCallTokens({ key: f.key, repo: f.repos.webCallTokens, clock: f.clock, ttlS: 301 }), WebCallTokenError)
  await t.rejects(f.tokens.mint({ ...f.binding, ttlS: 0 }), { code: 'invalid_ttl' })
  await t.rejects(f.tokens.mint({ ...f.binding, variables: { big: 'x'.repeat(MAX_VARIABLES_BYTES) } }), { code: 'variables_too_large' })
  const short = new WebCallTokens({ key: f.key, repo: f.repos.webCallTokens, clock: f.clock, ttlS: 60 })
  const { expiresAt } = await short.mint(f.binding)
  t.equal(expiresAt - Math.floor(f.clock.now() / 1000) * 1000, 60_000)
})

t.test('expired rows are pruned an hour after expiry when minting', async (t) => {
  const f = tokenFixture(t)
  await f.tokens.mint({ ...f.binding, ttlS: 1 })
  const count = () => (f.db.prepare('SELECT COUNT(*) AS n FROM web_call_tokens').get() as { n: number }).n
  t.equal(count(), 1)
  f.clock.advance(2 * 60 * 60 * 1000)
  await f.tokens.mint(f.binding)
  t.equal(count(), 1, 'the old row is gone, the new one stays')
})
