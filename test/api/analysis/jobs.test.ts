import t from 'tap'
import { ANALYSIS, GOOD_ANSWER, KEY, W, agent, analysisEvents, analysisOf, finishedSession, scene, settle } from './analysis-fixtures.js'

// Issue 23 item 3: after a session ends, a persisted job asks the LLM (the OpenAI stand-in, real
// SDK and wire) for the summary, success evaluation and structured data the agent's config names,
// stores the checked result on the session and call details, and publishes
// session.analysis.completed once. The session never waits on it.

const answer = (value: unknown) => ({ text: JSON.stringify(value) })
type JsonSchema = { required: string[]; properties: Record<string, unknown> }

t.test('an ended session is analysed: one structured-output request, the result on both details, one event', async (t) => {
  const s = await scene(t)
  const wf = await agent(s)
  s.llm.script(answer(GOOD_ANSWER))
  s.llm.pace({ firstTokenLatencyMs: 500 })
  const sid = await finishedSession(s, wf)
  t.notOk(s.llm.requests[0]?.outcome, 'the session ended without waiting for the analysis')
  t.match(await analysisOf(s, wf, sid), { status: /^(pending|running)$/ }, 'queued when the session ended')

  const done = await settle(s, wf, sid)
  t.same(done, {
    status: 'completed',
    summary: GOOD_ANSWER.summary,
    success_evaluation: { rubric: 'pass_fail', success: true, score: null, reason: 'An appointment was booked.' },
    structured_data: { name: 'Ayşe', day: 'Monday' },
    error: null,
    attempts: 1,
    model: 'gpt-4o-mini',
    completed_at: new Date(s.clock.now()).toISOString(),
  })
  const call = (await s.send('GET', `/api/v1/calls/${sid}`)).body
  t.same(call.analysis, done, 'GET /calls/{uuid} shows the same analysis')

  t.equal(s.llm.requests.length, 1)
  const req = s.llm.requests[0]!
  t.equal(req.stream, false)
  t.equal(req.body.temperature, 0)
  const format = req.body.response_format as { type: string; json_schema: { name: string; strict: boolean; schema: JsonSchema } }
  t.equal(format.type, 'json_schema')
  t.equal(format.json_schema.strict, true, 'a closed schema with every property required is sent strict')
  t.same(format.json_schema.schema.required, ['summary', 'success_evaluation', 'structured_data'])
  t.same(format.json_schema.schema.properties.structured_data, ANALYSIS.structured_data.schema, "the organization's schema, as saved")
  const user = String(req.messages.at(-1)!.content)
  t.match(user, /Agent: Hello! Who is calling\?\nAgent: May I have your name\?\nCaller: Ayşe\nAgent: Thanks, you are booked for Monday\./)
  t.match(String(req.messages[0]!.content), /The caller booked an appointment\./, 'the criteria are in the instructions')

  const events = analysisEvents(s)
  t.equal(events.length, 1, 'published once')
  t.same(events[0]!.data, {
    session_uuid: sid,
    workflow_uuid: wf,
    version: 1,
    channel: 'chat',
    status: 'completed',
    summary: done.summary,
    success_evaluation: done.success_evaluation,
    structured_data: done.structured_data,
    error: null,
  })
  await s.a.services.analysis.settled()
  t.equal(s.llm.requests.length, 1, 'never asked again')
})

t.test('a score rubric and a summary alone: only what the config asks is asked and stored', async (t) => {
  const s = await scene(t)
  const wf = await agent(s, { summary: { prompt: 'One sentence.' }, success_evaluation: { criteria: 'Polite.', rubric: 'score_1_5' } })
  s.llm.script(answer({ summary: 'Short.', success_evaluation: { score: 4, reason: 'Mostly polite.' } }))
  const sid = await finishedSession(s, wf)
  const done = await settle(s, wf, sid)
  t.match(done, { status: 'completed', summary: 'Short.', success_evaluation: { rubric: 'score_1_5', success: null, score: 4 }, structured_data: null })
  const schema = (s.llm.requests[0]!.body.response_format as { json_schema: { schema: JsonSchema } }).json_schema.schema
  t.same(Object.keys(schema.properties), ['summary', 'success_evaluation'])
  t.match(String(s.llm.requests[0]!.messages[0]!.content), /One sentence\./)
})

t.test('a provider failure is retried after a backoff, then the analysis completes', async (t) => {
  const s = await scene(t)
  const wf = await agent(s)
  s.llm.fail({ kind: 'status', status: 500 })
  s.llm.script(answer(GOOD_ANSWER))
  const sid = await finishedSession(s, wf)
  await s.a.services.analysis.settled()
  const waiting = await analysisOf(s, wf, sid)
  t.match(waiting, { status: 'pending', attempts: 1, error: { code: 'upstream_error' } }, 'waiting for its retry, with the reason')
  s.a.services.analysis.wake()
  await s.a.services.analysis.settled()
  t.equal(s.llm.requests.length, 1, 'not retried before its backoff has passed')
  const done = await settle(s, wf, sid)
  t.match(done, { status: 'completed', attempts: 2, error: null, summary: GOOD_ANSWER.summary })
  t.equal(s.llm.requests.length, 2)
  t.equal(analysisEvents(s).length, 1)
})

t.test('failing on every attempt: failed with the reason after max attempts, and the event says so', async (t) => {
  const s = await scene(t)
  const wf = await agent(s)
  s.llm.fail({ kind: 'status', status: 503 }, { kind: 'status', status: 503 }, { kind: 'status', status: 503 }, { kind: 'status', status: 503 })
  const sid = await finishedSession(s, wf)
  const done = await settle(s, wf, sid)
  t.match(done, { status: 'failed', attempts: 3, summary: null, structured_data: null, error: { code: 'upstream_error', message: /HTTP 503|503/ } })
  t.equal(s.llm.requests.length, 3, 'OZAN_ANALYSIS_MAX_ATTEMPTS requests in all')
  const events = analysisEvents(s)
  t.equal(events.length, 1)
  t.match(events[0]!.data, { session_uuid: sid, status: 'failed', summary: null, error: { code: 'upstream_error' } })
})

t.test('a refused key is not retried', async (t) => {
  const s = await scene(t, { OZAN_OPENAI_API_KEY: 'sk-wrong' })
  const wf = await agent(s)
  const sid = await finishedSession(s, wf)
  const done = await settle(s, wf, sid)
  t.match(done, { status: 'failed', attempts: 1, error: { code: 'upstream_auth' } })
  t.notMatch(done.error?.message, /sk-wrong/, 'the key is never in the reason')
  t.equal(s.llm.requests.length, 1)
})

t.test('an answer that is not JSON, then one off the schema, are retried; the third is stored', async (t) => {
  const s = await scene(t)
  const wf = await agent(s)
  s.llm.script({ text: 'Sure! Here is the analysis.' }, answer({ ...GOOD_ANSWER, structured_data: { name: 'Ayşe', day: 'Sunday' } }), answer(GOOD_ANSWER))
  const sid = await finishedSession(s, wf)
  await s.a.services.analysis.settled()
  t.match(await analysisOf(s, wf, sid), { status: 'pending', error: { code: 'invalid_output', message: /not JSON/ } })
  s.clock.advance(60_000)
  s.a.services.analysis.wake()
  await s.a.services.analysis.settled()
  t.match(await analysisOf(s, wf, sid), { status: 'pending', attempts: 2, error: { code: 'invalid_output', message: /structured_data\.day/ } })
  const done = await settle(s, wf, sid)
  t.match(done, { status: 'completed', attempts: 3, structured_data: { day: 'Monday' } })
})

t.test('answers off the schema on every attempt: failed invalid_output, nothing of them stored', async (t) => {
  const s = await scene(t)
  const wf = await agent(s)
  const bad = answer({ ...GOOD_ANSWER, structured_data: { name: 'Ayşe' } })
  s.llm.script(bad, bad, bad)
  const sid = await finishedSession(s, wf)
  const done = await settle(s, wf, sid)
  t.match(done, { status: 'failed', attempts: 3, structured_data: null, summary: null, error: { code: 'invalid_output', message: /day/ } })
})

t.test('an agent without an analysis block: not_requested, and the LLM is never asked', async (t) => {
  const s = await scene(t)
  const wf = await agent(s, null)
  const sid = await finishedSession(s, wf)
  await s.a.services.analysis.settled()
  t.same(await analysisOf(s, wf, sid), {
    status: 'not_requested',
    summary: null,
    success_evaluation: null,
    structured_data: null,
    error: null,
    attempts: 0,
    model: null,
    completed_at: null,
  })
  t.equal(s.llm.requests.length, 0)
  t.equal(analysisEvents(s).length, 0)
})

t.test('a live session of an analysed agent reads pending until it ends', async (t) => {
  const s = await scene(t)
  const wf = await agent(s)
  const sid = (await s.send('POST', `${W}/${wf}/sessions`)).body.session_id
  t.match(await analysisOf(s, wf, sid), { status: 'pending', attempts: 0 })
})

t.test('no LLM configured: failed provider_not_configured at once', async (t) => {
  const s = await scene(t, { OZAN_OPENAI_API_KEY: '' })
  const wf = await agent(s)
  const sid = await finishedSession(s, wf)
  const done = await settle(s, wf, sid)
  t.match(done, { status: 'failed', attempts: 1, error: { code: 'provider_not_configured' } })
})

t.test("another organization's session and its analysis are not found", async (t) => {
  const s = await scene(t)
  const wf = await agent(s)
  s.llm.script(answer(GOOD_ANSWER))
  const sid = await finishedSession(s, wf)
  await settle(s, wf, sid)
  const { newOwner } = await import('../../helpers/tenancy-fixtures.js')
  const other = await newOwner(s.a)
  t.equal((await s.a.request('GET', `${W}/${wf}/sessions/${sid}`, { token: other.token })).status, 404)
  t.equal((await s.a.request('GET', `/api/v1/calls/${sid}`, { token: other.token })).status, 404)
  const completed = s.events.find((x) => x.type === 'session.completed')!
  t.match(analysisEvents(s), [{ organizationId: completed.organizationId, environmentId: completed.environmentId }], 'published in the session’s own scope')
})

t.test('the organization’s own base URL goes through the outbound guard at connect time', async (t) => {
  // The name is public when the credential is saved, then rebinds to loopback (DNS rebinding).
  let address = '93.184.216.34'
  const s = await scene(t, { OZAN_OPENAI_API_KEY: 'sk-platform' }, async () => [{ address, family: 4 }])
  const port = new URL(s.llm.url).port
  const put = await s.send('PUT', '/api/v1/credentials', { body: { provider: 'openai', fields: { api_key: KEY, base_url: `https://llm.example:${port}/v1` } } })
  t.equal(put.status, 200, `credential stored (${put.text})`)
  address = '127.0.0.1'
  const wf = await agent(s)
  const sid = await finishedSession(s, wf)
  const done = await settle(s, wf, sid)
  t.match(done, { status: 'failed', attempts: 1, error: { code: 'upstream_refused' } }, 'refused, and not retried')
  t.equal(s.llm.requests.length, 0, 'nothing reached the address')
})

t.test('with the range allowed, the organization’s credential reaches its base URL', async (t) => {
  const s = await scene(t, { OZAN_OPENAI_API_KEY: 'sk-platform', OZAN_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8' })
  const put = await s.send('PUT', '/api/v1/credentials', { body: { provider: 'openai', fields: { api_key: KEY, base_url: s.llm.url } } })
  t.ok(put.status < 300, `credential stored (${put.status} ${put.text})`)
  const wf = await agent(s)
  s.llm.script(answer(GOOD_ANSWER))
  const sid = await finishedSession(s, wf)
  t.match(await settle(s, wf, sid), { status: 'completed' })
  t.ok(s.llm.requests[0]!.authorized, "the organization's key was sent")
})

t.test('jobs run at most OZAN_ANALYSIS_CONCURRENCY at a time', async (t) => {
  const s = await scene(t, { OZAN_ANALYSIS_CONCURRENCY: '1' })
  const wf = await agent(s)
  s.llm.fallback({ text: JSON.stringify(GOOD_ANSWER) })
  s.llm.pace({ firstTokenLatencyMs: 150 })
  const sids = [await finishedSession(s, wf), await finishedSession(s, wf), await finishedSession(s, wf)]
  for (const sid of sids) t.match(await settle(s, wf, sid), { status: 'completed' })
  t.equal(s.llm.requests.length, 3)
  for (let i = 1; i < 3; i++) {
    const previous = s.llm.requests[i - 1]!
    t.ok(s.llm.requests[i]!.receivedAt >= previous.chunkSentAt[0]!, `request ${i + 1} began after request ${i} was answered`)
  }
})
