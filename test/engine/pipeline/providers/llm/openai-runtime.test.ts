import t from 'tap'
import type { z } from 'zod'
import { AgentConfig, Definition, GraphRuntime, initialState, type RuntimeEvent, type ToolRunner } from '../../../../../engine/graph-runtime/index.js'
import { type OpenAiLlm, ProviderError } from '../../../../../engine/pipeline/providers/llm/index.js'
import { setup } from './fixture.js'

// The graph runtime driven by the real provider, over real HTTP, against the stand-in.

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
  ],
  edges: [
    { id: 'e1', source: 'start', target: 'chat' },
    { id: 'done', source: 'chat', target: 'bye', condition: { kind: 'intent', description: 'The caller is satisfied' } },
  ],
}

function runtime(llm: OpenAiLlm, tools?: ToolRunner) {
  const def = Definition.parse(support)
  return new GraphRuntime(def, AgentConfig.parse({}), { llm, now: () => new Date('2026-11-22T10:00:00Z'), ...(tools ? { tools } : {}) }, initialState(def), {
    channel: 'chat',
  })
}

async function collect(stream: AsyncIterable<RuntimeEvent>): Promise<RuntimeEvent[]> {
  const out: RuntimeEvent[] = []
  for await (const e of stream) out.push(e)
  return out
}
const says = (events: RuntimeEvent[]) => events.flatMap((e) => (e.type === 'say' ? [e.text] : []))
const signal = () => new AbortController().signal

t.test('a conversation node runs on OpenAiLlm: streamed text, a tool call, extraction, an intent exit', async (t) => {
  const { server, llm } = await setup(t)
  server.script(
    {
      text: ['Let me ', 'check. '],
      toolCalls: [
        { id: 'call_lookup', name: 'shop__lookup', arguments: { order: '42' } },
        { id: 'call_vars', name: 'set_variables', arguments: { order_id: '42' } },
      ],
      usage: { prompt_tokens: 120, completion_tokens: 9 },
    },
    { text: ['It ships ', 'tomorrow.'] },
    { text: 'Glad to help.', toolCalls: [{ id: 'call_exit', name: 'transition_done', arguments: {} }] },
  )
  const inputs: unknown[] = []
  const rt = runtime(llm, { run: async (ref, input) => (inputs.push({ ref, input }), { ok: true, output: { status: 'shipped' } }) })
  t.same(says(await collect(rt.start(signal()))), ['Support here.'])

  const first = await collect(rt.turn('where is order 42?', signal()))
  t.same(
    first.filter((e) => e.type === 'text_delta').map((e) => (e as { text: string }).text),
    ['Let me ', 'check. ', 'It ships ', 'tomorrow.'],
  )
  t.same(says(first), ['Let me check. It ships tomorrow.'])
  t.same(inputs, [{ ref: { integration: 'shop', action: 'lookup' }, input: { order: '42' } }])
  t.match(
    first.filter((e) => ['usage', 'tool_call', 'tool_result', 'variable'].includes(e.type)),
    [
      { type: 'usage', prompt_tokens: 120, completion_tokens: 9 },
      { type: 'tool_call', call_id: 'call_lookup', integration: 'shop', action: 'lookup' },
      { type: 'tool_result', call_id: 'call_lookup', ok: true },
      { type: 'variable', name: 'order_id', value: '42' },
      { type: 'usage', model: 'gpt-4o-mini' },
    ],
  )
  t.equal(rt.state.variables.order_id, '42')

  // What the provider put on the wire, as the stand-in received it.
  const [r1, r2] = server.requests
  t.match(r1!.messages[0], { role: 'system', content: /^Help with orders\./ })
  t.same(r1!.messages.at(-1), { role: 'user', content: 'where is order 42?' })
  t.same(r1!.tools!.map((x) => x.function.name).sort(), ['set_variables', 'shop__lookup', 'transition_done'])
  t.match(
    r1!.tools!.find((x) => x.function.name === 'set_variables'),
    { type: 'function', function: { parameters: { type: 'object', properties: { order_id: { type: 'string', description: 'The order number' } } } } },
  )
  t.same(r2!.messages.slice(-3), [
    {
      role: 'assistant',
      content: 'Let me check. ',
      tool_calls: [
        { id: 'call_lookup', type: 'function', function: { name: 'shop__lookup', arguments: '{"order":"42"}' } },
        { id: 'call_vars', type: 'function', function: { name: 'set_variables', arguments: '{"order_id":"42"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'call_lookup', content: '{"status":"shipped"}' },
    { role: 'tool', tool_call_id: 'call_vars', content: '{"stored":["order_id"]}' },
  ])

  const second = await collect(rt.turn('great, thanks', signal()))
  t.same(says(second), ['Glad to help.', 'Bye!'])
  t.match(second.at(-1), { type: 'end', disposition: 'resolved' })
  t.same(
    server.requests.map((r) => r.status),
    [200, 200, 200],
    'every request was one the strict stand-in accepted',
  )
})

t.test('with no script the stand-in echoes the caller, and that is what the agent says', async (t) => {
  const { llm } = await setup(t)
  const rt = runtime(llm)
  await collect(rt.start(signal()))
  t.same(says(await collect(rt.turn('Kargom nerede?', signal()))), ['You said: Kargom nerede?'])
  t.equal(rt.state.nodeId, 'chat')
})

t.test('barge-in: aborting the turn stops the HTTP stream and restores the state', async (t) => {
  const { server, llm } = await setup(t, {}, { tokensPerSecond: 30 })
  server.script({
    text: 'This is a long answer that the caller interrupts before it is over',
    toolCalls: [{ name: 'set_variables', arguments: { order_id: '7' } }],
  })
  const rt = runtime(llm)
  await collect(rt.start(signal()))
  const before = rt.state
  const ac = new AbortController()
  const seen: RuntimeEvent[] = []
  await t.rejects(
    (async () => {
      for await (const e of rt.turn('order 7', ac.signal)) {
        seen.push(e)
        if (e.type === 'text_delta') ac.abort()
      }
    })(),
    { name: 'AbortError' },
  )
  t.equal(await server.requests[0]!.ended, 'client_closed')
  t.same(seen.filter((e) => e.type === 'text_delta').length, 1)
  t.same(rt.state.variables, before.variables)
  t.same(rt.state.history, [...before.history, { role: 'user', text: 'order 7' }])
})

t.test('an upstream failure leaves the turn as a typed llm ProviderError', async (t) => {
  const { server, llm } = await setup(t, { maxRetries: 0 })
  server.fail({ kind: 'status', status: 503 })
  const rt = runtime(llm)
  await collect(rt.start(signal()))
  const failed = await collect(rt.turn('hello', signal())).catch((e: unknown) => e)
  t.ok(failed instanceof ProviderError)
  t.match(failed, { category: 'llm', code: 'upstream_error', status: 503, retryable: true })
})
