import t, { type Test } from 'tap'
import type { DomainEvent } from '../../../core/index.js'
import { startTestApp } from '../../helpers/app.js'
import { expectStatus, newOwner, type Actor } from '../../helpers/tenancy-fixtures.js'
import { CALL_GRAPH, W } from './fixtures.js'

// POST /calls (chat), its messages and control, GET /calls and GET /calls/{uuid}: the parts that
// need no engine. Web calls created by POST /calls are in calls-web.test.ts.

const C = '/api/v1/calls'

async function scene(t: Test) {
  const a = await startTestApp()
  t.teardown(() => a.close())
  const owner = await newOwner(a)
  const send = (method: string, path: string, body?: unknown, as: Actor = owner) =>
    a.request(method, path, { token: as.token, ...(body !== undefined && { body }) })
  const agent = async (name = 'Front desk', as: Actor = owner) => {
    const id = expectStatus(await send('POST', W, { name }, as), 201, 'create agent').id as string
    expectStatus(await send('PUT', `${W}/${id}/definition`, CALL_GRAPH, as), 200, 'definition')
    expectStatus(await send('POST', `${W}/${id}/publish`, undefined, as), 200, 'publish')
    return id
  }
  return { a, owner, send, agent }
}

t.test('a chat call of a saved agent: opening, messages, detail, events on the bus', async (t) => {
  const s = await scene(t)
  const seen: DomainEvent[] = []
  t.teardown(s.a.services.bus.subscribe((e) => void seen.push(e)))
  const id = await s.agent()
  const created = expectStatus(await s.send('POST', C, { channel: 'chat', workflow_uuid: id, variables: { other: 'x' } }), 201, 'create')
  t.match(created, {
    channel: 'chat',
    status: 'active',
    workflow_uuid: id,
    version: 1,
    transient: false,
    messages: ['Hello! Welcome to the demo line.', 'What is your name?'],
    ended: false,
  })
  t.notOk('token' in created || 'ws_url' in created, 'a chat call has no socket')
  const call = created.call_uuid as string

  const reply = expectStatus(await s.send('POST', `${C}/${call}/messages`, { text: 'Ayşe Yılmaz' }), 200, 'message')
  t.match(reply, { session_id: call, messages: ['Thank you. Anything else?'], variables: { name: 'Ayşe Yılmaz' } })
  // The same session through the workflow's own path: one id for both.
  expectStatus(await s.send('GET', `${W}/${id}/sessions/${call}`), 200, 'as a session')

  const detail = expectStatus(await s.send('GET', `${C}/${call}`), 200, 'detail')
  t.match(detail, {
    call_uuid: call,
    channel: 'chat',
    status: 'active',
    workflow_name: 'Front desk',
    turn_count: 2,
    ended_at: null,
    duration_ms: null,
    variables: { name: 'Ayşe Yılmaz' },
  })
  t.same(
    detail.transcript.map((l: { role: string; text: string }) => [l.role, l.text]),
    [
      ['assistant', 'Hello! Welcome to the demo line.'],
      ['assistant', 'What is your name?'],
      ['user', 'Ayşe Yılmaz'],
      ['assistant', 'Thank you. Anything else?'],
    ],
  )
  t.equal(detail.latency.turns.length, 2)
  t.same(detail.cost, { prompt_tokens: 0, completion_tokens: 0, amount_minor: null, currency: null })
  t.ok(seen.some((e) => e.type === 'session.started' && e.data['session_uuid'] === call))
})

t.test('a transient agent runs as given and is not saved; an invalid one is a pointed 422', async (t) => {
  const s = await scene(t)
  const created = expectStatus(await s.send('POST', C, { channel: 'chat', agent: { definition: CALL_GRAPH } }), 201, 'transient')
  t.match(created, { workflow_uuid: null, version: null, transient: true, messages: ['Hello! Welcome to the demo line.', 'What is your name?'] })
  t.same(expectStatus(await s.send('GET', W), 200, 'workflows'), [], 'nothing was saved as an agent')
  t.match(expectStatus(await s.send('POST', `${C}/${created.call_uuid}/messages`, { text: 'Deniz' }), 200, 'turn'), { variables: { name: 'Deniz' } })
  t.match(expectStatus(await s.send('GET', `${C}/${created.call_uuid}`), 200, 'detail'), { transient: true, workflow_name: null })
  const listed = expectStatus(await s.send('GET', '/api/v1/sessions'), 200, 'sessions list')
  t.match(listed, [{ id: created.call_uuid, workflow_id: null }], 'GET /sessions lists it too')

  const broken = { ...CALL_GRAPH, edges: [...CALL_GRAPH.edges, { id: 'e9', source: 'start', target: 'nowhere' }] }
  const bad = await s.send('POST', C, { channel: 'chat', agent: { definition: broken } })
  t.equal(bad.status, 422)
  t.ok(
    bad.body.detail.some((d: { loc: unknown[] }) => d.loc.slice(0, 3).join('.') === 'body.agent.definition'),
    JSON.stringify(bad.body.detail),
  )
})

t.test('bad requests: both or neither agent, phone, unknown or unpublished agent, another organization', async (t) => {
  const s = await scene(t)
  const id = await s.agent()
  const both = await s.send('POST', C, { channel: 'chat', workflow_uuid: id, agent: { definition: CALL_GRAPH } })
  t.equal(both.status, 422)
  t.match(both.body.detail, [{ loc: ['body', 'workflow_uuid'], msg: /exactly one/ }])
  t.equal((await s.send('POST', C, { channel: 'chat' })).status, 422)
  t.match(await s.send('POST', C, { channel: 'fax', workflow_uuid: id }), { status: 422 })
  t.match(await s.send('POST', C, { channel: 'phone', workflow_uuid: id, to: '+905551112233' }), {
    status: 400,
    body: { error: { code: 'telephony_not_configured' } },
  })
  const draft = expectStatus(await s.send('POST', W, { name: 'Draft only' }), 201, 'draft').id
  t.match(await s.send('POST', C, { channel: 'chat', workflow_uuid: draft }), { status: 409, body: { error: { code: 'no_published_version' } } })
  t.match(await s.send('POST', C, { channel: 'chat', workflow_uuid: '00000000-0000-4000-8000-000000000000' }), { status: 404 })

  const other = await newOwner(s.a)
  t.match(await s.send('POST', C, { channel: 'chat', workflow_uuid: id }, other), { status: 404 }, "another organization's agent is not found")
  const call = expectStatus(await s.send('POST', C, { channel: 'chat', workflow_uuid: id }), 201, 'mine').call_uuid
  for (const [method, path, body] of [
    ['GET', `${C}/${call}`],
    ['POST', `${C}/${call}/messages`, { text: 'x' }],
    ['POST', `${C}/${call}/control`, { action: 'end' }],
  ] as const) {
    t.match(await s.send(method, path, body, other), { status: 404, body: { error: { code: 'not_found' } } }, `${method} ${path} from another organization`)
  }
  t.equal(expectStatus(await s.send('GET', C, undefined, other), 200, 'their list').total, 0)
  t.match(expectStatus(await s.send('GET', `${C}/${call}`), 200, 'still mine'), { status: 'active', turn_count: 1 }, 'untouched by the foreign requests')
})

t.test('control of a chat call: say adds a line, end closes it, then receivers is 0', async (t) => {
  const s = await scene(t)
  const seen: DomainEvent[] = []
  t.teardown(s.a.services.bus.subscribe((e) => void seen.push(e)))
  const call = expectStatus(await s.send('POST', C, { channel: 'chat', workflow_uuid: await s.agent() }), 201, 'create').call_uuid
  t.same(expectStatus(await s.send('POST', `${C}/${call}/control`, { action: 'say', text: 'A supervisor has joined.' }), 202, 'say'), { receivers: 1 })
  t.same(expectStatus(await s.send('POST', `${C}/${call}/control`, { action: 'end' }), 202, 'end'), { receivers: 1 })
  t.same(expectStatus(await s.send('POST', `${C}/${call}/control`, { action: 'end' }), 202, 'end again'), { receivers: 0 })
  t.same(expectStatus(await s.send('POST', `${C}/${call}/control`, { action: 'say', text: 'late' }), 202, 'say after'), { receivers: 0 })
  const detail = expectStatus(await s.send('GET', `${C}/${call}`), 200, 'detail')
  t.match(detail, { status: 'completed', disposition: 'ended_by_api' })
  t.equal(detail.transcript.at(-1).text, 'A supervisor has joined.')
  t.type(detail.duration_ms, 'number')
  t.match(await s.send('POST', `${C}/${call}/messages`, { text: 'hello?' }), { status: 409, body: { error: { code: 'session_ended' } } })
  t.ok(seen.some((e) => e.type === 'transcript.updated' && e.data['text'] === 'A supervisor has joined.'))
  t.ok(seen.some((e) => e.type === 'session.completed' && e.data['disposition'] === 'ended_by_api'))

  const transferred = expectStatus(await s.send('POST', C, { channel: 'chat', workflow_uuid: await s.agent('Second') }), 201, 'create').call_uuid
  t.same(expectStatus(await s.send('POST', `${C}/${transferred}/control`, { action: 'transfer', target: '+905551112233' }), 202, 'transfer'), { receivers: 1 })
  const after = expectStatus(await s.send('GET', `${C}/${transferred}`), 200, 'detail')
  t.match(after, { status: 'completed', disposition: 'transfer' })
  t.ok(after.events.some((e: { kind: string; data: { target?: string } }) => e.kind === 'transfer' && e.data.target === '+905551112233'))

  for (const bad of [
    { action: 'say' },
    { action: 'say', text: '   ' },
    { action: 'transfer' },
    { action: 'dance' },
    { action: 'end', immediately: 'yes' },
    { action: 'end', extra: 1 },
  ]) {
    t.equal((await s.send('POST', `${C}/${call}/control`, bad)).status, 422, JSON.stringify(bad))
  }
})

t.test('GET /calls: channel, status, q, since/until, limit and offset', async (t) => {
  const s = await scene(t)
  const id = await s.agent('Reservations')
  const other = await s.agent('Complaints')
  const clock = s.a.clock as { advance?(ms: number): void; now(): number }
  const make = async (wf: string, name: string | null) => {
    const call = expectStatus(await s.send('POST', C, { channel: 'chat', workflow_uuid: wf }), 201, 'create').call_uuid as string
    if (name) expectStatus(await s.send('POST', `${C}/${call}/messages`, { text: name }), 200, 'name')
    clock.advance?.(1000)
    return call
  }
  const c1 = await make(id, 'Zeynep 0532 111 22 33')
  const t1 = new Date(clock.now()).toISOString()
  const c2 = await make(other, 'Mehmet_100%')
  const c3 = await make(id, null)
  expectStatus(await s.send('POST', `${C}/${c3}/control`, { action: 'end' }), 202, 'end c3')
  expectStatus(await s.send('POST', `${W}/${id}/runs/text`, { input: 'Ali' }), 200, 'a text run')

  const page = (q: string) => s.send('GET', `${C}${q}`)
  const ids = async (q: string) => expectStatus(await page(q), 200, q).items.map((i: { call_uuid: string }) => i.call_uuid)
  const all = expectStatus(await page(''), 200, 'all')
  t.match(all, { total: 4, limit: 25, offset: 0 })
  t.equal(all.items[0].channel, 'run', 'newest first, every channel by default')
  t.same(await ids('?channel=chat'), [c3, c2, c1])
  t.same(await ids('?channel=calls'), [], 'no voice calls yet')
  t.equal((await ids('?channel=sessions')).length, 4)
  t.same(await ids('?channel=chat&status=completed'), [c3])
  t.same(await ids('?q=zeynep'), [c1], 'transcript text, case-insensitively')
  t.same(await ids('?q=0532%20111'), [c1], 'numbers as said')
  t.same(await ids('?q=Mehmet_100%25'), [c2], '% and _ are literal')
  t.same(await ids('?q=100%25'), [c2])
  t.same(await ids('?q=_'), [c2], 'a lone underscore matches only itself')
  t.same(await ids('?channel=chat&q=Complaints'), [c2], "the agent's name")
  t.same(await ids(`?q=${c1.slice(0, 8)}`), [c1], 'a call uuid prefix')
  t.same(await ids(`?channel=chat&since=${encodeURIComponent(t1)}`), [c3, c2])
  t.same(await ids(`?channel=chat&until=${encodeURIComponent(t1)}`), [c1])
  t.same(await ids('?channel=chat&limit=1&offset=1'), [c2])
  t.match(expectStatus(await page('?limit=1'), 200, 'limit'), { total: 4, limit: 1 })

  for (const q of [
    '?limit=101',
    '?limit=0',
    '?offset=-1',
    '?channel=phone',
    '?status=live',
    '?since=yesterday',
    `?since=${encodeURIComponent(t1)}&until=${encodeURIComponent(t1)}`,
    `?q=${'x'.repeat(201)}`,
  ]) {
    t.equal((await page(q)).status, 422, q)
  }
})
