import t from 'tap'
import type { z } from 'zod'
import { AgentConfig, Definition, GraphRuntime, initialState, type RuntimeEvent, validateDefinition } from '../../../engine/graph-runtime/index.js'
import { dtmfKeys } from '../../../engine/graph-runtime/dtmf-keys.js'

// The two nodes that act on a phone line: dtmf (keys the agent presses) and transfer (whose
// failure resumes the workflow by its failure edge).

const config = AgentConfig.parse({})
const now = () => new Date('2026-11-27T10:00:00Z')
const signal = () => new AbortController().signal
const runtime = (def: z.input<typeof Definition>, seed: Record<string, unknown> = {}) => {
  const parsed = Definition.parse(def)
  return new GraphRuntime(parsed, config, { now }, initialState(parsed, seed), { channel: 'phone' })
}
async function collect(stream: AsyncIterable<RuntimeEvent>): Promise<RuntimeEvent[]> {
  const out: RuntimeEvent[] = []
  for await (const e of stream) out.push(e)
  return out
}
const says = (events: RuntimeEvent[]) => events.flatMap((e) => (e.type === 'say' ? [e.text] : []))

const ivr: z.input<typeof Definition> = {
  variables: [{ name: 'account', type: 'string', default: '12-34 5' }],
  nodes: [
    { id: 'start', type: 'start', data: { first_message: { mode: 'static', text: 'Calling the bank.' } } },
    { id: 'menu', type: 'dtmf', data: { digits: '2' } },
    { id: 'acct', type: 'dtmf', data: { digits: '{{account}}#' } },
    { id: 'said', type: 'say', data: { text: 'Account entered.' } },
    { id: 'bye', type: 'end' },
  ],
  edges: [
    { id: 'e1', source: 'start', target: 'menu' },
    { id: 'e2', source: 'menu', target: 'acct' },
    { id: 'e3', source: 'acct', target: 'said' },
    { id: 'e4', source: 'said', target: 'bye' },
  ],
}

t.test('dtmf nodes press their keys, a template rendered and tidied, in the order of the graph', async (t) => {
  const events = await collect(runtime(ivr).start(signal()))
  t.same(
    events.filter((e) => e.type === 'say' || e.type === 'agent_dtmf').map((e) => (e.type === 'say' ? `say ${e.text}` : `keys ${e.digits}`)),
    ['say Calling the bank.', 'keys 2', 'keys 12345#', 'say Account entered.'],
  )
})

t.test('keys a template renders to something no key stands for: a warning, nothing pressed, the graph goes on', async (t) => {
  const events = await collect(runtime(ivr, { account: 'twelve' }).start(signal()))
  t.match(
    events.find((e) => e.type === 'error'),
    { code: 'dtmf_invalid', retryable: false },
  )
  t.same(
    events.filter((e) => e.type === 'agent_dtmf').map((e) => (e as { digits: string }).digits),
    ['2'],
  )
  t.same(says(events), ['Calling the bank.', 'Account entered.'])
})

t.test('dtmfKeys: the sixteen keys, separators dropped, at most 32', async (t) => {
  t.equal(dtmfKeys('+90 (555) 111-22.33'), '905551112233')
  t.equal(dtmfKeys('*9#abcd'), '*9#ABCD')
  t.equal(dtmfKeys('1e'), null)
  t.equal(dtmfKeys(''), null)
  t.equal(dtmfKeys('1'.repeat(32)), '1'.repeat(32))
  t.equal(dtmfKeys('1'.repeat(33)), null)
})

t.test('validation: fixed keys are checked on save; a dtmf node needs an always edge', async (t) => {
  const bad = Definition.parse({
    ...ivr,
    nodes: ivr.nodes.map((n) => (n.id === 'menu' ? { ...n, data: { digits: 'press two' } } : n)),
  })
  t.match(validateDefinition(bad), [{ type: 'graph.dtmf_digits', loc: ['nodes', 1, 'data', 'digits'] }])
  const stuck = Definition.parse({ ...ivr, edges: (ivr.edges ?? []).filter((e) => e.id !== 'e2') })
  t.match(validateDefinition(stuck), [{ type: 'graph.no_exit' }])
  t.notOk(Definition.safeParse({ ...ivr, nodes: [...ivr.nodes, { id: 'x', type: 'dtmf', data: { digits: '' } }] }).success, 'empty keys are refused')
  t.notOk(Definition.safeParse({ ...ivr, nodes: [...ivr.nodes, { id: 'x', type: 'dtmf', data: { digits: '1'.repeat(201) } }] }).success, 'bounded')
  t.same(validateDefinition(Definition.parse(ivr)), [])
})

const desk: z.input<typeof Definition> = {
  variables: [],
  nodes: [
    { id: 'start', type: 'start', data: { first_message: { mode: 'static', text: 'Hello.' } } },
    { id: 'human', type: 'transfer', data: { target: '+15550100', message: 'Transferring you.' } },
    { id: 'callback', type: 'say', data: { text: 'Nobody is free; we will call you back.' } },
    { id: 'bye', type: 'end', data: { disposition: 'callback' } },
  ],
  edges: [
    { id: 'e1', source: 'start', target: 'human' },
    { id: 'e2', source: 'human', target: 'callback', condition: { kind: 'outcome', outcome: 'failure' } },
    { id: 'e3', source: 'callback', target: 'bye' },
  ],
}

t.test('a failed transfer resumes the workflow by the transfer node’s failure edge', async (t) => {
  const rt = runtime(desk)
  const first = await collect(rt.start(signal()))
  t.match(first.at(-1), { type: 'end', disposition: 'transferred' })
  t.match(rt.state, { ended: true, transferFrom: 'human' })
  const after = await collect(rt.transferFailed(signal()))
  t.same(says(after), ['Nobody is free; we will call you back.'])
  t.match(after.at(-1), { type: 'end', disposition: 'callback' })
  t.throws(() => rt.transferFailed(signal()), { code: 'session_ended' }, 'only once, and only after a transfer')
})

t.test('with no failure edge, a failed transfer ends the session as transfer_failed', async (t) => {
  const rt = runtime({ ...desk, edges: (desk.edges ?? []).filter((e) => e.id === 'e1' || e.id === 'e3') })
  await collect(rt.start(signal()))
  const after = await collect(rt.transferFailed(signal()))
  t.same(after, [{ type: 'end', disposition: 'transfer_failed' }])
  t.throws(() => runtime(ivr).transferFailed(signal()), { code: 'session_ended' }, 'a session that never transferred')
})
