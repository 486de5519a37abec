import t, { type Test } from 'tap'
import { randomUUID } from 'node:crypto'
import { systemClock, type ManualClock } from '../../../core/index.js'
import { createOzanClient, OzanApiError, type ClientOptions, type components } from '../../../sdk/node/src/index.js'
import { startTestApp } from '../../helpers/app.js'
import { createKey, expectStatus, newOwner } from '../../helpers/tenancy-fixtures.js'
import { CALL_GRAPH, VOICE_CONFIG, callScene } from '../../api/calls/fixtures.js'

// The Node library against a running server (the real app on a port, the real engine for web
// calls): every request below goes over HTTP through the client, typed by the generated paths.
// (The fixtures' graph and config are plain objects whose literal types widen to string, hence the casts.)

const W = '/api/v1/workflows'
const id = (workflow_uuid: string) => ({ params: { path: { workflow_uuid } } })

async function scene(t: Test) {
  const s = await callScene(t)
  const key = await createKey(s.a, s.owner)
  const client = (o: Partial<ClientOptions> = {}) => createOzanClient({ baseUrl: s.a.url, apiKey: key.key, environmentId: 'staging', ...o })
  return { ...s, ozan: client(), client }
}

t.test('create an agent, publish it and run it as text; X-Environment-Id chooses where it lives', async (t) => {
  const s = await scene(t)
  const wf = await s.ozan.POST(W, { body: { name: 'SDK survey', template_id: 'survey-tr' } })
  t.match(wf, { name: 'SDK survey', published_version: null, environment: { slug: 'staging' } })
  const published = await s.ozan.POST(`${W}/{workflow_uuid}/publish`, id(wf.id))
  t.match(published, { workflow_id: wf.id, state: 'published', version: 1 })
  const run = await s.ozan.POST(`${W}/{workflow_uuid}/runs/text`, { ...id(wf.id), body: { input: 'evet' } })
  t.match(run, { workflow_id: wf.id, version: 1, status: 'completed', ended: true, variables: { consent: true } })
  t.match(run.reply, /1 ile 5 arasında bir puan/)
  const detail = await s.ozan.GET(`${W}/{workflow_uuid}`, id(wf.id))
  t.same(
    detail.versions.map((v) => v.version),
    [1],
  )
  const inDev = await s
    .client({ environmentId: 'dev' })
    .GET(`${W}/{workflow_uuid}`, id(wf.id))
    .catch((e) => e)
  t.match(inDev, { status: 404, code: 'not_found' }, 'the same key in dev does not see a staging agent')
})

t.test('mint a web-call token for a voice agent', async (t) => {
  const s = await scene(t)
  const dgUrl = s.dg.url.replace(/^ws/, 'http')
  await s.ozan.PUT('/api/v1/credentials', { body: { provider: 'deepgram', fields: { api_key: 'dg-key', base_url: dgUrl } } })
  const wf = await s.ozan.POST(W, { body: { name: 'SDK voice agent' } })
  await s.ozan.PUT(`${W}/{workflow_uuid}/definition`, { ...id(wf.id), body: CALL_GRAPH as components['schemas']['GraphUpdate'] })
  await s.ozan.PUT(`${W}/{workflow_uuid}/config`, { ...id(wf.id), body: VOICE_CONFIG as components['schemas']['ConfigUpdate'] })
  await s.ozan.POST(`${W}/{workflow_uuid}/publish`, id(wf.id))
  const minted = await s.ozan.POST('/api/v1/calls/web-token', { body: { workflow_uuid: wf.id } })
  t.type(minted.token, 'string')
  t.equal(minted.ws_url, `ws://127.0.0.1:${s.engine.port}/v1/calls/ws?token=${encodeURIComponent(minted.token)}&v=1`)
  const c = await s.connect(minted.ws_url)
  await c.event((e) => e.type === 'hello')
  c.ws.send(JSON.stringify({ type: 'stop' }))
  t.equal((await c.closed).code, 1000, 'the token opens a call on the engine')
})

t.test('a file upload goes as multipart (FormData) and is found by search', async (t) => {
  const s = await scene(t)
  const form = new FormData()
  form.append('file', new Blob(['Our opening hours are nine to five, Monday to Friday.'], { type: 'text/plain' }), 'hours.txt')
  const doc = await s.ozan.POST('/api/v1/knowledge-base/documents/upload', { body: form })
  t.match(doc, { title: 'hours' })
  const hits = await s.ozan.POST('/api/v1/knowledge-base/search', { body: { query: 'opening hours' } })
  t.ok(
    hits.some((h) => h.document.id === doc.id),
    'the uploaded document is found',
  )
})

t.test('list calls with paging: paginate and pages walk every page of a Page body and of an array list', async (t) => {
  const s = await scene(t)
  const clock = s.a.clock as ManualClock
  const wf = await s.ozan.POST(W, { body: { name: 'Paged', template_id: 'survey-tr' } })
  await s.ozan.POST(`${W}/{workflow_uuid}/publish`, id(wf.id))
  const made: string[] = []
  for (let i = 0; i < 5; i++) {
    clock.advance(1000)
    made.push((await s.ozan.POST('/api/v1/calls', { body: { channel: 'chat', workflow_uuid: wf.id, variables: { n: i } } })).call_uuid)
  }
  const query = { channel: 'chat' as const, limit: 2 }
  const pages = []
  for await (const page of s.ozan.pages('/api/v1/calls', { params: { query } })) pages.push(page)
  t.same(
    pages.map((p) => [p.offset, p.items.length, p.total, p.nextOffset]),
    [
      [0, 2, 5, 2],
      [2, 2, 5, 4],
      [4, 1, 5, null],
    ],
  )
  const listed: string[] = []
  for await (const call of s.ozan.paginate('/api/v1/calls', { params: { query } })) listed.push(call.call_uuid)
  t.same(listed, [...made].reverse(), 'every call once, newest first')
  const one = await s.ozan.GET('/api/v1/calls', { params: { query: { channel: 'chat', limit: 100 } } })
  t.same(
    one.items.map((c) => c.call_uuid),
    listed,
    'the same as one big page',
  )

  const sessions: string[] = []
  for await (const r of s.ozan.paginate('/api/v1/sessions', { params: { query: { limit: 2, workflow_uuid: wf.id } } })) sessions.push(r.id)
  t.same(sessions, listed, 'an array list pages by Link and X-Total-Count')
  const { headers } = await s.ozan.request('get', '/api/v1/sessions', { params: { query: { limit: 2, workflow_uuid: wf.id } } })
  t.equal(headers.get('x-total-count'), '5')
})

t.test('a 404 and a 422 come back as OzanApiError with code, message, request_id and detail', async (t) => {
  const s = await scene(t)
  const missing = await s.ozan.GET(`${W}/{workflow_uuid}`, id(randomUUID())).catch((e) => e)
  t.type(missing, OzanApiError)
  t.match(missing, { status: 404, code: 'not_found', message: /\S/, request_id: /^[0-9a-f-]{36}$/, method: 'GET', path: `${W}/{workflow_uuid}` })

  const other = await newOwner(s.a)
  const theirs = expectStatus(await s.a.request('POST', W, { token: other.token, body: { name: 'Not yours' } }), 201, 'their agent').id as string
  const foreign = await s.ozan.GET(`${W}/{workflow_uuid}`, id(theirs)).catch((e) => e)
  t.match(foreign, { status: 404, code: 'not_found', message: missing.message }, "another organization's agent: the same 404")

  const invalid = await s.ozan.GET('/api/v1/calls', { params: { query: { limit: 1000 } } }).catch((e) => e)
  t.type(invalid, OzanApiError)
  t.match(invalid, { status: 422, code: 'validation_error', request_id: /^[0-9a-f-]{36}$/ })
  t.match(invalid.detail, [{ loc: ['query', 'limit'], type: /\S/, msg: /\S/ }])
  t.match(invalid.message, /query\.limit/)

  const noName = await s.ozan.POST(W, { body: { name: '' } }).catch((e) => e)
  t.match(noName, { status: 422, code: 'validation_error' })
  t.match(noName.detail, [{ loc: ['body', 'name'] }])

  const turkish = await s
    .client({ acceptLanguage: 'tr' })
    .GET(`${W}/{workflow_uuid}`, id(randomUUID()))
    .catch((e) => e)
  t.not(turkish.message, missing.message, 'the message follows Accept-Language')
})

t.test('a 429 is retried after Retry-After; POST /calls only when the caller opts in', async (t) => {
  // A real clock, and a key bucket of two that refills one token every two seconds.
  const a = await startTestApp({ clock: systemClock, env: { OZAN_RATE_LIMIT_KEY_BURST: '2', OZAN_RATE_LIMIT_KEY_PER_MIN: '30' } })
  t.teardown(() => a.close())
  const owner = await newOwner(a)
  const key = await createKey(a, owner)
  // The agent is made with the owner's token: bearer requests do not spend the key's bucket.
  const wf = expectStatus(await a.request('POST', W, { token: owner.token, body: { name: 'Limited', template_id: 'survey-tr' } }), 201, 'agent').id as string
  expectStatus(await a.request('POST', `${W}/${wf}/publish`, { token: owner.token }), 200, 'publish')

  const seen: { status: number; retryAfter: string | null; sentAt: number; answeredAt: number }[] = []
  const observed: typeof fetch = async (input, init) => {
    const sentAt = Date.now()
    const res = await fetch(input, init)
    seen.push({ status: res.status, retryAfter: res.headers.get('retry-after'), sentAt, answeredAt: Date.now() })
    return res
  }
  const ozan = createOzanClient({ baseUrl: a.url, apiKey: key.key, fetch: observed })

  await ozan.GET(W)
  await ozan.GET(W)
  const list = await ozan.GET(W)
  t.same(
    list.map((w) => w.id),
    [wf],
    'the third call answered',
  )
  t.same(
    seen.map((r) => r.status),
    [200, 200, 429, 200],
    'after one 429',
  )
  const limited = seen[2]!
  t.match(limited.retryAfter, /^[12]$/)
  const waited = seen[3]!.sentAt - limited.answeredAt
  t.ok(waited >= Number(limited.retryAfter) * 1000, `waited ${waited} ms for Retry-After: ${limited.retryAfter}`)

  seen.length = 0
  const refused = await ozan.GET(W, { retry: { maxRetries: 0 } }).catch((e) => e)
  t.type(refused, OzanApiError)
  t.match(refused, { status: 429, code: 'rate_limited', retryAfterS: Number(seen[0]!.retryAfter), request_id: /^[0-9a-f-]{36}$/ })
  t.equal(seen.length, 1, 'maxRetries 0: one attempt')

  seen.length = 0
  const body = { channel: 'chat' as const, workflow_uuid: wf }
  const notRetried = await ozan.POST('/api/v1/calls', { body }).catch((e) => e)
  t.match(notRetried, { status: 429, code: 'rate_limited' })
  t.equal(seen.length, 1, 'POST /calls: not retried by default')

  seen.length = 0
  const call = await ozan.POST('/api/v1/calls', { body, retry: { retryPostCalls: true } })
  t.match(call, { channel: 'chat', workflow_uuid: wf })
  t.same(
    seen.map((r) => r.status),
    [429, 201],
    'POST /calls: retried when opted in',
  )
  const calls = expectStatus(await a.request('GET', '/api/v1/calls?channel=chat', { token: owner.token }), 200, 'calls')
  t.equal(calls.total, 1, 'one call placed: the refused attempts placed none')
})
