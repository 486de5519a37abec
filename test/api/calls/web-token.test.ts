import t from 'tap'
import { randomUUID } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { skipWithoutEspeak } from '../../helpers/speech.js'
import { createKey, expectStatus, newOwner } from '../../helpers/tenancy-fixtures.js'
import { CALL_GRAPH, VOICE_CONFIG, callScene } from './fixtures.js'

const skip = await skipWithoutEspeak()

t.test('201: token, ws_url of the running engine, expires_at; the token opens one call only', async (t) => {
  const s = await callScene(t)
  const id = await s.agent()
  await s.storeDeepgram()
  const res = await s.mint(id, undefined, { variables: { name: 'Ada' } })
  const body = expectStatus(res, 201, 'mint')
  t.type(body.token, 'string')
  t.equal(body.ws_url, `ws://127.0.0.1:${s.engine.port}/v1/calls/ws?token=${encodeURIComponent(body.token)}&v=1`)
  const expires = Date.parse(body.expires_at)
  t.ok(expires > Date.now() + 290_000 && expires <= Date.now() + 301_000, 'expires in about 300 s')
  t.equal(new Date(expires).toISOString(), body.expires_at)

  const c = await s.connect(body.ws_url)
  await c.event((e) => e.type === 'hello')
  c.ws.send(JSON.stringify({ type: 'stop' }))
  t.equal((await c.closed).code, 1000)

  const again = await s.connect(body.ws_url)
  t.same(await again.closed, { code: 4003, reason: 'token_used' })
})

t.test('docs/protocol.md §2 followed literally: the client opens ws_url as given and the call is admitted', async (t) => {
  const s = await callScene(t)
  const id = await s.agent()
  await s.storeDeepgram()
  const { ws_url, token } = expectStatus(await s.mint(id), 201, 'mint')
  const doubled = await s.connect(`${ws_url}?token=${token}&v=1`)
  t.same(await doubled.closed, { code: 4005, reason: 'protocol_version_unsupported' }, 'what the old wording (append the query again) got')
  const doc = fs.readFileSync(path.join(import.meta.dirname, '../../../docs/protocol.md'), 'utf8')
  const section = doc.slice(doc.indexOf('## 2. Connecting'), doc.indexOf('## 3.'))
  const shown = /```\n(GET .*)\n```/.exec(section)?.[1]
  t.match(shown, /^GET <ws_url>\s/, 'the request line is ws_url itself, nothing appended')
  const url = shown!.split(/\s+/)[1]!.replace('<ws_url>', ws_url)
  const c = await s.connect(url)
  t.match(await c.event((e) => e.type === 'hello'), { protocol: 1 })
  c.ws.send(JSON.stringify({ type: 'stop' }))
  t.equal((await c.closed).code, 1000)
})

t.test('an agent whose speech-to-text has no key: web-token and POST /calls (web) are 400 provider_not_configured naming it; with the key 201', async (t) => {
  const s = await callScene(t)
  const id = await s.agent()
  const minted = await s.mint(id)
  t.equal(minted.status, 400)
  t.equal(minted.body.error.code, 'provider_not_configured')
  t.match(minted.body.error.message, /speech-to-text provider is "deepgram".*"deepgram" credential.*PUT \/api\/v1\/credentials/)
  const created = await s.a.request('POST', '/api/v1/calls', { token: s.owner.token, body: { channel: 'web', workflow_uuid: id } })
  t.equal(created.status, 400)
  t.equal(created.body.error.code, 'provider_not_configured')
  t.match(created.body.error.message, /speech-to-text/)
  const tr = await s.a.request('POST', '/api/v1/calls/web-token', { token: s.owner.token, headers: { 'accept-language': 'tr' }, body: { workflow_uuid: id } })
  t.equal(tr.body.error.code, 'provider_not_configured')
  t.match(tr.body.error.message, /konuşma tanıma/, 'the Turkish message covers speech-to-text')
  // An OpenAI recognizer without any OpenAI key names the credential and the operator's variable.
  const transient = { channel: 'web', agent: { definition: CALL_GRAPH, config: { ...VOICE_CONFIG, stt: { provider: 'openai' } } } }
  const openai = await s.a.request('POST', '/api/v1/calls', { token: s.owner.token, body: transient })
  t.equal(openai.status, 400)
  t.match(openai.body.error.message, /speech-to-text provider is "openai".*"openai" credential.*OZAN_OPENAI_API_KEY/)
  const page = expectStatus(await s.a.request('GET', '/api/v1/calls?channel=calls', { token: s.owner.token }), 200, 'list')
  t.equal(page.total, 0, 'no pending call was created')
  t.equal((s.a.db.prepare('SELECT count(*) AS n FROM web_call_tokens').get() as { n: number }).n, 0, 'no token was minted')

  await s.storeDeepgram()
  expectStatus(await s.mint(id), 201, 'mint with the credential')
  expectStatus(
    await s.a.request('POST', '/api/v1/calls', { token: s.owner.token, body: { channel: 'web', workflow_uuid: id } }),
    201,
    'create with the credential',
  )
})

t.test('a graph with a conversation node needs an LLM too: 400 naming it without an OpenAI key, 201 with one; a say/collect graph never does', async (t) => {
  const conversational = {
    nodes: [
      { id: 'start', type: 'start', data: { first_message: { mode: 'static', text: 'Hello.' } } },
      { id: 'chat', type: 'conversation', data: { prompt: 'Answer briefly.' } },
      { id: 'bye', type: 'end', data: { message: 'Goodbye.' } },
    ],
    edges: [
      { id: 'a', source: 'start', target: 'chat' },
      { id: 'b', source: 'chat', target: 'bye', condition: { kind: 'intent', description: 'The caller says goodbye' } },
    ],
  }
  const body = { channel: 'web', agent: { definition: conversational, config: VOICE_CONFIG } }
  const without = await callScene(t)
  await without.storeDeepgram()
  const refused = await without.a.request('POST', '/api/v1/calls', { token: without.owner.token, body })
  t.equal(refused.status, 400)
  t.equal(refused.body.error.code, 'provider_not_configured')
  t.match(refused.body.error.message, /LLM provider is "openai".*OZAN_OPENAI_API_KEY/)
  expectStatus(await without.mint(await without.agent()), 201, 'the say/collect agent mints without an LLM')

  const withKey = await callScene(t, { OZAN_OPENAI_API_KEY: 'sk-test-not-used' })
  await withKey.storeDeepgram()
  expectStatus(await withKey.a.request('POST', '/api/v1/calls', { token: withKey.owner.token, body }), 201, 'with an LLM key')
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
