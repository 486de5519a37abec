import t from 'tap'
import type { z } from 'zod'
import {
  AgentConfig,
  Definition,
  GraphRuntime,
  initialState,
  validateDefinition,
  type LlmChunk,
  type RuntimeEvent,
  type RuntimeIO,
  type RuntimeState,
} from '../../../engine/graph-runtime/index.js'
import { ScriptedLlm, text } from '../../../engine/graph-runtime/testing/scripted-llm.js'

// Issue #18: the runtime cannot fail on anything validation accepted, nor on what an action or a
// model hands it. Values from outside are bounded before they are stored (JSON.stringify of the
// stored state recursed); a failure of the runtime itself ends the session with a stable error
// code instead of throwing (a 500 on a text turn); a provider's error still reaches the caller.

const config = AgentConfig.parse({})
const now = () => new Date('2026-11-22T10:00:00Z')
const signal = () => new AbortController().signal
const nestedJson = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels)

function runtime(def: z.input<typeof Definition>, io: Partial<RuntimeIO> = {}, state?: RuntimeState) {
  const parsed = Definition.parse(def)
  t.same(validateDefinition(parsed), [], 'the graph is valid')
  return new GraphRuntime(parsed, config, { now, ...io }, state ?? initialState(parsed), { channel: 'chat' })
}
async function events(stream: AsyncIterable<RuntimeEvent>): Promise<RuntimeEvent[]> {
  const out: RuntimeEvent[] = []
  for await (const e of stream) out.push(e)
  return out
}
const errors = (list: RuntimeEvent[]) => list.flatMap((e) => (e.type === 'error' ? [e.code] : []))

const toolGraph: z.input<typeof Definition> = {
  variables: [{ name: 'result', type: 'object' }],
  nodes: [
    { id: 'start', type: 'start' },
    { id: 'fetch', type: 'tool', data: { action: { integration: 'shop', action: 'lookup' }, output: { result: 'data' } } },
    { id: 'ok', type: 'end', data: { message: 'Got it.', disposition: 'ok' } },
    { id: 'failed', type: 'end', data: { message: 'That failed.', disposition: 'failed' } },
  ],
  edges: [
    { id: 'e1', source: 'start', target: 'fetch' },
    { id: 'e2', source: 'fetch', target: 'ok', condition: { kind: 'outcome', outcome: 'success' } },
    { id: 'e3', source: 'fetch', target: 'failed', condition: { kind: 'outcome', outcome: 'failure' } },
  ],
}

t.test("an action's result nested 100,000 levels deep is the action failing; state and events stay serializable", async (t) => {
  const deep = JSON.parse(nestedJson(100_000))
  const rt = runtime(toolGraph, { tools: { run: async () => ({ ok: true, output: { data: deep } }) } })
  const opening = await events(rt.start(signal()))
  t.match(
    opening.find((e) => e.type === 'tool_result'),
    { ok: false, error: /nests deeper than 32 levels/ },
  )
  t.match(opening.at(-1), { type: 'end', disposition: 'failed' })
  t.doesNotThrow(() => JSON.stringify({ state: rt.state, opening }))
  t.equal(rt.state.variables.result, undefined)
})

t.test("an action's result of 32 levels is used, and a runner returning no outcome is a failure", async (t) => {
  const fine = runtime(toolGraph, { tools: { run: async () => ({ ok: true, output: { data: JSON.parse(nestedJson(31)) } }) } })
  t.match((await events(fine.start(signal()))).at(-1), { type: 'end', disposition: 'ok' })
  t.equal(JSON.stringify(fine.state.variables.result), nestedJson(31))
  const broken = runtime(toolGraph, { tools: { run: async () => undefined as never } })
  const opening = await events(broken.start(signal()))
  t.match(
    opening.find((e) => e.type === 'tool_result'),
    { ok: false, error: 'The action runner returned no outcome' },
  )
  t.same(errors(opening), [])
})

const chatGraph: z.input<typeof Definition> = {
  variables: [{ name: 'details', type: 'object' }],
  nodes: [
    { id: 'start', type: 'start' },
    {
      id: 'chat',
      type: 'conversation',
      data: { prompt: 'Help.', tools: [{ integration: 'shop', action: 'lookup' }], extract: [{ variable: 'details', description: 'Order details' }] },
    },
    { id: 'bye', type: 'end' },
  ],
  edges: [
    { id: 'e1', source: 'start', target: 'chat' },
    { id: 'e2', source: 'chat', target: 'bye', condition: { kind: 'intent', description: 'The caller is done' } },
  ],
}
const rawCall = (name: string, args: string, id = `call_${name}`): LlmChunk => ({ type: 'tool_call', id, name, arguments: args })

t.test('a model sending a variable or tool arguments 50,000 levels deep is told no; nothing is stored or run', async (t) => {
  const runs: unknown[] = []
  const llm = new ScriptedLlm([
    [rawCall('set_variables', `{"details":${nestedJson(50_000)}}`), rawCall('shop__lookup', `{"q":${nestedJson(50_000)}}`)],
    [text('Done.')],
  ])
  const rt = runtime(chatGraph, { llm, tools: { run: async (_ref, input) => (runs.push(input), { ok: true, output: null }) } })
  await events(rt.start(signal()))
  const turn = await events(rt.turn('my order', signal()))
  t.same(runs, [], 'the action did not run')
  t.notOk(turn.some((e) => e.type === 'variable' || e.type === 'tool_call'))
  t.same(errors(turn), [])
  const toolMessages = llm.requests[1]!.messages.filter((m) => m.role === 'tool').map((m) => JSON.parse(m.content))
  t.match(toolMessages, [{ stored: [], refused: ['details'] }, { error: /arguments refused: JSON may nest at most 32 levels/ }])
  t.doesNotThrow(() => JSON.stringify(rt.state))
})

t.test('a template whose sections multiply past the render budget ends the session with template_too_large, at once', async (t) => {
  const section = '{{#items}}'.repeat(4) + 'x' + '{{/items}}'.repeat(4)
  const rt = runtime({
    variables: [{ name: 'items', type: 'object', default: Array.from({ length: 100 }, (_, i) => i) }],
    nodes: [
      { id: 'start', type: 'start' },
      { id: 'say', type: 'say', data: { text: section } },
      { id: 'bye', type: 'end' },
    ],
    edges: [
      { id: 'e1', source: 'start', target: 'say' },
      { id: 'e2', source: 'say', target: 'bye' },
    ],
  })
  const started = performance.now()
  const opening = await events(rt.start(signal()))
  t.ok(performance.now() - started < 1000, 'a 10^8-step render is stopped early')
  t.same(errors(opening), ['template_too_large'])
  t.match(opening.at(-1), { type: 'end', disposition: 'error' })
  t.equal(rt.state.ended, true)
})

t.test('names inside a section resolve to own values only: Object.prototype is never called', async (t) => {
  const rt = runtime({
    variables: [{ name: 'order', type: 'object', default: { items: ['tea'] } }],
    nodes: [
      { id: 'start', type: 'start' },
      { id: 'say', type: 'say', data: { text: '{{#order}}[{{__defineGetter__}}{{constructor}}{{toString}}{{items.length}}]{{/order}}' } },
      { id: 'bye', type: 'end' },
    ],
    edges: [
      { id: 'e1', source: 'start', target: 'say' },
      { id: 'e2', source: 'say', target: 'bye' },
    ],
  })
  const opening = await events(rt.start(signal()))
  t.same(errors(opening), [])
  t.match(opening, [{ type: 'node' }, { type: 'node' }, { type: 'say', text: '[1]' }])
})

t.test('variables named after Object.prototype members are refused by validation', async (t) => {
  for (const name of ['__proto__', 'constructor', 'toString', '__defineGetter__', 'hasOwnProperty']) {
    const def = Definition.parse({
      variables: [{ name, type: 'string' }],
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'bye', type: 'end' },
      ],
      edges: [{ id: 'e', source: 'start', target: 'bye' }],
    })
    t.match(validateDefinition(def), [{ loc: ['variables', 0, 'name'], type: 'graph.reserved_variable' }], name)
  }
})

t.test("the runtime's own failure ends the session with runtime_error instead of throwing", async (t) => {
  const def: z.input<typeof Definition> = {
    variables: [{ name: 'n', type: 'number' }],
    nodes: [
      { id: 'start', type: 'start' },
      { id: 'ask', type: 'collect', data: { variable: 'n', value_type: 'number', prompt: 'How many?' } },
      { id: 'bye', type: 'end' },
    ],
    edges: [
      { id: 'e1', source: 'start', target: 'ask' },
      { id: 'e2', source: 'ask', target: 'bye' },
    ],
  }
  const parsed = Definition.parse(def)
  // Stored states that lost a part: the failure is the runtime's (storing the answer, or noting
  // the caller's words before the turn), not any provider's.
  const broken: Partial<RuntimeState>[] = [{ variables: null as never }, { history: null as never }]
  for (const part of broken) {
    const state = { ...initialState(parsed), started: true, nodeId: 'ask', ...part }
    const rt = runtime(def, {}, state)
    const turn = await events(rt.turn('three', signal()))
    t.match(
      turn.slice(-2),
      [
        { type: 'error', code: 'runtime_error', retryable: false },
        { type: 'end', disposition: 'error' },
      ],
      Object.keys(part).join(),
    )
    t.notMatch(JSON.stringify(turn), /TypeError|Cannot|at /, 'no stack or internal message in the events')
    t.equal(rt.state.ended, true)
  }
})

t.test("a provider's error still reaches the caller as thrown (the API maps it to 502/503)", async (t) => {
  const upstream = Object.assign(new Error('provider down'), { code: 'upstream_unavailable', status: 503 })
  const llm = {
    // biome-ignore lint/correctness/useYield: a stream that fails before its first chunk
    async *stream(): AsyncIterable<LlmChunk> {
      throw upstream
    },
  }
  const rt = runtime(chatGraph, { llm })
  await events(rt.start(signal()))
  await t.rejects(events(rt.turn('hello', signal())), upstream)
  t.equal(rt.state.ended, false)
  const knowledgeDown = runtime(
    {
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'kb', type: 'knowledge', data: {} },
        { id: 'bye', type: 'end' },
      ],
      edges: [
        { id: 'e1', source: 'start', target: 'kb' },
        { id: 'e2', source: 'kb', target: 'bye' },
      ],
    },
    {
      knowledge: {
        search: async () => {
          throw 'a string thrown'
        },
      },
    }, // eslint-disable-line @typescript-eslint/only-throw-error
  )
  await t.rejects(events(knowledgeDown.start(signal())), { message: 'a string thrown' })
})
