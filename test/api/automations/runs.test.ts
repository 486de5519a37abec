import t from 'tap'
import { startHubspotStandIn, startSlackStandIn } from '../../../api/integrations/stand-ins/index.js'
import { expectStatus, newOwner } from '../../helpers/tenancy-fixtures.js'
import { BOOKING_GRAPH } from '../analysis/analysis-fixtures.js'
import { A, SLACK_ON_COMPLETED, createAutomation, publish, runsOf, scene, settle, storeSlack, type Scene } from './automation-fixtures.js'

const W = '/api/v1/workflows'

/** Runs one text session of a deterministic agent to its end (a real session.completed); returns its id. */
async function finishedSession(s: Scene): Promise<string> {
  const created = expectStatus(await s.send('POST', W, { body: { name: 'Booking', definition: BOOKING_GRAPH } }), 201, 'create agent')
  expectStatus(await s.send('POST', `${W}/${created.id}/publish`), 200, 'publish')
  const sid = expectStatus(await s.send('POST', `${W}/${created.id}/sessions`), 201, 'start').session_id as string
  const r = expectStatus(await s.send('POST', `${W}/${created.id}/sessions/${sid}/messages`, { body: { text: 'Ayşe' } }), 200, 'answer')
  if (!r.ended) throw new Error('the session did not end')
  return sid
}

t.test('a finished session runs the automation once: one Slack message with the mapped fields, logged with its input and output', async (t) => {
  const s = await scene(t)
  const automation = await createAutomation(s)
  const sid = await finishedSession(s)
  await settle(s)
  t.equal(s.slack.messages.length, 1, 'one message posted')
  t.equal(s.slack.messages[0]!.text, `Session ${sid} ended: booked (chat)`)
  t.equal(s.slack.messages[0]!.channel, 'C0GENERAL01')
  t.equal(s.slack.requests[0]!.headers.authorization, `Bearer ${'xoxb-automations-test-0123456789'}`)

  const runs = await runsOf(s, automation.id)
  t.equal(runs.length, 1, 'one run')
  t.match(runs[0], {
    event_type: 'session.completed',
    status: 'succeeded',
    attempt_count: 1,
    last_attempt: { number: 1, trigger: 'event', outcome: 'succeeded' },
  })
  const detail = expectStatus(await s.send('GET', `${A}/${automation.id}/runs/${runs[0]!.id}`), 200, 'run detail')
  t.match(detail.payload, { event: 'session.completed', data: { session_uuid: sid, disposition: 'booked', occurred_at: String } })
  t.same(detail.attempts[0].input, { channel: '#general', text: `Session ${sid} ended: booked (chat)` })
  t.match(detail.attempts[0].output, { channel: 'C0GENERAL01', ts: /^\d+\.\d{6}$/ })
  t.equal(detail.attempts[0].error, null)
  t.type(detail.attempts[0].duration_ms, 'number')
  const listed = expectStatus(await s.send('GET', `${A}/${automation.id}`), 200, 'get')
  t.match(listed.last_run, { id: runs[0]!.id, status: 'succeeded' })

  // The same event announced again (same type, time and payload) does not run again.
  const event = s.a.db.prepare('SELECT payload FROM automation_runs').get() as { payload: string }
  const body = JSON.parse(event.payload)
  const { occurred_at, ...data } = body.data
  s.a.services.bus.publish({
    type: 'session.completed',
    organizationId: s.owner.organizationId,
    environmentId: s.envs.default!,
    data,
    occurredAt: Date.parse(occurred_at),
  })
  await settle(s)
  t.equal((await runsOf(s, automation.id)).length, 1, 'still one run for that event')
  t.equal(s.slack.messages.length, 1)
})

t.test('a filter that does not pass starts no run; one that passes does, with $value copies', async (t) => {
  const s = await scene(t)
  const only = await createAutomation(s, {
    ...SLACK_ON_COMPLETED,
    trigger: {
      event: 'session.completed',
      filter: { and: [{ '==': [{ var: 'data.disposition' }, 'booked'] }, { '>': [{ var: 'data.duration_ms' }, 60000] }] },
    },
  })
  const http = await createAutomation(s, {
    name: 'echo',
    trigger: { event: 'session.completed', filter: { some: [{ var: 'data.transcript' }, { in: ['refund', { var: 'content' }] }] } },
    action: { integration: 'http', action: 'request', input: { method: 'POST', url: 'http://127.0.0.1:9/', body: { vars: { $value: 'data.variables' } } } },
  })
  publish(s, 'session.completed', { session_uuid: 's-1', disposition: 'voicemail', duration_ms: 90000, transcript: [] })
  publish(s, 'session.completed', { session_uuid: 's-2', disposition: 'booked', duration_ms: 1000, transcript: [] })
  await settle(s)
  t.equal((await runsOf(s, only.id)).length, 0, 'neither event passes the filter')
  t.equal((await runsOf(s, http.id)).length, 0, 'no transcript line mentions a refund')
  t.equal(s.slack.messages.length, 0)

  publish(s, 'session.completed', { session_uuid: 's-3', disposition: 'booked', duration_ms: 61000, transcript: [], variables: { n: 2 } })
  await settle(s)
  t.equal((await runsOf(s, only.id)).length, 1, 'the passing event runs')
  t.equal(s.slack.messages[0]!.text, 'Session s-3 ended: booked ()')

  const dry = expectStatus(
    await s.send('POST', `${A}/${http.id}/test`, {
      body: { data: { transcript: [{ role: 'user', content: 'I want a refund' }], variables: { n: 2, xs: [1] } } },
    }),
    200,
    'dry run',
  )
  t.same(
    dry,
    { matched: true, input: { method: 'POST', url: 'http://127.0.0.1:9/', body: { vars: { n: 2, xs: [1] } } }, problems: [] },
    '$value copies as it is',
  )
})

t.test('a failing action is visible with its error, and a retry after the fix succeeds (audited)', async (t) => {
  const s = await scene(t)
  const automation = await createAutomation(s, {
    ...SLACK_ON_COMPLETED,
    action: { ...SLACK_ON_COMPLETED.action, input: { channel: '#nowhere', text: 'x {{data.session_uuid}}' } },
  })
  publish(s, 'session.completed', { session_uuid: 's-1' })
  await settle(s)
  const [run] = await runsOf(s, automation.id)
  t.match(run, { status: 'failed', attempt_count: 1, last_attempt: { outcome: 'failed', error: { code: 'channel_not_found', message: /channel_not_found/ } } })
  t.equal(s.slack.messages.length, 0)
  t.equal(s.slack.requests.length, 1, 'not retried on its own: waiting would not find the channel')

  // Fixed, then retried; a retry while the run is pending or running is refused.
  expectStatus(
    await s.send('PATCH', `${A}/${automation.id}`, {
      body: { action: { ...SLACK_ON_COMPLETED.action, input: { channel: '#alerts', text: 'x {{data.session_uuid}}' } } },
    }),
    200,
    'fix',
  )
  // The attempt is held at Slack for a while, so the second retry below finds it in progress.
  s.slack.fail({ kind: 'delay', ms: 300 })
  const retried = await s.send('POST', `${A}/${automation.id}/runs/${run!.id}/retry`)
  t.equal(retried.status, 200, retried.text)
  t.match(retried.body, { id: run!.id, status: 'pending' })
  const again = await s.send('POST', `${A}/${automation.id}/runs/${run!.id}/retry`)
  t.match(again, { status: 409, body: { error: { code: 'run_in_progress' } } })
  await settle(s)
  const detail = expectStatus(await s.send('GET', `${A}/${automation.id}/runs/${run!.id}`), 200, 'detail')
  t.match(detail, { status: 'succeeded', attempt_count: 2 })
  t.match(detail.attempts, [
    { number: 1, trigger: 'event', outcome: 'failed', input: { channel: '#nowhere' } },
    { number: 2, trigger: 'retry', outcome: 'succeeded', input: { channel: '#alerts', text: 'x s-1' } },
  ])
  t.equal(s.slack.messages[0]!.channel, 'C0ALERTS002')

  const trail = expectStatus(await s.send('GET', '/api/v1/audit?limit=50'), 200, 'audit').filter((e: { action: string }) => e.action.startsWith('automation'))
  t.same(
    trail.map((e: { action: string }) => e.action).sort(),
    ['automation.created', 'automation.updated', 'automation_run.retried'].sort(),
    'one event per mutation; the refused retry writes none',
  )
  t.match(
    trail.find((e: { action: string }) => e.action === 'automation_run.retried'),
    { resource_type: 'automation_run', resource_id: run!.id },
  )

  // Disabled: no retry, and new events start no run.
  expectStatus(await s.send('PATCH', `${A}/${automation.id}`, { body: { enabled: false } }), 200, 'disable')
  t.match(await s.send('POST', `${A}/${automation.id}/runs/${run!.id}/retry`), { status: 409, body: { error: { code: 'automation_disabled' } } })
  publish(s, 'session.completed', { session_uuid: 's-2' })
  await settle(s)
  t.equal((await runsOf(s, automation.id)).length, 1)
})

t.test("a provider's passing trouble is retried with backoff, up to the attempt limit", async (t) => {
  const s = await scene(t)
  const automation = await createAutomation(s)
  s.slack.fail({ kind: 'status', status: 502 }, { kind: 'status', status: 429, retryAfterS: 1 })
  publish(s, 'session.completed', { session_uuid: 's-1', disposition: 'booked', channel: 'web' })
  await s.a.services.automationWorker.settled()
  const [waiting] = await runsOf(s, automation.id)
  t.match(waiting, { status: 'pending', attempt_count: 1, last_attempt: { outcome: 'failed', error: { code: 'fatal_error' } } }, 'waits for its backoff')
  await settle(s)
  const detail = expectStatus(await s.send('GET', `${A}/${automation.id}/runs/${waiting!.id}`), 200, 'detail')
  t.match(detail, { status: 'succeeded', attempt_count: 3 })
  t.same(
    detail.attempts.map((x: { trigger: string; outcome: string; error: { code: string } | null }) => [x.trigger, x.outcome, x.error?.code ?? null]),
    [
      ['event', 'failed', 'fatal_error'],
      ['backoff', 'failed', 'ratelimited'],
      ['backoff', 'succeeded', null],
    ],
  )
  t.equal(s.slack.messages.length, 1)

  // Always failing: three attempts (OZAN_AUTOMATION_MAX_ATTEMPTS), then failed.
  s.slack.fail(...Array.from({ length: 5 }, () => ({ kind: 'status' as const, status: 503 })))
  publish(s, 'session.completed', { session_uuid: 's-2' })
  await settle(s)
  const [latest] = await runsOf(s, automation.id)
  t.match(latest, { status: 'failed', attempt_count: 3, last_attempt: { error: { code: 'fatal_error' } } })
  t.equal(s.slack.requests.length, 6)
})

t.test("no run for another environment's or another organization's events, nor for other event types", async (t) => {
  const s = await scene(t)
  const automation = await createAutomation(s)
  const staging = await createAutomation(s, SLACK_ON_COMPLETED, { headers: { 'x-environment-id': 'staging' } })
  const other = await newOwner(s.a)
  await storeSlack(s.a, other, s.slack)
  publish(s, 'session.completed', { session_uuid: 'staging-one' }, { env: s.envs.staging })
  publish(s, 'session.completed', { session_uuid: 'foreign' }, { org: other.organizationId, env: null })
  publish(s, 'session.started', { session_uuid: 'started' })
  await settle(s)
  t.equal((await runsOf(s, automation.id)).length, 0, 'the default environment saw none of them')
  const stagingRuns = await runsOf(s, staging.id, { headers: { 'x-environment-id': 'staging' } })
  t.equal(stagingRuns.length, 1, "staging's automation ran for staging's event")
  t.same(
    s.slack.messages.map((m) => m.text),
    ['Session staging-one ended:  ()'],
  )

  // An organization-wide event (no environment) reaches the automations of every environment.
  const invited = await createAutomation(s, {
    name: 'invites',
    trigger: { event: 'member.invited' },
    action: { integration: 'slack', action: 'post_message', input: { channel: '#general', text: 'Invited {{data.email}}' } },
  })
  expectStatus(await s.send('POST', '/api/v1/rbac/invitations', { body: { email: 'deniz@example.com', role_id: 4 } }), 201, 'invite')
  await settle(s)
  t.equal((await runsOf(s, invited.id)).length, 1)
  t.equal(s.slack.messages.at(-1)!.text, 'Invited deniz@example.com')
})

t.test('deleting an automation deletes its runs; one waiting for its retry never runs again', async (t) => {
  const s = await scene(t)
  const automation = await createAutomation(s)
  s.slack.fail({ kind: 'status', status: 502 })
  publish(s, 'session.completed', { session_uuid: 's-1' })
  await s.a.services.automationWorker.settled()
  t.match(await runsOf(s, automation.id), [{ status: 'pending', attempt_count: 1 }])
  expectStatus(await s.send('DELETE', `${A}/${automation.id}`), 204, 'delete')
  t.equal((await s.send('GET', `${A}/${automation.id}/runs`)).status, 404)
  t.equal((s.a.db.prepare('SELECT count(*) AS n FROM automation_runs').get() as { n: number }).n, 0, 'its runs are gone')
  t.equal((s.a.db.prepare('SELECT count(*) AS n FROM automation_attempts').get() as { n: number }).n, 0, 'with their attempts')
  s.clock.advance(600_000)
  s.a.services.automationWorker.wake()
  await s.a.services.automationWorker.settled()
  t.equal(s.slack.requests.length, 1, 'no attempt after the delete')
})

t.test('session.analysis.completed with extracted data creates a HubSpot contact from mapped fields', async (t) => {
  const s = await scene(t)
  const hubspot = await startHubspotStandIn({ accessToken: 'pat-na1-automations' })
  t.teardown(() => hubspot.close())
  const stored = { provider: 'hubspot', fields: { access_token: 'pat-na1-automations', base_url: hubspot.url } }
  expectStatus(await s.send('PUT', '/api/v1/credentials', { body: stored }), 200, 'store hubspot credential')
  const automation = await createAutomation(s, {
    name: 'Leads to HubSpot',
    trigger: {
      event: 'session.analysis.completed',
      filter: { and: [{ '==': [{ var: 'data.status' }, 'completed'] }, { '!!': { var: 'data.structured_data.email' } }] },
    },
    action: {
      integration: 'hubspot',
      action: 'create_contact',
      input: { email: '{{data.structured_data.email}}', firstname: '{{data.structured_data.name}}', phone: { $value: 'data.structured_data.phone' } },
    },
  })
  const analysed = (data: Record<string, unknown>) =>
    publish(s, 'session.analysis.completed', { session_uuid: 's', status: 'completed', summary: 'x', ...data })
  analysed({ structured_data: { name: 'Ayşe', email: 'ayse@example.com', phone: '+905551112233' } })
  analysed({ structured_data: { name: 'Nobody' } })
  publish(s, 'session.analysis.completed', { session_uuid: 's', status: 'failed', structured_data: { email: 'x@example.com' } })
  await settle(s)
  t.equal(hubspot.contacts.length, 1, 'only the completed analysis with an email')
  t.match(hubspot.contacts[0]!.properties, { email: 'ayse@example.com', firstname: 'Ayşe', phone: '+905551112233' })
  t.equal(hubspot.requests[0]!.headers.authorization, 'Bearer pat-na1-automations')
  const [run] = await runsOf(s, automation.id)
  t.match(run, { status: 'succeeded', last_attempt: { output: { contact: { email: 'ayse@example.com' } } } })
})

t.test('input the action refuses once rendered fails the run at once, naming the field', async (t) => {
  const s = await scene(t)
  const automation = await createAutomation(s, {
    ...SLACK_ON_COMPLETED,
    action: { ...SLACK_ON_COMPLETED.action, input: { channel: '#general', text: '{{data.summary}}' } },
  })
  publish(s, 'session.completed', { session_uuid: 's-1' })
  await settle(s)
  const [run] = await runsOf(s, automation.id)
  t.match(run, { status: 'failed', attempt_count: 1, last_attempt: { input: { text: '' }, error: { code: 'invalid_input', message: /text/ } } })
  t.equal(s.slack.requests.length, 0, 'nothing sent')
})

t.test("one organization's hanging endpoint holds at most its share of the worker; another's runs go ahead", async (t) => {
  // Concurrency 2: each organization may hold one slot.
  const s = await scene(t, { OZAN_AUTOMATION_CONCURRENCY: '2' })
  const slow = await startSlackStandIn({ botToken: 'xoxb-automations-test-0123456789' })
  t.teardown(() => slow.close())
  slow.fail({ kind: 'hang' }, { kind: 'hang' }, { kind: 'hang' })
  const flooding = await newOwner(s.a)
  await storeSlack(s.a, flooding, slow)
  const headers = { 'x-environment-id': 'dev' }
  expectStatus(await s.a.request('POST', A, { token: flooding.token, headers, body: SLACK_ON_COMPLETED }), 201, 'create')
  const floodingEnv = (
    s.a.db.prepare('SELECT environment_id FROM automations WHERE organization_id = ?').get(flooding.organizationId) as { environment_id: string }
  ).environment_id
  for (let i = 0; i < 3; i++) publish(s, 'session.completed', { session_uuid: `flood-${i}` }, { org: flooding.organizationId, env: floodingEnv })
  await createAutomation(s)
  publish(s, 'session.completed', { session_uuid: 'mine' })
  for (let i = 0; i < 200 && s.slack.messages.length === 0; i++) await new Promise((r) => setTimeout(r, 10))
  t.same(
    s.slack.messages.map((m) => m.text),
    ['Session mine ended:  ()'],
    "the other organization's run went ahead",
  )
  t.equal(slow.requests.length, 1, 'the flooding organization holds one slot, its other runs wait')
  const states = s.a.db
    .prepare('SELECT status, count(*) AS n FROM automation_runs WHERE organization_id = ? GROUP BY status ORDER BY status')
    .all(flooding.organizationId)
  t.same(states, [
    { status: 'pending', n: 2 },
    { status: 'running', n: 1 },
  ])
})

t.test('finished runs are deleted after the retention period; waiting ones are kept', async (t) => {
  const s = await scene(t, { OZAN_AUTOMATION_RETENTION_DAYS: '2' })
  await createAutomation(s)
  publish(s, 'session.completed', { session_uuid: 'old' })
  await settle(s)
  s.clock.advance(86_400_000)
  s.slack.fail({ kind: 'status', status: 503 })
  publish(s, 'session.completed', { session_uuid: 'waiting' })
  await s.a.services.automationWorker.settled()
  t.equal(s.a.services.automationWorker.prune(), 0, 'nothing is old enough yet')
  s.clock.advance(86_400_000 + 1)
  t.equal(s.a.services.automationWorker.prune(), 1, 'the run finished two days ago')
  const left = s.a.db.prepare('SELECT status FROM automation_runs').all()
  t.same(left, [{ status: 'pending' }], 'the run waiting for its retry stays')
})
