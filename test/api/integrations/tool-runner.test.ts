import t, { type Test } from 'tap'
import type { z } from 'zod'
import { startCalcomStandIn, startSlackStandIn } from '../../../api/integrations/stand-ins/index.js'
import { AgentConfig, Definition, GraphRuntime, initialState, type RuntimeEvent, type RuntimeIO } from '../../../engine/graph-runtime/index.js'
import { ScriptedLlm, call, text } from '../../../engine/graph-runtime/testing/scripted-llm.js'
import { integrationApp, storeCredential } from './integration-fixtures.js'

// Graph tool nodes and LLM tools run the same actions as the API, through runnerFor(organization).

const CAL_KEY = 'cal_live_runtime_0123456789'
const config = AgentConfig.parse({})
const signal = () => new AbortController().signal

async function collect(stream: AsyncIterable<RuntimeEvent>): Promise<RuntimeEvent[]> {
  const out: RuntimeEvent[] = []
  for await (const e of stream) out.push(e)
  return out
}
const says = (events: RuntimeEvent[]) => events.flatMap((e) => (e.type === 'say' ? [e.text] : []))

const booking: z.input<typeof Definition> = {
  variables: [
    { name: 'guest_name', type: 'string' },
    { name: 'guest_email', type: 'string' },
    { name: 'ref', type: 'string' },
  ],
  nodes: [
    { id: 'start', type: 'start' },
    {
      id: 'book',
      type: 'tool',
      data: {
        action: { integration: 'calcom', action: 'create_booking' },
        input: { event_type_id: '1001', start: '2026-12-01T12:00:00+03:00', name: '{{guest_name}}', email: '{{guest_email}}', time_zone: 'Europe/Istanbul' },
        output: { ref: 'booking.uid' },
      },
    },
    { id: 'done', type: 'end', data: { message: 'Booked. Your reference is {{ref}}.', disposition: 'booked' } },
    { id: 'sorry', type: 'end', data: { message: 'Booking failed.', disposition: 'failed' } },
  ],
  edges: [
    { id: 'a', source: 'start', target: 'book' },
    { id: 'b', source: 'book', target: 'done', condition: { kind: 'outcome', outcome: 'success' } },
    { id: 'c', source: 'book', target: 'sorry', condition: { kind: 'outcome', outcome: 'failure' } },
  ],
}

function runtime(def: z.input<typeof Definition>, io: Partial<RuntimeIO>, seed: Record<string, unknown> = {}) {
  const parsed = Definition.parse(def)
  return new GraphRuntime(parsed, config, { now: () => new Date('2026-11-22T10:00:00Z'), ...io }, initialState(parsed, seed), { channel: 'chat' })
}

async function setup(t: Test) {
  const cal = await startCalcomStandIn({ apiKey: CAL_KEY })
  t.teardown(() => cal.close())
  const { a, owner } = await integrationApp(t, { allowLoopback: true })
  return { a, owner, cal }
}

t.test('a graph tool node books through the Cal.com stand-in and maps the uid into a variable', async (t) => {
  const { a, owner, cal } = await setup(t)
  await storeCredential(a, owner, 'calcom', { api_key: CAL_KEY, base_url: cal.url })
  const rt = runtime(booking, { tools: a.services.integrations.runnerFor(owner.organizationId) }, { guest_name: 'Zeynep', guest_email: 'zeynep@example.com' })
  const events = await collect(rt.start(signal()))
  t.equal(cal.bookings.length, 1)
  const uid = cal.bookings[0]!.uid
  t.match(cal.requests[0]!.body, { eventTypeId: 1001, start: '2026-12-01T09:00:00Z', attendee: { name: 'Zeynep', email: 'zeynep@example.com' } })
  t.match(events, [
    { type: 'node' },
    { type: 'node', node_id: 'book' },
    { type: 'tool_call', integration: 'calcom', action: 'create_booking' },
    { type: 'tool_result', ok: true, output: { booking: { uid } } },
    { type: 'variable', name: 'ref', value: uid },
  ])
  t.same(says(events), [`Booked. Your reference is ${uid}.`])
  t.match(events.at(-1), { type: 'end', disposition: 'booked' })
})

t.test('failures reach the graph as its failure branch: provider refusal, missing credential, bad input', async (t) => {
  const { a, owner, cal } = await setup(t)
  const runner = a.services.integrations.runnerFor(owner.organizationId)
  const missing = await collect(runtime(booking, { tools: runner }, { guest_name: 'Z', guest_email: 'z@example.com' }).start(signal()))
  t.match(missing, [{}, {}, { type: 'tool_call' }, { type: 'tool_result', ok: false, error: /^credential_missing: .*"calcom" credential/ }])
  t.same(says(missing), ['Booking failed.'])

  await storeCredential(a, owner, 'calcom', { api_key: 'cal_live_wrong', base_url: cal.url })
  const refused = await collect(runtime(booking, { tools: runner }, { guest_name: 'Z', guest_email: 'z@example.com' }).start(signal()))
  t.match(
    refused.find((e) => e.type === 'tool_result'),
    { ok: false, error: /^UnauthorizedException: Cal.com refused the booking: Invalid API Key/ },
  )

  await storeCredential(a, owner, 'calcom', { api_key: CAL_KEY, base_url: cal.url })
  const bad = await collect(runtime(booking, { tools: runner }, { guest_name: 'Z', guest_email: 'not an email' }).start(signal()))
  t.match(
    bad.find((e) => e.type === 'tool_result'),
    { ok: false, error: /^invalid_input: email: / },
  )
  t.same(says(bad), ['Booking failed.'])
  t.equal(cal.bookings.length, 0)
  t.match(await runner.run({ integration: 'nope', action: 'x' }, {}, signal()), { ok: false, error: /^unknown_integration/ })
  t.match(await runner.run({ integration: 'calcom', action: 'x' }, {}, signal()), {
    ok: false,
    error: /^unknown_action: calcom has no action x \(it has create_booking\)/,
  })
})

t.test('an LLM tool call runs the Slack action with the model’s arguments', async (t) => {
  const slack = await startSlackStandIn({ botToken: 'xoxb-llm-tool-0123456789' })
  t.teardown(() => slack.close())
  const { a, owner } = await integrationApp(t, { allowLoopback: true })
  await storeCredential(a, owner, 'slack', { bot_token: 'xoxb-llm-tool-0123456789', base_url: slack.url })
  const def: z.input<typeof Definition> = {
    variables: [],
    nodes: [
      { id: 'start', type: 'start', data: { first_message: { mode: 'static', text: 'Hi.' } } },
      { id: 'chat', type: 'conversation', data: { prompt: 'Notify the team when asked.', tools: [{ integration: 'slack', action: 'post_message' }] } },
    ],
    edges: [{ id: 'e1', source: 'start', target: 'chat' }],
  }
  const llm = new ScriptedLlm([[call('slack__post_message', { channel: '#alerts', text: 'Caller wants a callback' })], [text('Done, the team knows.')]])
  const rt = runtime(def, { llm, tools: a.services.integrations.runnerFor(owner.organizationId) })
  await collect(rt.start(signal()))
  const events = await collect(rt.turn('please tell the team to call me back', signal()))
  t.same(
    slack.messages.map((m) => [m.channel, m.text]),
    [['C0ALERTS002', 'Caller wants a callback']],
  )
  t.match(
    events.find((e) => e.type === 'tool_result'),
    { ok: true, output: { channel: 'C0ALERTS002', ts: slack.messages[0]!.ts } },
  )
  t.match(llm.requests[1]!.messages.at(-1), { role: 'tool', content: /C0ALERTS002/ })
  t.same(says(events), ['Done, the team knows.'])
})

t.test('the runner honours the turn’s abort signal', async (t) => {
  const cal = await startCalcomStandIn({ apiKey: CAL_KEY })
  t.teardown(() => cal.close())
  const { a, owner } = await integrationApp(t, { allowLoopback: true })
  await storeCredential(a, owner, 'calcom', { api_key: CAL_KEY, base_url: cal.url })
  cal.fail({ kind: 'hang' })
  const ac = new AbortController()
  setTimeout(() => ac.abort(), 100)
  const started = performance.now()
  const outcome = await a.services.integrations
    .runnerFor(owner.organizationId)
    .run(
      { integration: 'calcom', action: 'create_booking' },
      { event_type_id: 1001, start: '2026-12-01T09:00:00Z', name: 'Z', email: 'z@example.com' },
      ac.signal,
    )
  t.match(outcome, { ok: false, error: /^aborted/ })
  t.ok(performance.now() - started < 2000, 'returned soon after the abort, not at the 10 s deadline')
})
