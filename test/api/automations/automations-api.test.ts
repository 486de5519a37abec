import t from 'tap'
import { addMember, createKey, expectStatus, newOwner } from '../../helpers/tenancy-fixtures.js'
import { A, SLACK_ON_COMPLETED, createAutomation, scene } from './automation-fixtures.js'

const withAction = (action: Record<string, unknown>) => ({ ...SLACK_ON_COMPLETED, action })
const withTrigger = (trigger: Record<string, unknown>) => ({ ...SLACK_ON_COMPLETED, trigger })
const slackInput = (input: Record<string, unknown>) => withAction({ integration: 'slack', action: 'post_message', input })

t.test('create, read, list, change and delete an automation', async (t) => {
  const s = await scene(t)
  const created = await createAutomation(s, { ...SLACK_ON_COMPLETED, description: '  for the team  ' })
  t.match(created, {
    id: /^[0-9a-f-]{36}$/,
    name: 'Post finished sessions',
    description: 'for the team',
    enabled: true,
    trigger: { event: 'session.completed', filter: null },
    action: SLACK_ON_COMPLETED.action,
    last_run: null,
    created_at: '2026-11-27T09:00:00.000Z',
  })
  t.same(expectStatus(await s.send('GET', `${A}/${created.id}`), 200, 'get'), created)
  t.same(expectStatus(await s.send('GET', A), 200, 'list'), [created])

  s.clock.advance(1000)
  const filter = { '==': [{ var: 'data.status' }, 'completed'] }
  const changed = expectStatus(
    await s.send('PATCH', `${A}/${created.id}`, {
      body: { name: 'Renamed', description: null, enabled: false, trigger: { event: 'session.analysis.completed', filter } },
    }),
    200,
    'patch',
  )
  t.match(changed, {
    name: 'Renamed',
    description: null,
    enabled: false,
    trigger: { event: 'session.analysis.completed', filter },
    action: SLACK_ON_COMPLETED.action,
  })
  t.equal(changed.updated_at, '2026-11-27T09:00:01.000Z')

  t.equal((await s.send('DELETE', `${A}/${created.id}`)).status, 204)
  t.equal((await s.send('GET', `${A}/${created.id}`)).status, 404)
  t.equal((await s.send('DELETE', `${A}/${created.id}`)).status, 404)
  t.same(expectStatus(await s.send('GET', A), 200, 'list'), [])
})

t.test('bad triggers, filters and mappings are 422 at the offending field', async (t) => {
  const s = await scene(t)
  const cases: [string, unknown, (string | number)[], RegExp][] = [
    ['unknown event', withTrigger({ event: 'session.exploded' }), ['body', 'trigger', 'event'], /Input should be/],
    [
      'forbidden operator',
      withTrigger({ event: 'session.completed', filter: { method: [{ var: 'data' }, 'toString'] } }),
      ['body', 'trigger', 'filter', 'method'],
      /forbidden/,
    ],
    [
      'filter reading outside the event',
      withTrigger({ event: 'session.completed', filter: { '==': [{ var: 'status' }, 'x'] } }),
      ['body', 'trigger', 'filter'],
      /data\.<field>/,
    ],
    ['filter not an operation', withTrigger({ event: 'session.completed', filter: 'yes' }), ['body', 'trigger', 'filter'], /one JSON Logic operation/],
    [
      'iterator inside an iterator',
      withTrigger({ event: 'session.completed', filter: { some: [{ var: 'data.transcript' }, { some: [{ var: 'data.transcript' }, true] }] } }),
      ['body', 'trigger', 'filter', 'some', 1, 'some'],
      /linear/,
    ],
    ['unknown integration', withAction({ integration: 'fax', action: 'send', input: {} }), ['body', 'action', 'integration'], /no integration "fax"/],
    ['unknown action', withAction({ integration: 'slack', action: 'post', input: {} }), ['body', 'action', 'action'], /'post_message'/],
    ['unknown field', slackInput({ channel: '#a', text: 'x', colour: 'red' }), ['body', 'action', 'input', 'colour'], /no field "colour"/],
    ['missing required field', slackInput({ channel: '#a' }), ['body', 'action', 'input', 'text'], /Field required/],
    ['template that does not parse', slackInput({ channel: '#a', text: 'Hi {{#data.x}}' }), ['body', 'action', 'input', 'text'], /Not a valid template/],
    [
      'template reading outside the event',
      slackInput({ channel: '#a', text: 'Hi {{summary}}' }),
      ['body', 'action', 'input', 'text'],
      /\{\{summary\}\} is not in the event/,
    ],
    ['partial', slackInput({ channel: '#a', text: 'Hi {{> secret}}' }), ['body', 'action', 'input', 'text'], /Partials/],
    ['bad $value path', slackInput({ channel: { $value: 'data..x' }, text: 'x' }), ['body', 'action', 'input', 'channel'], /dotted names/],
    ['$value outside the event', slackInput({ channel: { $value: 'process.env' }, text: 'x' }), ['body', 'action', 'input', 'channel'], /not in the event/],
    ['oversize mapping', slackInput({ channel: '#a', text: 'x'.repeat(70 * 1024) }), ['body', 'action', 'input'], /bytes/],
    [
      'oversize filter',
      withTrigger({ event: 'session.completed', filter: { in: ['x'.repeat(17 * 1024), { var: 'data.summary' }] } }),
      ['body', 'trigger', 'filter'],
      /bytes/,
    ],
    ['empty name', { ...SLACK_ON_COMPLETED, name: ' ' }, ['body', 'name'], /at least 1/],
    ['unknown top-level field', { ...SLACK_ON_COMPLETED, schedule: 'daily' }, ['body', 'schedule'], /Extra inputs/],
  ]
  for (const [what, body, loc, msg] of cases) {
    const res = await s.send('POST', A, { body })
    t.equal(res.status, 422, `${what}: 422 (${res.text.slice(0, 200)})`)
    const hit = (res.body?.detail ?? []).find((d: { loc: unknown[]; msg: string }) => JSON.stringify(d.loc) === JSON.stringify(loc) && msg.test(d.msg))
    t.ok(hit, `${what}: reported at ${loc.join('.')} (${JSON.stringify(res.body?.detail)?.slice(0, 400)})`)
  }
  const deep = { channel: '#a', text: 'x', thread_ts: [[[[[[[[['1.2']]]]]]]]] }
  t.equal((await s.send('POST', A, { body: slackInput(deep) })).status, 422, 'a mapping deeper than 8 levels')
  t.same(expectStatus(await s.send('GET', A), 200, 'list'), [], 'nothing was saved')

  // The same checks on a change.
  const created = await createAutomation(s)
  const res = await s.send('PATCH', `${A}/${created.id}`, { body: slackInput({ text: 'x' }) })
  t.equal(res.status, 422)
  t.match(res.body.detail, [{ loc: ['body', 'action', 'input', 'channel'] }])
})

t.test('the dry run renders the input from the catalog example or a given payload, and says where it breaks the action', async (t) => {
  const s = await scene(t)
  const created = await createAutomation(s, {
    name: 'Summaries',
    trigger: { event: 'session.analysis.completed', filter: { '==': [{ var: 'data.status' }, 'completed'] } },
    action: { integration: 'slack', action: 'post_message', input: { channel: '#general', text: '{{data.summary}}', thread_ts: '{{data.variables.ts}}' } },
  })
  const example = expectStatus(await s.send('POST', `${A}/${created.id}/test`), 200, 'dry run')
  t.equal(example.matched, true)
  t.same(example.input, { channel: '#general', text: 'Ayşe called to book a table and was booked for 25 November at 19:00.', thread_ts: '' })
  t.match(example.problems, [{ loc: ['input', 'thread_ts'], msg: /Slack message ts/ }])
  const failed = expectStatus(
    await s.send('POST', `${A}/${created.id}/test`, { body: { data: { status: 'failed', summary: 'x', variables: { ts: '1.2' } } } }),
    200,
    'dry run',
  )
  t.same(failed, { matched: false, input: { channel: '#general', text: 'x', thread_ts: '1.2' }, problems: [] })
  t.equal(s.slack.requests.length, 0, 'nothing is sent')
  t.equal((await s.send('POST', `${A}/${created.id}/test`, { body: { data: 'x' } })).status, 422)
})

t.test('permissions: org:read reads, org:manage changes; viewers and developers only read', async (t) => {
  const s = await scene(t)
  const created = await createAutomation(s)
  const reader = await createKey(s.a, s.owner, ['org:read'])
  const manager = await createKey(s.a, s.owner, ['org:manage'])
  const outsider = await createKey(s.a, s.owner, ['workflow:read'])
  const run = s.a.services.repos
  const runId = '00000000-0000-4000-8000-000000000001'
  run.automationRuns.insert(
    {
      id: runId,
      automation_id: created.id,
      organization_id: s.owner.organizationId,
      environment_id: s.envs.default!,
      event_type: 'session.completed',
      event_key: 'k',
      payload: '{"event":"session.completed","data":{}}',
    },
    s.clock.now(),
  )
  s.a.db.prepare("UPDATE automation_runs SET status = 'failed' WHERE id = ?").run(runId)
  await s.a.services.automationWorker.close()

  const reads = [
    ['GET', A],
    ['GET', `${A}/${created.id}`],
    ['GET', `${A}/${created.id}/runs`],
    ['GET', `${A}/${created.id}/runs/${runId}`],
    ['POST', `${A}/${created.id}/test`],
  ] as const
  const writes = [
    ['POST', A, SLACK_ON_COMPLETED],
    ['PATCH', `${A}/${created.id}`, { name: 'x' }],
    ['POST', `${A}/${created.id}/runs/${runId}/retry`, undefined],
  ] as const
  for (const [method, path] of reads) {
    t.equal((await s.a.request(method, path, { apiKey: reader.key })).status, 200, `org:read ${method} ${path}`)
    t.match(
      await s.a.request(method, path, { apiKey: outsider.key }),
      { status: 403, body: { error: { code: 'permission_denied' } } },
      `workflow:read ${method} ${path}`,
    )
  }
  for (const [method, path, body] of writes) {
    t.match(
      await s.a.request(method, path, { apiKey: reader.key, body }),
      { status: 403, body: { error: { code: 'permission_denied' } } },
      `org:read ${method} ${path}`,
    )
  }
  t.equal((await s.a.request('GET', A, { apiKey: manager.key })).status, 403, 'org:manage alone does not read')
  t.equal((await s.a.request('POST', A, { apiKey: manager.key, body: SLACK_ON_COMPLETED })).status, 201, 'org:manage creates')
  t.equal((await s.a.request('POST', `${A}/${created.id}/runs/${runId}/retry`, { apiKey: manager.key })).status, 200, 'org:manage retries')

  for (const roleId of [3, 4]) {
    const member = await addMember(s.a, s.owner, roleId)
    t.equal((await s.a.request('GET', A, { token: member.token })).status, 200, `role ${roleId} reads`)
    t.equal((await s.a.request('DELETE', `${A}/${created.id}`, { token: member.token })).status, 403, `role ${roleId} cannot delete`)
  }
  t.equal((await s.a.request('GET', A)).status, 401)
})

t.test("another organization's or environment's automation is 404, like an unknown id", async (t) => {
  const s = await scene(t)
  const created = await createAutomation(s)
  const other = await newOwner(s.a)
  for (const [method, path] of [
    ['GET', `${A}/${created.id}`],
    ['PATCH', `${A}/${created.id}`],
    ['DELETE', `${A}/${created.id}`],
    ['GET', `${A}/${created.id}/runs`],
    ['POST', `${A}/${created.id}/test`],
  ] as const) {
    const body = method === 'PATCH' ? { name: 'stolen' } : undefined
    t.match(await s.a.request(method, path, { token: other.token, body }), { status: 404, body: { error: { code: 'not_found' } } }, `other org ${method}`)
    t.match(await s.send(method, path, { body, headers: { 'x-environment-id': 'staging' } }), { status: 404 }, `other environment ${method}`)
  }
  t.same(expectStatus(await s.a.request('GET', A, { token: other.token }), 200, 'list'), [])
  t.equal(expectStatus(await s.send('GET', `${A}/${created.id}`), 200, 'still there').name, SLACK_ON_COMPLETED.name)
})

t.test('at most 50 automations per environment (409 automation_limit)', async (t) => {
  const s = await scene(t)
  for (let i = 0; i < 50; i++) await createAutomation(s, { ...SLACK_ON_COMPLETED, name: `n${i}` })
  const res = await s.send('POST', A, { body: SLACK_ON_COMPLETED })
  t.match(res, { status: 409, body: { error: { code: 'automation_limit' } } })
  t.equal((await s.send('POST', A, { body: SLACK_ON_COMPLETED, headers: { 'x-environment-id': 'staging' } })).status, 201, 'another environment has room')
})
