import t from 'tap'
import { checkAssertions, normalize } from '../../../api/test-suites/assertions.js'
import { readVerdict } from '../../../api/test-suites/judge.js'
import { Recording } from '../../../api/test-suites/recording.js'
import { callerView, HANG_UP } from '../../../api/test-suites/simulated-caller.js'
import { TestAssertion } from '../../../api/test-suites/schema.js'
import { caseTools } from '../../../api/test-suites/tool-mocks.js'

// The pure cores: assertions against a recording, the judge's answer, the simulator's view, the tool answers.

function recording(): Recording {
  const rec = new Recording()
  for (const id of ['start', 'ask', 'ask', 'book', 'bye']) rec.event({ type: 'node', node_id: id, node_type: 'x' })
  rec.event({ type: 'say', text: 'Hello   THERE, friend.', source: 'static' })
  rec.caller('hi')
  rec.event({ type: 'tool_call', call_id: 'c1', integration: 'calcom', action: 'book', input: { day: 'Mon', seats: 2 } })
  rec.event({ type: 'tool_result', call_id: 'c1', ok: false, error: 'nope' })
  rec.event({ type: 'end', disposition: 'error' })
  rec.variables = { name: 'Ayşe', nothing: null, obj: { a: [1, 2] } }
  return rec
}

const check = (a: unknown, voice: { responseMs: (number | null)[] } | null = null) => checkAssertions([TestAssertion.parse(a)], recording(), voice)[0]

t.test('path: in order with repeats and gaps; exact', async (t) => {
  t.match(check({ type: 'path', nodes: ['ask', 'ask', 'bye'] }), { status: 'passed' })
  t.match(check({ type: 'path', nodes: ['ask', 'ask', 'ask'] }), { status: 'failed', reason: /ask was not entered after ask/ })
  t.match(check({ type: 'path', nodes: ['bye', 'ask'] }), { status: 'failed' })
  t.match(check({ type: 'path', nodes: ['start', 'ask', 'ask', 'book', 'bye'], match: 'exact' }), { status: 'passed' })
  t.match(check({ type: 'path', nodes: ['start', 'ask', 'book', 'bye'], match: 'exact' }), { status: 'failed' })
})

t.test('variable: JSON equality, null is unset', async (t) => {
  t.match(check({ type: 'variable', name: 'obj', equals: { a: [1, 2] } }), { status: 'passed' })
  t.match(check({ type: 'variable', name: 'obj', equals: { a: [2, 1] } }), { status: 'failed' })
  t.match(check({ type: 'variable', name: 'nothing' }), { status: 'failed', reason: /never set/ })
  t.match(check({ type: 'variable', name: '__proto__' }), { status: 'failed', reason: /never set/ }, 'an inherited name is not a variable')
})

t.test('said and not_said: case and spacing aside, agent lines only', async (t) => {
  t.equal(normalize('  A\tb\n C '), 'a b c')
  t.match(check({ type: 'said', text: 'hello there' }), { status: 'passed' })
  t.match(check({ type: 'said', text: 'hi' }), { status: 'failed' }, 'the caller’s words are not the agent’s')
  t.match(check({ type: 'not_said', text: 'THERE, FRIEND' }), { status: 'failed', reason: /Hello {3}THERE, friend/ })
})

t.test('tool_called: argument subset, times, never', async (t) => {
  t.match(check({ type: 'tool_called', integration: 'calcom', action: 'book', arguments: { seats: 2 } }), { status: 'passed' })
  t.match(check({ type: 'tool_called', integration: 'calcom', action: 'book', arguments: { seats: '2' } }), { status: 'failed' }, 'types count')
  t.match(check({ type: 'tool_called', integration: 'calcom', action: 'book', times: 0 }), { status: 'failed', reason: /expected 0/ })
  t.match(check({ type: 'tool_called', integration: 'slack', action: 'post', times: 0 }), { status: 'passed' })
})

t.test('ended and latency', async (t) => {
  t.match(check({ type: 'ended' }), { status: 'passed' })
  t.match(check({ type: 'ended', disposition: 'booked' }), { status: 'failed', reason: /"error", expected "booked"/ })
  t.match(check({ type: 'latency', max_response_ms: 500 }), { status: 'not_applicable' })
  t.match(check({ type: 'latency', max_response_ms: 500 }, { responseMs: [200, 400] }), { status: 'passed', reason: /slowest 400 ms/ })
  t.match(check({ type: 'latency', max_response_ms: 500 }, { responseMs: [200, null, 900] }), {
    status: 'failed',
    reason: 'Responses over 500 ms: turn 2: no answer, turn 3: 900 ms.',
  })
  t.match(check({ type: 'latency', max_response_ms: 500 }, { responseMs: [null] }), { status: 'failed', reason: /never answered/ })
  t.equal(check({ type: 'rubric', criteria: 'x' }), null, 'rubrics are left to the judge')
})

t.test('the judge’s answer: a JSON verdict anywhere in it, else a failure saying so', async (t) => {
  t.same(readVerdict('{"pass": true, "reason": "fine"}'), { status: 'passed', reason: 'Judge: fine' })
  t.same(readVerdict('Verdict: {"pass": false, "reason": " no "} done'), { status: 'failed', reason: 'Judge: no' })
  t.match(readVerdict('{"pass": "yes"}'), { status: 'failed', reason: /not a verdict/ })
  t.match(readVerdict('{"pass": true'), { status: 'failed', reason: /not a verdict/ })
  t.match(readVerdict('{"pass": true}'), { status: 'passed', reason: /gave no reason/ })
})

t.test('the simulator sees the agent as the other party, lines of one side merged', async (t) => {
  t.same(
    callerView([
      { role: 'agent', text: 'Hi.' },
      { role: 'agent', text: 'Name?' },
      { role: 'caller', text: 'Ayşe' },
    ]),
    [
      { role: 'user', content: 'Hi.\nName?' },
      { role: 'assistant', content: 'Ayşe' },
    ],
  )
  t.match(callerView([]), [{ role: 'user', content: /agent says nothing/ }])
  t.equal(HANG_UP, '[END]')
})

t.test('tool answers: given output or error, else refused unless live', async (t) => {
  const signal = new AbortController().signal
  const ran: string[] = []
  const live = { run: async (ref: { action: string }) => (ran.push(ref.action), { ok: true as const, output: 'live' }) }
  const tools = caseTools(
    [
      { integration: 'a', action: 'out', output: { x: 1 } },
      { integration: 'a', action: 'err', error: 'busy' },
    ],
    live,
    false,
  )
  t.same(await tools.run({ integration: 'a', action: 'out' }, {}, signal), { ok: true, output: { x: 1 } })
  t.same(await tools.run({ integration: 'a', action: 'err' }, {}, signal), { ok: false, error: 'busy' })
  t.match(await tools.run({ integration: 'a', action: 'other' }, {}, signal), { ok: false, error: /not run in this test/i })
  t.same(ran, [], 'nothing ran live')
  const liveTools = caseTools([], live, true)
  t.same(await liveTools.run({ integration: 'a', action: 'other' }, {}, signal), { ok: true, output: 'live' })
  t.same(ran, ['other'])
})
