import t from 'tap'
import { expectStatus } from '../../helpers/tenancy-fixtures.js'
import { agent, runToEnd, S, scene, scripted, suite } from './suite-fixtures.js'

// Scripted callers over text: the agent's graph runs in the graph runtime, and each assertion kind
// is checked against what really happened (path, variables, lines, tools, the end).

const EVERY_KIND_PASSING = [
  { type: 'path', nodes: ['start', 'ask', 'book', 'bye'], match: 'exact' },
  { type: 'path', nodes: ['ask', 'bye'] },
  { type: 'variable', name: 'name', equals: 'Ayşe' },
  { type: 'variable', name: 'booking_id' },
  { type: 'said', text: 'you are BOOKED   for monday' },
  { type: 'not_said', text: 'could not book' },
  { type: 'tool_called', integration: 'calcom', action: 'create_booking', arguments: { name: 'Ayşe' } },
  { type: 'tool_called', integration: 'calcom', action: 'create_booking', times: 1 },
  { type: 'tool_called', integration: 'slack', action: 'post_message', times: 0 },
  { type: 'ended', disposition: 'booked' },
  { type: 'latency', max_response_ms: 100 },
]

t.test('a scripted case passes when every assertion holds, with its transcript and path', async (t) => {
  const s = await scene(t)
  const wf = await agent(s.a, s.owner)
  const id = await suite(s.a, s.owner, wf, [scripted('books Ayşe', ['Ayşe'], EVERY_KIND_PASSING)])
  const run = await runToEnd(s.a, s.owner, id)
  t.match(run, { status: 'passed', mode: 'text', workflow_uuid: wf, version: 1, counts: { total: 1, passed: 1, failed: 0, error: 0, pending: 0, running: 0 } })
  const c = run.cases[0]!
  t.equal(c.status, 'passed', c.reason ?? '')
  t.equal(c.reason, null)
  t.same(
    c.transcript.map((l: { role: string; text: string }) => [l.role, l.text]),
    [
      ['agent', 'Hello! Who is calling?'],
      ['agent', 'May I have your name?'],
      ['caller', 'Ayşe'],
      ['agent', 'Thanks Ayşe, you are booked for Monday.'],
    ],
  )
  t.same(c.path, ['start', 'ask', 'book', 'bye'])
  t.match(c.variables, { name: 'Ayşe', booking_id: 'bk_42' })
  t.same(c.tool_calls, [{ integration: 'calcom', action: 'create_booking', arguments: { name: 'Ayşe', day: 'Monday' }, ok: true }])
  t.same(c.ended, { ended: true, disposition: 'booked', by: 'agent' })
  t.same(
    c.assertions.map((a: { status: string }) => a.status),
    [...Array(10).fill('passed'), 'not_applicable'],
    'the latency assertion does not apply over text',
  )
  t.equal(c.voice, null)
  t.equal(s.llm.requests.length, 0, 'a deterministic agent with no rubric needs no LLM')
})

t.test('a failing case says which assertions failed and why', async (t) => {
  const s = await scene(t)
  const wf = await agent(s.a, s.owner)
  const failing = [
    { type: 'path', nodes: ['ask', 'sorry'] },
    { type: 'path', nodes: ['start', 'bye'], match: 'exact' },
    { type: 'variable', name: 'name', equals: 'Mehmet' },
    { type: 'variable', name: 'nickname' },
    { type: 'said', text: 'see you tomorrow' },
    { type: 'not_said', text: 'booked for monday' },
    { type: 'tool_called', integration: 'calcom', action: 'create_booking', arguments: { day: 'Tuesday' } },
    { type: 'tool_called', integration: 'calcom', action: 'create_booking', times: 2 },
    { type: 'ended', disposition: 'transferred' },
  ]
  const id = await suite(s.a, s.owner, wf, [scripted('wrong expectations', ['Ayşe'], failing)])
  const run = await runToEnd(s.a, s.owner, id)
  t.match(run, { status: 'failed', counts: { total: 1, passed: 0, failed: 1 } })
  const c = run.cases[0]!
  t.equal(c.status, 'failed')
  t.same(
    c.assertions.map((a: { status: string }) => a.status),
    Array(9).fill('failed'),
  )
  const reasons = c.assertions.map((a: { reason: string }) => a.reason)
  t.match(reasons, [
    /Entered start → ask → book → bye; sorry was not entered after ask/,
    /expected exactly start → bye/,
    /name is "Ayşe", expected "Mehmet"/,
    /nickname was never set/,
    /never said “see you tomorrow”/,
    /said “booked for monday”: “Thanks Ayşe, you are booked for Monday.”/,
    /calcom.create_booking was never called with \{"day":"Tuesday"\} \(1 call\(s\) in all, with \{"name":"Ayşe","day":"Monday"\}\)/,
    /called 1 time\(s\), expected 2/,
    /disposition "booked", expected "transferred"/,
  ])
  t.match(c.reason, /^#1 path: .*#9 ended: /, 'the case reason lists the failed assertions by number')
})

t.test('a caller who hangs up before the end, and a tool with no answer given', async (t) => {
  const s = await scene(t)
  const wf = await agent(s.a, s.owner)
  const id = await suite(s.a, s.owner, wf, [scripted('hangs up', [], [{ type: 'ended' }], { caller: { type: 'scripted', turns: ['   '] } })]).catch(() => null)
  t.equal(id, null, 'a blank line is refused at creation (422)')

  const unmocked = { name: 'no tool answer', caller: { type: 'scripted', turns: ['Ayşe'] }, assertions: [{ type: 'ended', disposition: 'booked' }] }
  const sid = await suite(s.a, s.owner, wf, [unmocked, scripted('one line only', ['Ayşe'], [{ type: 'said', text: 'booked' }])])
  const run = await runToEnd(s.a, s.owner, sid)
  t.equal(run.status, 'failed')
  const [first, second] = [run.cases[0]!, run.cases[1]!]
  t.equal(first.status, 'failed')
  t.match(first.reason, /disposition "booking_failed", expected "booked"/, 'an unmocked tool fails, so the failure branch ran')
  t.match(first.tool_calls, [{ ok: false }])
  t.equal(second.status, 'passed')

  // A scripted caller whose lines run out before the agent ends: the caller hung up.
  const GREETER = {
    variables: [],
    nodes: [
      { id: 'start', type: 'start', data: { first_message: { mode: 'static', text: 'Hi.' } } },
      { id: 'q1', type: 'collect', data: { variable: 'a', value_type: 'text', prompt: 'First?' } },
      { id: 'q2', type: 'collect', data: { variable: 'b', value_type: 'text', prompt: 'Second?' } },
      { id: 'end', type: 'end', data: { message: 'Done.' } },
    ],
    edges: [
      { id: 'e1', source: 'start', target: 'q1' },
      { id: 'e2', source: 'q1', target: 'q2' },
      { id: 'e3', source: 'q2', target: 'end' },
    ],
  }
  const wf2 = await agent(s.a, s.owner, {
    ...GREETER,
    variables: [
      { name: 'a', type: 'string' },
      { name: 'b', type: 'string' },
    ],
  })
  const sid2 = await suite(s.a, s.owner, wf2, [scripted('short script', ['one'], [{ type: 'ended' }, { type: 'path', nodes: ['q2'] }])])
  const run2 = await runToEnd(s.a, s.owner, sid2)
  const c = run2.cases[0]!
  t.same(c.ended, { ended: false, disposition: null, by: 'caller' })
  t.match(c.assertions, [{ status: 'failed', reason: /did not end the call: the caller hung up first/ }, { status: 'passed' }])
})

t.test('a run of the draft, and of named cases only', async (t) => {
  const s = await scene(t)
  const wf = await agent(s.a, s.owner)
  // The draft now says something else than version 1.
  const draft = structuredClone(BOOKING_GRAPH_WITH('See you Monday, {{name}}!'))
  expectStatus(await s.send('PUT', `/api/v1/workflows/${wf}/definition`, { body: draft }), 200, 'save the draft')
  const cases = [scripted('says see you', ['Ali'], [{ type: 'said', text: 'See you Monday, Ali!' }]), scripted('other', ['Ali'], [])]
  const onVersion = await suite(s.a, s.owner, wf, cases)
  const onDraft = await suite(s.a, s.owner, wf, cases, { use_draft: true })
  const v1 = await runToEnd(s.a, s.owner, onVersion, { cases: ['says see you'] })
  t.match(v1, { status: 'failed', version: 1, counts: { total: 1 } }, 'version 1 says the old line')
  const d = await runToEnd(s.a, s.owner, onDraft, { cases: ['says see you'] })
  t.match(d, { status: 'passed', version: null, counts: { total: 1 } })
  const unknown = await s.send('POST', `${S}/${onDraft}/runs`, { body: { cases: ['says see you', 'nope'] } })
  t.equal(unknown.status, 422)
  t.match(unknown.body.detail, [{ loc: ['body', 'cases', 1], msg: /No case of this suite/ }])
})

function BOOKING_GRAPH_WITH(bye: string) {
  return {
    variables: [
      { name: 'name', type: 'string' },
      { name: 'booking_id', type: 'string' },
    ],
    nodes: [
      { id: 'start', type: 'start', data: { first_message: { mode: 'static', text: 'Hello! Who is calling?' } } },
      { id: 'ask', type: 'collect', data: { variable: 'name', value_type: 'text', prompt: 'May I have your name?' } },
      { id: 'book', type: 'tool', data: { action: { integration: 'calcom', action: 'create_booking' }, input: { name: '{{name}}' }, output: {} } },
      { id: 'bye', type: 'end', data: { message: bye, disposition: 'booked' } },
    ],
    edges: [
      { id: 'a', source: 'start', target: 'ask' },
      { id: 'b', source: 'ask', target: 'book' },
      { id: 'c', source: 'book', target: 'bye' },
    ],
  }
}
