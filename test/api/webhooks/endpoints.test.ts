import t from 'tap'
import { createEndpoint, receiver, webhookApp, WH } from './webhook-fixtures.js'
import { EVENT_TYPES } from '../../../api/webhooks/catalog.js'
import { addMember, createKey } from '../../helpers/tenancy-fixtures.js'

t.test('the event catalog is public and lists the twelve types with examples', async (t) => {
  const { a } = await webhookApp(t)
  const res = await a.request('GET', `${WH}/events`)
  t.equal(res.status, 200)
  const types = (res.body as { type: string }[]).map((e) => e.type)
  t.same(types.sort(), [
    'call.recording.ready',
    'function.called',
    'member.invited',
    'session.analysis.completed',
    'session.completed',
    'session.started',
    'sip.trunk.down',
    'sip.trunk.registered',
    'transcript.updated',
    'voicemail.detected',
    'workflow.promoted',
    'workflow.published',
  ])
  for (const e of res.body as { type: string; description: string; example: Record<string, unknown> }[]) {
    t.ok(e.description.length > 10, `${e.type} has a description`)
    t.type(e.example.occurred_at, 'string', `${e.type} example carries occurred_at`)
  }
  const recording = EVENT_TYPES.find((e) => e.type === 'call.recording.ready')!
  t.type(recording.example.session_uuid, 'string', 'call.recording.ready carries data.session_uuid')
  const completed = EVENT_TYPES.find((e) => e.type === 'session.completed')!
  t.notOk(JSON.stringify(completed.example).match(/recording|\burl\b/i), 'session.completed carries no recording address')
})

t.test('create shows the secret once; reads never show it or the auth header', async (t) => {
  const { a, owner } = await webhookApp(t)
  const r = await receiver(t)
  const created = await createEndpoint(a, owner, {
    url: r.url('/ok'),
    events: ['session.completed', 'workflow.published'],
    headers: { 'X-Tenant': 'acme' },
    auth_header: 'Bearer top-secret-value',
  })
  t.match(created, {
    id: Number,
    url: r.url('/ok'),
    events: ['session.completed', 'workflow.published'],
    timeout_seconds: 10,
    enabled: true,
    auth_header_set: true,
    headers: { 'x-tenant': 'acme' },
  })
  t.match(created.secret, /^whsec_[A-Za-z0-9_-]{43}$/)
  const list = await a.request('GET', `${WH}/endpoints`, { token: owner.token })
  t.equal(list.status, 200)
  t.equal(list.body.length, 1)
  t.notOk('secret' in list.body[0], 'the list has no secret')
  t.notOk(list.text.includes('top-secret-value') || list.text.includes(created.secret), 'neither the secret nor the auth header is ever read back')
  t.equal(list.body[0].auth_header_set, true)

  const raw = a.db.prepare('SELECT * FROM webhook_endpoints').all()
  const dump = JSON.stringify(raw, (_k, v) => (v?.type === 'Buffer' ? Buffer.from(v.data).toString('latin1') : v))
  t.notOk(dump.includes('top-secret-value') || dump.includes(created.secret.slice(6)), 'secrets are sealed at rest')

  const cleared = await a.request('PATCH', `${WH}/endpoints/${created.id}`, { token: owner.token, body: { auth_header: null, timeout_seconds: 30 } })
  t.equal(cleared.status, 200)
  t.match(cleared.body, { auth_header_set: false, timeout_seconds: 30, url: r.url('/ok') })
})

t.test('validation: unknown event types, bounds, reserved headers, bad URLs', async (t) => {
  const { a, owner } = await webhookApp(t)
  const r = await receiver(t)
  const post = (body: Record<string, unknown>) =>
    a.request('POST', `${WH}/endpoints`, { token: owner.token, body: { url: r.url('/ok'), events: ['session.started'], ...body } })

  const unknown = await post({ events: ['session.started', 'session.exploded'] })
  t.equal(unknown.status, 422)
  t.match(unknown.body.detail, [{ type: 'enum', loc: ['body', 'events', 1] }])
  t.equal((await post({ events: [] })).status, 422, 'at least one event type')
  for (const timeout of [0, 301, 2.5]) t.equal((await post({ timeout_seconds: timeout })).status, 422, `timeout ${timeout}`)
  t.equal((await post({ timeout_seconds: 300 })).status, 201, 'timeout 300 is the maximum')

  for (const name of [
    'X-Ozan-Signature',
    'x-ozan-event',
    'X-OZAN-DELIVERY',
    'x-ozan-anything',
    'Host',
    'content-length',
    'Content-Type',
    'AUTHORIZATION',
    'Transfer-Encoding',
    'Connection',
    'Upgrade',
    'TE',
  ]) {
    const res = await post({ headers: { [name]: 'x' } })
    t.equal(res.status, 422, `${name} refused`)
    t.match(res.body.detail, [{ loc: ['body', 'headers', name] }], `${name} named in loc`)
  }
  const twice = await post({ headers: { 'X-A': '1', 'x-a': '2' } })
  t.equal(twice.status, 422, 'the same header twice in different case')
  t.equal((await post({ headers: { 'X-Bad': 'a\r\nInjected: 1' } })).status, 422, 'CR/LF in a value')
  t.equal((await post({ headers: { 'Bad Name': 'x' } })).status, 422, 'a space in a name')
  t.equal((await post({ headers: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`x-h${i}`, 'v'])) })).status, 422, 'at most 20 headers')
  t.equal((await post({ auth_header: 'Bearer a\nb' })).status, 422, 'auth header without line breaks')
  const patched = await a.request('PATCH', `${WH}/endpoints/999999`, { token: owner.token, body: { headers: { host: 'evil' } } })
  t.equal(patched.status, 422, 'PATCH validates headers too (before looking the endpoint up)')

  t.equal((await post({ url: 'ftp://example.com/' })).status, 422)
  t.equal((await post({ url: 'not a url' })).status, 422)
})

t.test('SSRF at creation: loopback by name or number is refused unless the operator allows it', async (t) => {
  const { a, owner } = await webhookApp(t, { allowLoopback: false })
  const r = await receiver(t)
  for (const url of [
    `http://localhost:${r.port}/ok`,
    `http://127.0.0.1:${r.port}/ok`,
    `https://2130706433:${r.port}/`,
    'https://[::ffff:127.0.0.1]/',
    'https://169.254.169.254/latest',
    'https://10.1.2.3/',
    'https://100.64.0.1/',
  ]) {
    const res = await a.request('POST', `${WH}/endpoints`, { token: owner.token, body: { url, events: ['session.started'] } })
    t.equal(res.status, 422, url)
    t.match(res.body.detail, [{ type: 'destination_refused', loc: ['body', 'url'] }], url)
  }
  t.equal(r.seen.length, 0)
})

t.test('plain http only to operator-allowed ranges', async (t) => {
  const { a, owner } = await webhookApp(t, {
    allowLoopback: true,
    resolve: async (host) => (host === 'public.example' ? [{ address: '93.184.216.34', family: 4 }] : [{ address: '127.0.0.1', family: 4 }]),
  })
  const res = await a.request('POST', `${WH}/endpoints`, { token: owner.token, body: { url: 'http://public.example/hook', events: ['session.started'] } })
  t.equal(res.status, 422)
  t.match(res.body.detail, [{ type: 'insecure_url', loc: ['body', 'url'] }])
  t.equal(
    (await a.request('POST', `${WH}/endpoints`, { token: owner.token, body: { url: 'https://public.example/hook', events: ['session.started'] } })).status,
    201,
    'https to a public host',
  )
  t.equal(
    (await a.request('POST', `${WH}/endpoints`, { token: owner.token, body: { url: 'http://internal.test/hook', events: ['session.started'] } })).status,
    201,
    'http to an allowed range',
  )
})

t.test('delete, the per-environment cap, and environments are separate', async (t) => {
  const { a, owner } = await webhookApp(t)
  const r = await receiver(t)
  const ids: number[] = []
  for (let i = 0; i < 20; i++) ids.push((await createEndpoint(a, owner, { url: r.url(`/ok?${i}`) })).id)
  const over = await a.request('POST', `${WH}/endpoints`, { token: owner.token, body: { url: r.url('/ok'), events: ['session.started'] } })
  t.equal(over.status, 409)
  t.equal(over.body.error.code, 'webhook_endpoint_limit')
  const prod = await a.request('GET', `${WH}/endpoints`, { token: owner.token, headers: { 'x-environment-id': 'prod' } })
  t.same(prod.body, [], 'another environment has its own endpoints')
  t.equal(
    (await a.request('DELETE', `${WH}/endpoints/${ids[0]}`, { token: owner.token, headers: { 'x-environment-id': 'prod' } })).status,
    404,
    'not visible from prod',
  )
  t.equal((await a.request('DELETE', `${WH}/endpoints/${ids[0]}`, { token: owner.token })).status, 204)
  t.equal((await a.request('DELETE', `${WH}/endpoints/${ids[0]}`, { token: owner.token })).status, 404, 'gone')
  t.equal((await a.request('PATCH', `${WH}/endpoints/${ids[0]}`, { token: owner.token, body: { enabled: false } })).status, 404)
  t.equal((await a.request('DELETE', `${WH}/endpoints/abc`, { token: owner.token })).status, 422, 'ids are integers')
})

t.test('permissions: org:read lists endpoints and deliveries, org:manage changes them; a viewer only reads', async (t) => {
  const { a, owner } = await webhookApp(t)
  const r = await receiver(t)
  const ep = await createEndpoint(a, owner, { url: r.url('/ok') })
  const reader = await createKey(a, owner, ['org:read'])
  const manager = await createKey(a, owner, ['org:manage'])
  const other = await createKey(a, owner, ['workflow:read'])
  const body = { url: r.url('/ok'), events: ['session.started'] }
  t.equal((await a.request('GET', `${WH}/endpoints`, { apiKey: reader.key })).status, 200)
  t.equal((await a.request('GET', `${WH}/deliveries`, { apiKey: reader.key })).status, 200)
  t.equal((await a.request('POST', `${WH}/endpoints`, { apiKey: reader.key, body })).status, 403)
  t.equal((await a.request('POST', `${WH}/endpoints/${ep.id}/rotate-secret`, { apiKey: reader.key })).status, 403)
  t.equal((await a.request('GET', `${WH}/endpoints`, { apiKey: other.key })).status, 403)
  t.equal((await a.request('POST', `${WH}/endpoints`, { apiKey: manager.key, body })).status, 201)
  t.equal((await a.request('DELETE', `${WH}/endpoints/${ep.id}`, { apiKey: manager.key })).status, 204)
  const viewer = await addMember(a, owner, 4)
  t.equal((await a.request('GET', `${WH}/endpoints`, { token: viewer.token })).status, 200)
  t.equal((await a.request('POST', `${WH}/endpoints`, { token: viewer.token, body })).status, 403)
  t.equal((await a.request('GET', `${WH}/endpoints`)).status, 401)
})
