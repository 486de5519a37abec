import t from 'tap'
import { randomUUID } from 'node:crypto'
import { skipWithoutEspeak } from '../../helpers/speech.js'
import { createKey, expectStatus, newOwner } from '../../helpers/tenancy-fixtures.js'
import { callScene } from './fixtures.js'

const skip = await skipWithoutEspeak()

t.test('201: token, ws_url of the running engine, expires_at; the token opens one call only', async (t) => {
  const s = await callScene(t)
  const id = await s.agent()
  const res = await s.mint(id, undefined, { variables: { name: 'Ada' } })
  const body = expectStatus(res, 201, 'mint')
  t.type(body.token, 'string')
  t.equal(body.ws_url, `ws://127.0.0.1:${s.engine.port}/v1/calls/ws?token=${encodeURIComponent(body.token)}&v=1`)
  const expires = Date.parse(body.expires_at)
  t.ok(expires > Date.now() + 290_000 && expires <= Date.now() + 301_000, 'expires in about 300 s')
  t.equal(new Date(expires).toISOString(), body.expires_at)

  // No deepgram credential: the call is admitted, then refused with provider_not_configured.
  const c = await s.connect(body.ws_url)
  await c.event((e) => e.type === 'hello')
  const err = await c.event((e) => e.type === 'error')
  t.equal(err['code'], 'provider_not_configured')
  t.equal((await c.closed).code, 1000)
  t.match(c.events.at(-1), { type: 'ended', reason: 'error' })

  const again = await s.connect(body.ws_url)
  t.same(await again.closed, { code: 4003, reason: 'token_used' })
})

t.test('unknown, foreign and unpublished agents', async (t) => {
  const s = await callScene(t)
  const unknown = await s.mint(randomUUID())
  t.equal(unknown.status, 404)
  t.equal(unknown.body.error.code, 'not_found')
  const other = await newOwner(s.a)
  const foreign = await s.agent({ owner: other })
  const res = await s.mint(foreign)
  t.equal(res.status, 404, 'another organization’s agent is not found')
  t.equal(res.body.error.code, 'not_found')
  const draft = await s.agent({ publish: false })
  const unpublished = await s.mint(draft)
  t.equal(unpublished.status, 409)
  t.equal(unpublished.body.error.code, 'no_published_version')
})

t.test('variables over 8 KiB are 422', async (t) => {
  const s = await callScene(t)
  const id = await s.agent()
  const res = await s.mint(id, undefined, { variables: { name: 'x'.repeat(9000) } })
  t.equal(res.status, 422)
})

t.test('a key without agents:run is 403', async (t) => {
  const s = await callScene(t)
  const id = await s.agent()
  const key = await createKey(s.a, s.owner, ['workflow:read'])
  const res = await s.mint(id, { apiKey: key.key })
  t.equal(res.status, 403)
})

t.test('at the live-call cap minting is 429 concurrency_limit', { skip, timeout: 60_000 }, async (t) => {
  const s = await callScene(t, { OZAN_MAX_LIVE_CALLS_PER_ORG: '1' })
  await s.storeDeepgram()
  const id = await s.agent()
  const first = expectStatus(await s.mint(id), 201, 'mint')
  const c = await s.connect(first.ws_url)
  await c.event((e) => e.type === 'status' && e['status'] === 'speaking', 15_000)
  const res = await s.mint(id)
  t.equal(res.status, 429)
  t.equal(res.body.error.code, 'concurrency_limit')
  c.ws.send(JSON.stringify({ type: 'stop' }))
  await c.closed
  await c.until(() => s.a.services.webCalls.liveCalls.count(s.owner.organizationId) === 0)
  t.equal((await s.mint(id)).status, 201, 'room again once the call ended')
})
