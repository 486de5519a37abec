import t from 'tap'
import { addMember, createKey, expectStatus, newOwner } from '../../helpers/tenancy-fixtures.js'
import { agent, S, scene, scripted, suite } from './suite-fixtures.js'

const CASE = scripted('books', ['Ayşe'], [{ type: 'ended', disposition: 'booked' }])

t.test('create, list, read, change and delete a suite', async (t) => {
  const s = await scene(t)
  const wf = await agent(s.a, s.owner)
  const created = await s.send('POST', S, { body: { name: '  Booking  ', workflow_uuid: wf, cases: [CASE] } })
  t.equal(created.status, 201, created.text)
  t.match(created.body, {
    name: 'Booking',
    description: null,
    workflow_uuid: wf,
    use_draft: false,
    version: null,
    live_tools: false,
    judge_model: null,
    last_run: null,
    cases: [{ name: 'books', caller: { type: 'scripted', turns: ['Ayşe'] }, variables: {}, assertions: [{ type: 'ended', disposition: 'booked' }] }],
  })
  const id = created.body.id

  const list = await s.send('GET', S)
  t.equal(list.status, 200)
  t.same(
    list.body.map((x: { id: string }) => x.id),
    [id],
  )
  t.equal(list.headers.get('x-total-count'), '1')
  t.same((await s.send('GET', `${S}/${id}`)).body, created.body)

  const patched = await s.send('PATCH', `${S}/${id}`, { body: { description: 'Checks booking', version: 1, judge_model: 'gpt-x', live_tools: true } })
  t.equal(patched.status, 200, patched.text)
  t.match(patched.body, { description: 'Checks booking', version: 1, use_draft: false, judge_model: 'gpt-x', live_tools: true, name: 'Booking' })
  const toDraft = await s.send('PATCH', `${S}/${id}`, { body: { use_draft: true } })
  t.match(toDraft.body, { use_draft: true, version: null }, 'choosing the draft clears the version')
  const cleared = await s.send('PATCH', `${S}/${id}`, { body: { description: null, judge_model: null } })
  t.match(cleared.body, { description: null, judge_model: null, live_tools: true })

  // A run shows as the suite's last run.
  const run = expectStatus(await s.send('POST', `${S}/${id}/runs`), 202, 'start run with no body')
  t.match(run, { status: 'queued', mode: 'text', counts: { total: 1, pending: 1 }, cases: [{ name: 'books', status: 'pending', transcript: [] }] })
  t.match((await s.send('GET', `${S}/${id}`)).body.last_run, { id: run.id, mode: 'text' })
  await s.a.services.testRunWorker.settled()
  const runs = await s.send('GET', `${S}/${id}/runs`)
  t.equal(runs.status, 200)
  t.match(runs.body, [{ id: run.id, suite_id: id }])

  t.equal((await s.send('DELETE', `${S}/${id}`)).status, 204)
  t.equal((await s.send('GET', `${S}/${id}`)).status, 404)
  t.equal((await s.send('GET', `${S}/${id}/runs/${run.id}`)).status, 404, 'its runs go with it')
  t.equal((await s.send('DELETE', `${S}/${id}`)).status, 404)
})

t.test('bad suites are refused with 422 at the offending field', async (t) => {
  const s = await scene(t)
  const wf = await agent(s.a, s.owner)
  const base = { name: 'x', workflow_uuid: wf, cases: [CASE] }
  const bad: [string, unknown, (string | number)[]][] = [
    ['no cases', { ...base, cases: [] }, ['body', 'cases']],
    ['an unknown assertion type', { ...base, cases: [{ ...CASE, assertions: [{ type: 'vibes' }] }] }, ['body', 'cases', 0, 'assertions', 0, 'type']],
    ['two cases of one name', { ...base, cases: [CASE, CASE] }, ['body', 'cases', 1, 'name']],
    ['use_draft and a version', { ...base, use_draft: true, version: 2 }, ['body', 'version']],
    [
      'too many scripted turns',
      { ...base, cases: [{ ...CASE, caller: { type: 'scripted', turns: Array(31).fill('hi') } }] },
      ['body', 'cases', 0, 'caller', 'turns'],
    ],
    [
      'a simulated caller with too many turns',
      { ...base, cases: [{ ...CASE, caller: { type: 'simulated', persona: 'p', goal: 'g', max_turns: 21 } }] },
      ['body', 'cases', 0, 'caller', 'max_turns'],
    ],
    [
      'a simulated caller without a goal',
      { ...base, cases: [{ ...CASE, caller: { type: 'simulated', persona: 'p' } }] },
      ['body', 'cases', 0, 'caller', 'goal'],
    ],
    ['a line too long', { ...base, cases: [{ ...CASE, caller: { type: 'scripted', turns: ['x'.repeat(2001)] } }] }, ['body', 'cases', 0, 'caller', 'turns', 0]],
    ['too many cases', { ...base, cases: Array.from({ length: 51 }, (_, i) => ({ ...CASE, name: `c${i}` })) }, ['body', 'cases']],
    ['too many assertions', { ...base, cases: [{ ...CASE, assertions: Array(31).fill({ type: 'ended' }) }] }, ['body', 'cases', 0, 'assertions']],
    [
      'a latency bound of 0',
      { ...base, cases: [{ ...CASE, assertions: [{ type: 'latency', max_response_ms: 0 }] }] },
      ['body', 'cases', 0, 'assertions', 0, 'max_response_ms'],
    ],
    ['an unknown agent', { ...base, workflow_uuid: '00000000-0000-4000-8000-000000000000' }, ['body', 'workflow_uuid']],
  ]
  for (const [what, body, loc] of bad) {
    const res = await s.send('POST', S, { body })
    t.equal(res.status, 422, `${what}: ${res.text}`)
    t.ok(
      res.body?.detail?.some((d: { loc: unknown[] }) => JSON.stringify(d.loc) === JSON.stringify(loc)),
      `${what}: an entry at ${JSON.stringify(loc)} (${JSON.stringify(res.body?.detail?.map((d: { loc: unknown }) => d.loc))})`,
    )
  }
  const id = await suite(s.a, s.owner, wf, [CASE])
  const patch = await s.send('PATCH', `${S}/${id}`, { body: { cases: [{ ...CASE, caller: { type: 'scripted', turns: [] } }] } })
  t.equal(patch.status, 422)
  const run = await s.send('POST', `${S}/${id}/runs`, { body: { mode: 'telepathy' } })
  t.equal(run.status, 422)
  t.equal((await s.send('GET', S)).body.length, 1, 'nothing refused was stored')
})

t.test("another organization's suite, run and agent are not found", async (t) => {
  const s = await scene(t)
  const other = await newOwner(s.a)
  const theirAgent = await agent(s.a, other)
  const theirSuite = await suite(s.a, other, theirAgent, [CASE])
  const theirRun = expectStatus(await s.a.request('POST', `${S}/${theirSuite}/runs`, { token: other.token }), 202, 'their run').id
  await s.a.services.testRunWorker.settled()
  const unknown = '00000000-0000-4000-8000-000000000000'
  for (const [method, path, body] of [
    ['GET', `${S}/${theirSuite}`],
    ['PATCH', `${S}/${theirSuite}`, { name: 'mine now' }],
    ['DELETE', `${S}/${theirSuite}`],
    ['POST', `${S}/${theirSuite}/runs`, {}],
    ['GET', `${S}/${theirSuite}/runs`],
    ['GET', `${S}/${theirSuite}/runs/${theirRun}`],
  ] as const) {
    const res = await s.send(method, path, { body })
    t.equal(res.status, 404, `${method} ${path}`)
    t.equal(res.body.error.code, 'not_found')
  }
  t.same((await s.send('GET', S)).body, [], 'their suite is not listed')
  const ours = await suite(s.a, s.owner, await agent(s.a, s.owner), [CASE])
  t.equal((await s.send('GET', `${S}/${ours}/runs/${theirRun}`)).status, 404, 'their run under our suite')
  t.equal((await s.send('GET', `${S}/${ours}/runs/${unknown}`)).status, 404)
  // Their agent is refused like one that does not exist.
  const mine = await s.send('POST', S, { body: { name: 'x', workflow_uuid: theirAgent, cases: [CASE] } })
  const none = await s.send('POST', S, { body: { name: 'x', workflow_uuid: unknown, cases: [CASE] } })
  t.equal(mine.status, 422)
  t.same(mine.body.detail[0].msg, none.body.detail[0].msg)
  const theirs = expectStatus(await s.a.request('GET', `${S}/${theirSuite}`, { token: other.token }), 200, 'theirs')
  t.equal(theirs.name, 'Booking checks', 'unchanged')
  t.equal((await s.a.request('GET', `${S}/${theirSuite}/runs`, { token: other.token })).body.length, 1, 'no run of ours was added')
})

t.test('viewing needs agents:read, changing agents:write, starting a run agents:run', async (t) => {
  const s = await scene(t)
  const wf = await agent(s.a, s.owner)
  const id = await suite(s.a, s.owner, wf, [CASE])
  const viewer = await addMember(s.a, s.owner, 4)
  const body = { name: 'x', workflow_uuid: wf, cases: [CASE] }
  t.equal((await s.a.request('GET', S, { token: viewer.token })).status, 200, 'a viewer lists')
  t.equal((await s.a.request('GET', `${S}/${id}`, { token: viewer.token })).status, 200, 'and reads')
  t.equal((await s.a.request('GET', `${S}/${id}/runs`, { token: viewer.token })).status, 200, 'and reads runs')
  for (const [method, path, b] of [
    ['POST', S, body],
    ['PATCH', `${S}/${id}`, { name: 'y' }],
    ['DELETE', `${S}/${id}`, undefined],
    ['POST', `${S}/${id}/runs`, {}],
  ] as const) {
    const res = await s.a.request(method, path, { token: viewer.token, body: b })
    t.equal(res.status, 403, `a viewer may not ${method} ${path}`)
    t.equal(res.body.error.code, 'permission_denied')
  }

  const reader = (await createKey(s.a, s.owner, ['workflow:read'])).key
  const writer = (await createKey(s.a, s.owner, ['workflow:write'])).key
  const runner = (await createKey(s.a, s.owner, ['workflow:run'])).key
  t.equal((await s.a.request('GET', S, { apiKey: reader })).status, 200)
  t.equal((await s.a.request('POST', S, { apiKey: reader, body })).status, 403, 'workflow:read may not create')
  t.equal((await s.a.request('POST', S, { apiKey: writer, body })).status, 201, 'workflow:write creates')
  t.equal((await s.a.request('POST', `${S}/${id}/runs`, { apiKey: writer, body: {} })).status, 403, 'workflow:write may not run')
  t.equal((await s.a.request('POST', `${S}/${id}/runs`, { apiKey: runner, body: {} })).status, 202, 'workflow:run runs')
  t.equal((await s.a.request('GET', S, { apiKey: runner })).status, 403, 'workflow:run alone may not view')
  await s.a.services.testRunWorker.settled()
})

t.test('starting a run: the target resolved now, limits, and a deleted agent', async (t) => {
  const s = await scene(t, { OZAN_TEST_RUN_CONCURRENCY: '1' })
  const unpublished = expectStatus(await s.send('POST', '/api/v1/workflows', { body: { name: 'Draft only' } }), 201, 'agent').id
  const id = await suite(s.a, s.owner, unpublished, [CASE])
  t.match(await s.send('POST', `${S}/${id}/runs`), { status: 409, body: { error: { code: 'no_published_version' } } })
  const wf = await agent(s.a, s.owner)
  const pinned = await suite(s.a, s.owner, wf, [CASE], { version: 7 })
  t.match(await s.send('POST', `${S}/${pinned}/runs`), { status: 400, body: { error: { code: 'unknown_version' } } })
  t.match(await s.send('POST', `${S}/${pinned}/runs`, { body: { mode: 'voice' } }), { status: 409, body: { error: { code: 'voice_unavailable' } } })

  // Ten runs queued or running at once in an environment; the eleventh waits its turn (409).
  const ok = await suite(s.a, s.owner, wf, [CASE])
  await s.a.services.testRunWorker.close()
  for (let i = 0; i < 10; i++) expectStatus(await s.send('POST', `${S}/${ok}/runs`), 202, `run ${i}`)
  t.match(await s.send('POST', `${S}/${ok}/runs`), { status: 409, body: { error: { code: 'test_run_limit' } } })
  const page = await s.send('GET', `${S}/${ok}/runs?limit=3`)
  t.equal(page.body.length, 3)
  t.equal(page.headers.get('x-total-count'), '10')
  t.match(page.headers.get('link'), /rel="next"/)

  expectStatus(await s.send('DELETE', `/api/v1/workflows/${wf}`), 204, 'delete the agent')
  t.match(await s.send('POST', `${S}/${pinned}/runs`), { status: 409, body: { error: { code: 'suite_agent_missing' } } })
  t.equal((await s.send('GET', `${S}/${pinned}`)).status, 200, 'the suite stays readable')
})
