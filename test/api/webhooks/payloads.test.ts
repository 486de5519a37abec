import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { EVENT_TYPES } from '../../../api/webhooks/catalog.js'
import { expectStatus } from '../../helpers/tenancy-fixtures.js'
import { createEndpoint, receiver, settled, webhookApp } from './webhook-fixtures.js'

// The catalog's examples (and docs/webhooks.md, made from them) must show the payloads the
// services really send: real flows through the API, real deliveries, same keys.

const DOCS = fs.readFileSync(path.resolve(import.meta.dirname, '../../../docs/webhooks.md'), 'utf8')

t.test('delivered payloads have exactly the keys of the catalog examples', async (t) => {
  const { a, owner } = await webhookApp(t)
  const r = await receiver(t)
  await createEndpoint(a, owner, { url: r.url('/ok'), events: EVENT_TYPES.map((e) => e.type) })
  const send = (method: string, p: string, body?: unknown) => a.request(method, p, { token: owner.token, body })

  // An agent that calls a tool (the http integration, to the receiver) and ends.
  const definition = {
    variables: [],
    nodes: [
      { id: 'start', type: 'start' },
      { id: 'ping', type: 'tool', data: { action: { integration: 'http', action: 'request' }, input: { url: r.url('/ok'), method: 'GET' } } },
      { id: 'done', type: 'end', data: { message: 'Done.', disposition: 'done' } },
    ],
    edges: [
      { id: 'a', source: 'start', target: 'ping' },
      { id: 'b', source: 'ping', target: 'done' },
    ],
  }
  const wf = expectStatus(await send('POST', '/api/v1/workflows', { name: 'Payload agent', definition }), 201, 'create agent').id
  expectStatus(await send('POST', `/api/v1/workflows/${wf}/publish`), 200, 'publish')
  expectStatus(await send('POST', `/api/v1/workflows/${wf}/sessions`), 201, 'start session')
  expectStatus(await send('POST', `/api/v1/workflows/${wf}/promote`, { target_environment: 'staging' }), 200, 'promote')
  expectStatus(await send('POST', '/api/v1/rbac/invitations', { email: 'invitee@example.com', role_id: 4 }), 201, 'invite')
  await settled(a)
  await new Promise((res) => setTimeout(res, 100))
  await settled(a)

  const delivered = new Map<string, Record<string, unknown>>()
  for (const c of r.seen.filter((c) => c.headers['x-ozan-event'])) {
    const body = JSON.parse(c.raw.toString('utf8')) as { event: string; data: Record<string, unknown> }
    t.equal(c.headers['x-ozan-event'], body.event, 'X-Ozan-Event equals the body event')
    if (!delivered.has(body.event)) delivered.set(body.event, body.data)
  }
  const emitted = ['workflow.published', 'session.started', 'transcript.updated', 'function.called', 'session.completed', 'member.invited']
  for (const type of emitted) {
    const data = delivered.get(type)
    t.ok(data, `${type} was delivered`)
    if (!data) continue
    const example = EVENT_TYPES.find((e) => e.type === type)!.example
    t.same(Object.keys(data).sort(), Object.keys(example).sort(), `${type}: the example has the delivered keys`)
  }
  // workflow.promoted is published in the target environment, whose endpoints would receive it.
  t.notOk(delivered.has('workflow.promoted'), 'events of another environment do not reach this endpoint')
  const completed = delivered.get('session.completed')!
  t.match(completed, { transcript: Array, variables: Object, cost: Object, latency: Object })
  t.notOk(JSON.stringify(completed).match(/recording/i), 'no recording address')
})

t.test('docs/webhooks.md shows every type with its example payload', async (t) => {
  for (const e of EVENT_TYPES) {
    t.ok(DOCS.includes(`### \`${e.type}\``), `${e.type} has a section`)
    t.ok(DOCS.includes(JSON.stringify({ event: e.type, data: e.example }, null, 2)), `${e.type}: the example in the docs is the catalog's`)
  }
})
