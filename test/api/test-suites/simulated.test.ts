import t from 'tap'
import { JUDGE_SYSTEM_PROMPT } from '../../../api/test-suites/judge.js'
import { agent, BOOKED, runToEnd, scene, scripted, suite } from './suite-fixtures.js'

// The simulated caller and the rubric judge run on the LLM (here the OpenAI stand-in, which
// answers each request by the text of its last user message). Requests are told apart by their
// system prompt: the simulator's carries the persona and goal, the judge's the judging rules.

const PERSONA = 'Ayşe, a patient who speaks briefly.'
const GOAL = 'Book an appointment for Monday under the name Ayşe.'

const simulatedCase = (assertions: unknown[], maxTurns = 4) => ({
  name: 'simulated booking',
  caller: { type: 'simulated', persona: PERSONA, goal: GOAL, max_turns: maxTurns },
  tool_results: BOOKED,
  assertions,
})

t.test('a simulated caller plays its persona to its goal against the agent', async (t) => {
  const s = await scene(t)
  // The caller answers the question of its name, and hangs up once booked.
  s.llm.fallback((last) => (last.includes('May I have your name?') ? { text: 'Ayşe' } : last.includes('booked') ? { text: '[END]' } : null))
  const wf = await agent(s.a, s.owner)
  const id = await suite(s.a, s.owner, wf, [
    simulatedCase([
      { type: 'variable', name: 'name', equals: 'Ayşe' },
      { type: 'ended', disposition: 'booked' },
    ]),
  ])
  const run = await runToEnd(s.a, s.owner, id)
  const c = run.cases[0]!
  t.equal(c.status, 'passed', c.reason ?? '')
  t.same(
    c.transcript.map((l) => [l.role, l.text]),
    [
      ['agent', 'Hello! Who is calling?'],
      ['agent', 'May I have your name?'],
      ['caller', 'Ayşe'],
      ['agent', 'Thanks Ayşe, you are booked for Monday.'],
    ],
  )
  // One request for the caller's line (the agent ended before another was needed).
  t.equal(s.llm.requests.length, 1)
  const request = s.llm.requests[0]!
  const system = String(request.messages[0]?.content)
  t.match(system, PERSONA, 'the simulator is given the persona')
  t.match(system, GOAL, 'and the goal')
  t.same(
    request.messages.slice(1).map((m) => [m.role, m.content]),
    [['user', 'Hello! Who is calling?\nMay I have your name?']],
    'it sees the agent’s lines as the other party’s',
  )
  t.ok(c.usage.prompt_tokens > 0, 'the LLM’s tokens are counted')
})

t.test('a simulated caller is bounded in turns, and may hang up early', async (t) => {
  const s = await scene(t)
  // Never a name the agent accepts as done: the agent keeps asking (text collect takes any words,
  // so a graph that loops is used: a collect of a yes/no the caller never gives).
  const LOOP = {
    variables: [{ name: 'ok', type: 'boolean' }],
    nodes: [
      { id: 'start', type: 'start', data: { first_message: { mode: 'static', text: 'Shall we go on?' } } },
      { id: 'ask', type: 'collect', data: { variable: 'ok', value_type: 'yes_no', prompt: 'Yes or no?', max_attempts: 10 } },
      { id: 'bye', type: 'end', data: { message: 'Bye.' } },
    ],
    edges: [
      { id: 'a', source: 'start', target: 'ask' },
      { id: 'b', source: 'ask', target: 'bye' },
    ],
  }
  const wf = await agent(s.a, s.owner, LOOP)
  s.llm.fallback({ text: 'Purple.' })
  const id = await suite(s.a, s.owner, wf, [{ ...simulatedCase([{ type: 'ended' }], 3), name: 'bounded' }])
  const run = await runToEnd(s.a, s.owner, id)
  const c = run.cases[0]!
  t.equal(c.transcript.filter((l) => l.role === 'caller').length, 3, 'three caller turns, as max_turns says')
  t.same(c.ended, { ended: false, disposition: null, by: 'turn_limit' })
  t.match(c.reason, /the caller ran out of turns/)

  s.llm.fallback({ text: 'Purple, I said. [END]' })
  const id2 = await suite(s.a, s.owner, wf, [{ ...simulatedCase([], 5), name: 'hangs up' }])
  const c2 = (await runToEnd(s.a, s.owner, id2)).cases[0]!
  t.same(
    c2.transcript.filter((l) => l.role === 'caller').map((l) => l.text),
    ['Purple, I said.'],
    'its last line is said, then it hangs up',
  )
  t.same(c2.ended, { ended: false, disposition: null, by: 'caller' })
})

t.test('rubric criteria are judged by the LLM: pass, fail with the judge’s reason, and an unreadable answer', async (t) => {
  const s = await scene(t)
  const wf = await agent(s.a, s.owner)
  const verdicts: Record<string, string> = {
    polite: '{"pass": true, "reason": "The agent greeted the caller and thanked them."}',
    weather: 'Sure! {"pass": false, "reason": "The agent never mentioned the weather."}',
    garbled: 'I think it went fine.',
  }
  s.llm.fallback((last) => {
    const key = Object.keys(verdicts).find((k) => last.includes(`Criteria:\n${k}`))
    return key ? { text: verdicts[key]! } : null
  })
  const id = await suite(
    s.a,
    s.owner,
    wf,
    [
      scripted(
        'judged',
        ['Ayşe'],
        [
          { type: 'rubric', criteria: 'polite: the agent is polite' },
          { type: 'rubric', criteria: 'weather: the agent mentions the weather' },
          { type: 'rubric', criteria: 'garbled: anything' },
        ],
      ),
    ],
    { judge_model: 'judge-model-1' },
  )
  const c = (await runToEnd(s.a, s.owner, id)).cases[0]!
  t.equal(c.status, 'failed')
  t.match(c.assertions, [
    { type: 'rubric', status: 'passed', reason: 'Judge: The agent greeted the caller and thanked them.' },
    { type: 'rubric', status: 'failed', reason: 'Judge: The agent never mentioned the weather.' },
    { type: 'rubric', status: 'failed', reason: /The judge's answer was not a verdict/ },
  ])
  t.equal(s.llm.requests.length, 3)
  for (const r of s.llm.requests) {
    t.equal(r.model, 'judge-model-1', 'the suite’s judge model is asked')
    t.equal(r.messages[0]?.content, JUDGE_SYSTEM_PROMPT)
    t.match(String(r.messages[1]?.content), 'Agent: Thanks Ayşe, you are booked for Monday.', 'the judge reads the transcript')
  }
})

t.test('without an LLM a simulated caller or a rubric is an error saying what to configure', async (t) => {
  const s = await scene(t, { OZAN_OPENAI_API_KEY: '' })
  const wf = await agent(s.a, s.owner)
  const id = await suite(s.a, s.owner, wf, [
    simulatedCase([]),
    scripted('judged', ['Ayşe'], [{ type: 'rubric', criteria: 'polite' }]),
    scripted('plain', ['Ayşe'], [{ type: 'ended' }]),
  ])
  const run = await runToEnd(s.a, s.owner, id)
  t.match(run, { status: 'failed', counts: { error: 2, passed: 1 } })
  t.match(run.cases, [
    { status: 'error', error_code: 'provider_not_configured', reason: /simulated caller needs an LLM.*OZAN_OPENAI_API_KEY/ },
    { status: 'error', error_code: 'provider_not_configured', reason: /rubric needs an LLM/ },
    { status: 'passed' },
  ])
  t.equal(run.cases[1]!.transcript.length, 4, 'what was said before the error is kept')
})

t.test('a provider failure makes the case an error, with its code', async (t) => {
  const s = await scene(t)
  const wf = await agent(s.a, s.owner)
  s.llm.fail({ kind: 'status', status: 400, message: 'bad model' })
  const id = await suite(s.a, s.owner, wf, [simulatedCase([])])
  const c = (await runToEnd(s.a, s.owner, id)).cases[0]!
  t.equal(c.status, 'error')
  t.match(c.error_code, /^upstream/)
  t.match(c.reason, /llm provider failed/)
  t.equal(c.transcript.length, 2, 'the agent’s opening is kept')
})
