import t from 'tap'
import type { z } from 'zod'
import { AgentConfig, Definition, GraphRuntime, initialState, type RuntimeEvent, type RuntimeIO, type ToolRunner } from '../../../engine/graph-runtime/index.js'
import { ScriptedLlm, call, text } from '../../../engine/graph-runtime/testing/scripted-llm.js'

const config = AgentConfig.parse({})
const now = () => new Date('2026-11-22T10:00:00Z')

function runtime(def: z.input<typeof Definition>, io: Partial<RuntimeIO> = {}, seed: Record<string, unknown> = {}) {
  const parsed = Definition.parse(def)
  return new GraphRuntime(parsed, config, { now, ...io }, initialState(parsed, seed), { channel: 'chat' })
}

async function collect(stream: AsyncIterable<RuntimeEvent>): Promise<RuntimeEvent[]> {
  const out: RuntimeEvent[] = []
  for await (const e of stream) out.push(e)
  return out
}
const says = (events: RuntimeEvent[]) => events.flatMap((e) => (e.type === 'say' ? [e.text] : []))
const signal = () => new AbortController().signal

const booking: z.input<typeof Definition> = {
  variables: [
    { name: 'guests', type: 'number' },
    { name: 'name', type: 'string', default: 'friend' },
  ],
  nodes: [
    { id: 'start', type: 'start', data: { first_message: { mode: 'static', text: 'Hi {{name}}!' } } },
    {
      id: 'ask',
      type: 'collect',
      data: { variable: 'guests', value_type: 'number', prompt: 'How many guests?', reprompt: 'Sorry, how many people?', max_attempts: 2 },
    },
    { id: 'big', type: 'condition' },
    { id: 'large', type: 'end', data: { message: 'A table for {{guests}}: we will call you.', disposition: 'large_party' } },
    { id: 'ok', type: 'end', data: { message: 'Booked for {{guests}}.', disposition: 'booked' } },
    { id: 'giveup', type: 'end', data: { message: 'Let us try another time.', disposition: 'no_answer' } },
  ],
  edges: [
    { id: 'e1', source: 'start', target: 'ask' },
    { id: 'e2', source: 'ask', target: 'big', condition: { kind: 'outcome', outcome: 'collected' } },
    { id: 'e3', source: 'ask', target: 'giveup', condition: { kind: 'outcome', outcome: 'max_attempts' } },
    { id: 'e4', source: 'big', target: 'large', condition: { kind: 'expression', expression: { '>=': [{ var: 'guests' }, 8] } } },
    { id: 'e5', source: 'big', target: 'ok' },
  ],
}

t.test('a deterministic graph runs with no LLM: greeting, question, branch, end', async (t) => {
  const rt = runtime(booking)
  const opening = await collect(rt.start(signal()))
  t.same(says(opening), ['Hi friend!', 'How many guests?'])
  t.equal(rt.state.nodeId, 'ask')
  const reply = await collect(rt.turn('we are ten people', signal()))
  t.same(says(reply), ['A table for 10: we will call you.'])
  t.match(reply, [
    { type: 'variable', name: 'guests', value: 10 },
    { type: 'node', node_id: 'big' },
    { type: 'node', node_id: 'large' },
    { type: 'say' },
    { type: 'end', disposition: 'large_party' },
  ])
  t.equal(rt.state.ended, true)
  t.same(
    rt.state.history.map((h) => h.role),
    ['assistant', 'assistant', 'user', 'assistant'],
  )
  t.throws(() => rt.turn('hello?', signal()), { code: 'session_ended' })
})

t.test('seeded variables fill templates; the other branch is taken', async (t) => {
  const rt = runtime(booking, {}, { name: 'Ayşe' })
  t.same(says(await collect(rt.start(signal()))), ['Hi Ayşe!', 'How many guests?'])
  t.same(says(await collect(rt.turn('iki', signal()))), ['Booked for 2.'])
})

t.test('an unusable answer reprompts, and max attempts takes its own edge', async (t) => {
  const rt = runtime(booking)
  await collect(rt.start(signal()))
  t.same(says(await collect(rt.turn('not sure', signal()))), ['Sorry, how many people?'])
  t.equal(rt.state.attempts, 1)
  const last = await collect(rt.turn('hmm', signal()))
  t.same(says(last), ['Let us try another time.'])
  t.match(last.at(-1), { type: 'end', disposition: 'no_answer' })
})

const toolGraph = (runner?: ToolRunner) =>
  runtime(
    {
      variables: [{ name: 'ref', type: 'string' }],
      nodes: [
        { id: 'start', type: 'start' },
        {
          id: 'book',
          type: 'tool',
          data: { action: { integration: 'calcom', action: 'create_booking' }, input: { day: '{{system.current_date}}' }, output: { ref: 'booking.uid' } },
        },
        { id: 'done', type: 'end', data: { message: 'Your reference is {{ref}}.' } },
        { id: 'sorry', type: 'end', data: { message: 'Booking failed.', disposition: 'failed' } },
      ],
      edges: [
        { id: 'a', source: 'start', target: 'book' },
        { id: 'b', source: 'book', target: 'done', condition: { kind: 'outcome', outcome: 'success' } },
        { id: 'c', source: 'book', target: 'sorry', condition: { kind: 'outcome', outcome: 'failure' } },
      ],
    },
    runner ? { tools: runner } : {},
  )

t.test('a tool node passes rendered input, maps output to variables and branches on its outcome', async (t) => {
  const seen: unknown[] = []
  const ok = toolGraph({ run: async (ref, input) => (seen.push({ ref, input }), { ok: true, output: { booking: { uid: 'BK-7' } } }) })
  const events = await collect(ok.start(signal()))
  t.same(seen, [{ ref: { integration: 'calcom', action: 'create_booking' }, input: { day: '2026-11-22' } }])
  t.same(says(events), ['Your reference is BK-7.'])
  t.match(events, [
    { type: 'node' },
    { type: 'node' },
    { type: 'tool_call', integration: 'calcom' },
    { type: 'tool_result', ok: true },
    { type: 'variable', name: 'ref', value: 'BK-7' },
  ])
  const failing = toolGraph({ run: async () => ({ ok: false, error: 'calendar down' }) })
  t.same(says(await collect(failing.start(signal()))), ['Booking failed.'])
  t.same(says(await collect(toolGraph().start(signal()))), ['Booking failed.'], 'no tool runner counts as a failure')
})

const support: z.input<typeof Definition> = {
  variables: [{ name: 'order_id', type: 'string' }],
  nodes: [
    { id: 'start', type: 'start', data: { first_message: { mode: 'static', text: 'Support here.' } } },
    {
      id: 'chat',
      type: 'conversation',
      data: {
        prompt: 'Help with orders.',
        tools: [{ integration: 'shop', action: 'lookup' }],
        extract: [{ variable: 'order_id', description: 'The order number' }],
      },
    },
    { id: 'bye', type: 'end', data: { message: 'Bye!', disposition: 'resolved' } },
    { id: 'human', type: 'transfer', global: { intent: 'The caller asks for a human' }, data: { target: '+905551112233', message: 'Connecting you.' } },
  ],
  edges: [
    { id: 'e1', source: 'start', target: 'chat' },
    { id: 'done', source: 'chat', target: 'bye', condition: { kind: 'intent', description: 'The caller is satisfied' } },
  ],
}

t.test('without an LLM a conversation node reports provider_not_configured and keeps waiting', async (t) => {
  const rt = runtime(support)
  await collect(rt.start(signal()))
  const events = await collect(rt.turn('where is my order?', signal()))
  t.match(events, [{ type: 'error', code: 'provider_not_configured' }])
  t.equal(rt.state.nodeId, 'chat')
  t.equal(rt.state.ended, false)
})

t.test('an LLM turn streams text, runs tools, sets extracted variables and exits by intent', async (t) => {
  const llm = new ScriptedLlm([
    [
      text('Let me '),
      text('check. '),
      call('shop__lookup', { order: '42' }),
      call('set_variables', { order_id: '42', other: 'x' }),
      { type: 'usage', model: 'm', prompt_tokens: 10, completion_tokens: 3 },
    ],
    [text('It ships tomorrow.')],
    [text('Glad to help.'), call('transition_done')],
  ])
  const tools: ToolRunner = { run: async () => ({ ok: true, output: { status: 'shipped' } }) }
  const rt = runtime(support, { llm, tools })
  await collect(rt.start(signal()))
  const first = await collect(rt.turn('where is order 42?', signal()))
  t.same(
    first.filter((e) => e.type === 'text_delta').map((e) => (e as { text: string }).text),
    ['Let me ', 'check. ', 'It ships tomorrow.'],
  )
  t.same(says(first), ['Let me check. It ships tomorrow.'])
  // Usage arrives with the stream; tool calls run once the model has finished that response.
  t.match(first, [
    { type: 'text_delta' },
    { type: 'text_delta' },
    { type: 'usage', prompt_tokens: 10 },
    { type: 'tool_call', call_id: 'call_shop__lookup', input: { order: '42' } },
    { type: 'tool_result', ok: true },
    { type: 'variable', name: 'order_id', value: '42' },
  ])
  t.notOk(
    first.some((e) => e.type === 'variable' && e.name === 'other'),
    'only declared extract variables are set',
  )
  t.match(llm.requests[0]!.tools.map((x) => x.name).sort(), ['goto_human', 'set_variables', 'shop__lookup', 'transition_done'])
  t.match(llm.requests[1]!.messages.at(-1), { role: 'tool', tool_call_id: 'call_set_variables' })
  t.match(llm.requests[0]!.messages[0]!.content, /Help with orders\./)
  const second = await collect(rt.turn('great, thanks', signal()))
  t.same(says(second), ['Glad to help.', 'Bye!'])
  t.match(second.at(-1), { type: 'end', disposition: 'resolved' })
})

t.test('a global node is reachable from any conversation by its intent', async (t) => {
  const llm = new ScriptedLlm([[call('goto_human')]])
  const rt = runtime(support, { llm })
  await collect(rt.start(signal()))
  const events = await collect(rt.turn('let me talk to a person', signal()))
  t.same(says(events), ['Connecting you.'])
  t.match(
    events.filter((e) => e.type === 'transfer' || e.type === 'end'),
    [
      { type: 'transfer', target: '+905551112233', mode: 'cold' },
      { type: 'end', disposition: 'transferred' },
    ],
  )
})

t.test('aborting mid-stream throws and leaves the state where the turn began', async (t) => {
  let release!: () => void
  const gate = new Promise<void>((r) => (release = r))
  const llm = new ScriptedLlm([[text('Partial answer'), { gate }, call('set_variables', { order_id: '9' })]])
  const rt = runtime(support, { llm })
  await collect(rt.start(signal()))
  const before = rt.state
  const ac = new AbortController()
  const seen: RuntimeEvent[] = []
  const turn = (async () => {
    for await (const e of rt.turn('order 9 please', ac.signal)) {
      seen.push(e)
      if (e.type === 'text_delta') ac.abort()
    }
  })()
  await t.rejects(turn)
  release()
  t.match(seen, [{ type: 'text_delta', text: 'Partial answer' }])
  const after = rt.state
  t.equal(after.nodeId, before.nodeId)
  t.same(after.variables, before.variables, 'no variable from the aborted turn')
  t.same(after.history, [...before.history, { role: 'user', text: 'order 9 please' }], 'the caller’s words are kept, the partial reply is not')
})

t.test('a graph that loops without waiting stops with graph_loop', async (t) => {
  const rt = runtime({
    nodes: [
      { id: 'start', type: 'start' },
      { id: 'a', type: 'say', data: { text: 'again' } },
    ],
    edges: [
      { id: 'e1', source: 'start', target: 'a' },
      { id: 'e2', source: 'a', target: 'a' },
    ],
  })
  const events = await collect(rt.start(signal()))
  t.match(
    events.filter((e) => e.type === 'error' || e.type === 'end'),
    [
      { type: 'error', code: 'graph_loop' },
      { type: 'end', disposition: 'error' },
    ],
  )
})

t.test('a knowledge node speaks the best passage when no LLM is configured', async (t) => {
  const rt = runtime(
    {
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'kb', type: 'knowledge', data: { query: 'opening hours' } },
        { id: 'end', type: 'end' },
      ],
      edges: [
        { id: 'a', source: 'start', target: 'kb' },
        { id: 'b', source: 'kb', target: 'end' },
      ],
    },
    { knowledge: { search: async (q, k) => [{ document_id: 'd', chunk_id: 'c', text: `We open at 9 (${q}, top ${k}).`, score: 1 }] } },
  )
  t.same(says(await collect(rt.start(signal()))), ['We open at 9 (opening hours, top 4).'])
})

t.test('a number answer outside min and max counts as not understood', async (t) => {
  const rt = runtime({
    variables: [{ name: 'rating', type: 'number' }],
    nodes: [
      { id: 'start', type: 'start' },
      {
        id: 'ask',
        type: 'collect',
        data: { variable: 'rating', value_type: 'number', prompt: 'From 1 to 5?', reprompt: 'Please say a number from 1 to 5.', min: 1, max: 5 },
      },
      { id: 'end', type: 'end', data: { message: 'You said {{rating}}.' } },
    ],
    edges: [
      { id: 'a', source: 'start', target: 'ask' },
      { id: 'b', source: 'ask', target: 'end' },
    ],
  })
  await collect(rt.start(signal()))
  t.same(says(await collect(rt.turn('nine', signal()))), ['Please say a number from 1 to 5.'])
  t.same(says(await collect(rt.turn('four', signal()))), ['You said 4.'])
})

t.test('a collect answer that does not parse is restated by the LLM and checked by the same parser', async (t) => {
  const graph = {
    variables: [{ name: 'day', type: 'date' as const }],
    nodes: [
      { id: 'start', type: 'start' as const },
      { id: 'ask', type: 'collect' as const, data: { variable: 'day', value_type: 'date' as const, prompt: 'Which day?', reprompt: 'Sorry, which day?' } },
      { id: 'end', type: 'end' as const, data: { message: 'Booked for {{day}}.' } },
    ],
    edges: [
      { id: 'a', source: 'start', target: 'ask' },
      { id: 'b', source: 'ask', target: 'end' },
    ],
  }
  const llm = new ScriptedLlm([[call('record_value', { value: '2026-11-24' })], [call('record_value', { value: 'someday' })]])
  const rt = runtime(graph, { llm })
  await collect(rt.start(signal()))
  t.same(says(await collect(rt.turn('the Tuesday after this weekend', signal()))), ['Booked for 2026-11-24.'])
  t.match(llm.requests[0]!.messages[0]!.content, /Which day\?.*YYYY-MM-DD \(today is 2026-11-22\)/s)
  t.equal(llm.requests[0]!.temperature, 0)

  const again = runtime(graph, { llm })
  await collect(again.start(signal()))
  t.same(says(await collect(again.turn('whenever suits you', signal()))), ['Sorry, which day?'], 'an answer the parser refuses is no answer')
  const direct = runtime(graph, { llm })
  await collect(direct.start(signal()))
  t.same(says(await collect(direct.turn('2026-12-01', signal()))), ['Booked for 2026-12-01.'])
  t.equal(llm.requests.length, 2, 'a parseable answer never reaches the LLM')
})

t.test('replyHeard: the history keeps only the words of a cut reply the caller heard', async (t) => {
  const make = (history: { role: 'user' | 'assistant'; text: string }[]) => {
    const def = Definition.parse({ nodes: [{ id: 'start', type: 'start' }], edges: [] })
    return new GraphRuntime(def, config, { now }, { ...initialState(def), started: true, history }, { channel: 'web' })
  }
  const said = [
    { role: 'user' as const, text: 'when are you open' },
    { role: 'assistant' as const, text: 'We open at nine.' },
    { role: 'assistant' as const, text: 'On Saturdays  at ten.' },
  ]
  let r = make(said)
  r.replyHeard('We open at nine. On Saturdays')
  t.same(
    r.state.history.slice(1),
    [
      { role: 'assistant', text: 'We open at nine.' },
      { role: 'assistant', text: 'On Saturdays' },
    ],
    'a line cut inside',
  )
  r = make(said)
  r.replyHeard('We open')
  t.same(r.state.history.slice(1), [{ role: 'assistant', text: 'We open' }], 'later lines never heard are gone')
  r = make(said)
  r.replyHeard('')
  t.same(r.state.history, [{ role: 'user', text: 'when are you open' }], 'nothing heard: no reply')
  r = make([{ role: 'user', text: 'when are you open' }])
  r.replyHeard('We open at')
  t.same(r.state.history.at(-1), { role: 'assistant', text: 'We open at' }, 'an aborted turn left no lines: the heard words are added')
  r = make(said)
  r.replyHeard('We open at nine. On Saturdays at ten.')
  t.same(r.state.history, said, 'heard in full: unchanged')
})
