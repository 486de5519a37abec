import t from 'tap'
import type { LlmChunk, LlmClient } from '../../../engine/graph-runtime/index.js'
import { ScriptedLlm, call, text } from '../../../engine/graph-runtime/testing/scripted-llm.js'
import { CONVERSATION_GRAPH, agent, errorOf, say, sessionPath, setup, start, useLlm, type Scene } from './session-fixtures.js'

// The issue: conversation nodes need an LLM; a tool call publishes function.called; no LLM → a
// clear documented code (provider_not_configured) naming what to configure; an upstream failure
// → 502/503. docs/api.md: "In both cases nothing of the turn is stored, so the same message can
// be sent again." The LLM is injected with useLlm (see session-fixtures.ts).

const usage = (p: number, c: number): LlmChunk => ({ type: 'usage', model: 'scripted', prompt_tokens: p, completion_tokens: c })

/** Wraps an LLM so that each call takes `ms` on the test's manual clock. */
const slow = (s: Scene, llm: LlmClient, ms: number): LlmClient => ({
  stream: (request, signal) => {
    s.clock.advance(ms)
    return llm.stream(request, signal)
  },
})

/** What the API shows of a session, for before/after comparisons. */
const snapshot = async (s: Scene, id: string, sid: string) => ({
  detail: (await s.send('GET', sessionPath(id, sid))).body,
  events: (await s.send('GET', `${sessionPath(id, sid)}/events`)).body,
})

t.test('a conversation node answers through the LLM; its tool call is announced and, naming no real integration, fails', async (t) => {
  const s = await setup(t)
  const id = await agent(s, { definition: CONVERSATION_GRAPH })
  const llm = new ScriptedLlm([
    [call('calendar__create_booking', { day: 'monday' }, 'call_1'), usage(30, 5)],
    [text('Sorry, '), text('I could not book that.'), usage(40, 8)],
    [call('transition_e_done'), usage(20, 2)],
  ])
  useLlm(s.a, slow(s, llm, 250))
  const opening = await start(s, id)
  t.hasStrict(opening, { node_id: 'chat', reply: 'Hi, how can I help?', ended: false })
  t.equal(llm.requests.length, 0, 'a static opening needs no LLM')

  const r = await say(s, id, opening.session_id, 'Book me in on Monday')
  t.hasStrict(r, { status: 'active', reply: 'Sorry, I could not book that.', node_id: 'chat', ended: false })
  t.same(r.messages, ['Sorry, I could not book that.'])
  const [first, second] = llm.requests
  t.same(first!.tools.map((x) => x.name).sort(), ['calendar__create_booking', 'transition_e_done'])
  t.same(
    first!.messages.map((m) => [m.role, m.content]),
    [
      ['system', 'You book appointments.'],
      ['assistant', 'Hi, how can I help?'],
      ['user', 'Book me in on Monday'],
    ],
  )
  t.same(
    second!.messages.at(-1),
    { role: 'tool', tool_call_id: 'call_1', content: JSON.stringify({ error: 'unknown_integration: there is no integration calendar' }) },
    'the model hears why the tool failed',
  )

  const called = s.events.filter((e) => e.type === 'function.called')
  t.same(
    called.map((e) => e.data),
    [{ session_uuid: opening.session_id, workflow_uuid: id, call_id: 'call_1', integration: 'calendar', action: 'create_booking', input: { day: 'monday' } }],
  )
  const events = (await s.send('GET', `${sessionPath(id, opening.session_id)}/events`)).body as { kind: string; data: Record<string, unknown> }[]
  const turn = events.slice(events.findIndex((e) => e.kind === 'user_message'))
  // Usage arrives within each LLM stream; the tool runs once that stream has ended.
  t.same(
    turn.map((e) => e.kind),
    ['user_message', 'usage', 'tool_call', 'tool_result', 'usage', 'agent_message', 'turn'],
  )
  t.same(turn[2]!.data, { call_id: 'call_1', integration: 'calendar', action: 'create_booking', input: { day: 'monday' } })
  t.same(turn[3]!.data, { call_id: 'call_1', ok: false, error: 'unknown_integration: there is no integration calendar' })
  t.same(turn[5]!.data, { text: 'Sorry, I could not book that.', source: 'llm' })
  t.same(turn[6]!.data, { turn: 2, duration_ms: 500 }, 'two LLM calls of 250 ms')

  const bye = await say(s, id, opening.session_id, "That's all, thanks")
  t.hasStrict(bye, { status: 'completed', reply: 'Goodbye!', ended: true, disposition: 'completed', node_id: null })
  t.same((await s.send('GET', sessionPath(id, opening.session_id))).body.usage, { prompt_tokens: 90, completion_tokens: 15 })
  const report = s.events.find((e) => e.type === 'session.completed')!.data
  t.same(report.cost, { prompt_tokens: 90, completion_tokens: 15, amount_minor: null, currency: null })
  t.same(report.latency, {
    turns: [
      { turn: 1, duration_ms: 0 },
      { turn: 2, duration_ms: 500 },
      { turn: 3, duration_ms: 250 },
    ],
    average_turn_ms: 250,
  })
})

t.test('with no LLM a conversation turn is 400 provider_not_configured and the session is unchanged', async (t) => {
  const s = await setup(t)
  const id = await agent(s, { definition: CONVERSATION_GRAPH })
  const { session_id: sid } = await start(s, id)
  const before = await snapshot(s, id, sid)
  const published = s.events.length

  const refused = await s.send('POST', `${sessionPath(id, sid)}/messages`, { body: { text: 'Is Tuesday free?' } })
  t.same(errorOf(refused), { status: 400, code: 'provider_not_configured' })
  t.match(refused.body.error.message, /OZAN_OPENAI_API_KEY/, 'the message names what to configure')
  t.same(await snapshot(s, id, sid), before, 'nothing of the turn was stored')
  t.equal(s.events.length, published, 'nothing was announced')

  useLlm(s.a, new ScriptedLlm([[text('Tuesday at ten is free.')]]))
  const r = await say(s, id, sid, 'Is Tuesday free?')
  t.equal(r.reply, 'Tuesday at ten is free.')
  const detail = (await s.send('GET', sessionPath(id, sid))).body
  t.same(
    detail.transcript,
    [
      { role: 'assistant', text: 'Hi, how can I help?' },
      { role: 'user', text: 'Is Tuesday free?' },
      { role: 'assistant', text: 'Tuesday at ten is free.' },
    ],
    'the caller’s words appear once',
  )
  t.equal(detail.turn_count, 2)
})

/** An LLM that writes a little, then fails as the provider adapter does (code, status, message). */
const failing = (code: string, status: number): LlmClient => ({
  async *stream() {
    yield text('Let me check')
    throw Object.assign(new Error(`provider said ${status} at https://internal.example/v1`), { code, status })
  },
})

t.test('an upstream failure mid-turn is 502 upstream_error (503 when unavailable) and the session is unchanged', async (t) => {
  const s = await setup(t)
  const id = await agent(s, { definition: CONVERSATION_GRAPH })
  const { session_id: sid } = await start(s, id)
  const before = await snapshot(s, id, sid)
  for (const [code, status, answer] of [
    ['upstream_error', 502, 'upstream_error'],
    ['upstream_unavailable', 503, 'service_unavailable'],
  ] as const) {
    useLlm(s.a, failing(code, status))
    const r = await s.send('POST', `${sessionPath(id, sid)}/messages`, { body: { text: 'Hello?' } })
    t.same(errorOf(r), { status, code: answer }, code)
    t.notMatch(r.text, /internal\.example/, 'the provider’s words do not leak')
    t.same(await snapshot(s, id, sid), before, `${code}: nothing stored`)
  }
  t.notOk(
    s.events.some((e) => e.type === 'transcript.updated' && e.data.role === 'user'),
    'no line announced',
  )
  useLlm(s.a, new ScriptedLlm([[text('Hello! Yes?')]]))
  t.equal((await say(s, id, sid, 'Hello?')).reply, 'Hello! Yes?', 'the same message works once the provider is back')
})

t.test('an opening the LLM writes fails cleanly without an LLM and leaves no usable half-session', async (t) => {
  const s = await setup(t)
  const graph = structuredClone(CONVERSATION_GRAPH)
  graph.nodes[0]!.data = { first_message: { mode: 'llm', prompt: 'Greet the caller.' } } as never
  const id = await agent(s, { definition: graph })
  const r = await s.send('POST', `/api/v1/workflows/${id}/sessions`, { body: {} })
  t.same(errorOf(r), { status: 400, code: 'provider_not_configured' })
  const listed = (await s.send('GET', '/api/v1/sessions?status=active')).body as unknown[]
  t.same(listed, [], 'no session is left waiting that could never take a message')
  t.same(s.a.db.prepare('SELECT count(*) AS n FROM sessions').get(), { n: 0 }, 'nothing stored: starting again is the retry')
  t.notOk(
    s.events.some((e) => e.type.startsWith('session.') || e.type === 'transcript.updated'),
    'nothing announced',
  )

  useLlm(s.a, new ScriptedLlm([[text('Good morning!')]]))
  const ok = await start(s, id)
  t.hasStrict(ok, { reply: 'Good morning!', node_id: 'chat', status: 'active' })
  t.same(
    s.events.filter((e) => e.type === 'session.started' || e.type === 'transcript.updated').map((e) => e.type),
    ['session.started', 'transcript.updated'],
    'started is announced before the opening line',
  )
})

t.test('a text run whose turn fails is recorded as failed, not left waiting', async (t) => {
  const s = await setup(t)
  const id = await agent(s, { definition: CONVERSATION_GRAPH })
  const r = await s.send('POST', `/api/v1/workflows/${id}/runs/text`, { body: { input: 'Hello?' } })
  t.same(errorOf(r), { status: 400, code: 'provider_not_configured' })
  const runs = (await s.send('GET', '/api/v1/sessions?channel=run')).body as Record<string, unknown>[]
  t.equal(runs.length, 1)
  t.hasStrict(runs[0], { status: 'failed', disposition: 'error', turn_count: 1 })
  const detail = (await s.send('GET', sessionPath(id, runs[0]!.id as string))).body
  t.hasStrict(detail, { status: 'failed', error_code: 'provider_not_configured', node_id: null })
  t.same(detail.transcript, [{ role: 'assistant', text: 'Hi, how can I help?' }], 'the failed input is not in the transcript')
  t.same(errorOf(await s.send('POST', `${sessionPath(id, runs[0]!.id as string)}/messages`, { body: { text: 'Hello?' } })), {
    status: 409,
    code: 'session_ended',
  })
  const report = s.events.find((e) => e.type === 'session.completed')
  t.hasStrict(report?.data, { status: 'failed', disposition: 'error', channel: 'run' }, 'the announced session is reported ended')
})
