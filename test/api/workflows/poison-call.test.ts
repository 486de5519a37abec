import t from 'tap'
import { skipWithoutEspeak } from '../../helpers/speech.js'
import { expectStatus } from '../../helpers/tenancy-fixtures.js'
import { VOICE_CONFIG, W, callScene, type CallScene } from '../calls/fixtures.js'

// Issue #18: with a poisoned agent, "web calls close 1011". Whatever validation accepts, a call
// starts; a failure of the runtime on a turn is an `error` event, `ended` and a clean close 1000.

const skip = await skipWithoutEspeak()
const nested = (levels: number) => JSON.parse('{"a":'.repeat(levels) + '1' + '}'.repeat(levels)) as unknown

async function voiceAgent(s: CallScene, definition: unknown): Promise<string> {
  const body = { name: 'Poison call', definition, config: VOICE_CONFIG }
  const id = expectStatus(await s.a.request('POST', W, { token: s.owner.token, body }), 201, 'create agent').id as string
  expectStatus(await s.a.request('POST', `${W}/${id}/publish`, { token: s.owner.token }), 200, 'publish')
  return id
}
const greetingGraph = (text: string, variables: unknown[]) => ({
  variables,
  nodes: [
    { id: 'start', type: 'start', data: { first_message: { mode: 'static', text } } },
    { id: 'chat', type: 'collect', data: { variable: 'name', value_type: 'text', prompt: 'Your name?' } },
  ],
  edges: [
    { id: 'e1', source: 'start', target: 'chat' },
    { id: 'e2', source: 'chat', target: 'chat' },
  ],
})

t.test('a call of an agent with a variable default nested 32 levels deep starts and greets', { skip, timeout: 60_000 }, async (t) => {
  const s = await callScene(t)
  await s.storeDeepgram()
  const id = await voiceAgent(
    s,
    greetingGraph('Hello there.', [
      { name: 'deep', type: 'object', default: nested(32) },
      { name: 'name', type: 'string' },
    ]),
  )
  const c = await s.connect(expectStatus(await s.mint(id, undefined, { variables: { deep: nested(32) } }), 201, 'mint').ws_url)
  c.keepBinaries = false
  const greeting = await c.event((e) => e.type === 'transcript' && e['role'] === 'agent' && e['final'] === true, 15_000)
  t.equal(greeting['text'], 'Hello there. Your name?')
  c.ws.send(JSON.stringify({ type: 'stop' }))
  t.equal((await c.closed).code, 1000)
})

t.test('a call whose greeting overruns the render budget gets an error event, ended and close 1000, not 1011', { skip, timeout: 60_000 }, async (t) => {
  const s = await callScene(t)
  await s.storeDeepgram()
  const text = '{{#items}}'.repeat(4) + 'x' + '{{/items}}'.repeat(4)
  const id = await voiceAgent(
    s,
    greetingGraph(text, [
      { name: 'items', type: 'object', default: Array.from({ length: 100 }, (_, i) => i) },
      { name: 'name', type: 'string' },
    ]),
  )
  const c = await s.connect(expectStatus(await s.mint(id), 201, 'mint').ws_url)
  c.keepBinaries = false
  t.match(await c.event((e) => e.type === 'error', 15_000), { code: 'template_too_large' })
  // The graph ended the call, as it does for graph_loop: the agent's end.
  t.match(await c.event((e) => e.type === 'ended', 15_000), { reason: 'agent_ended' })
  t.equal((await c.closed).code, 1000)
  let detail: Record<string, unknown> = {}
  for (
    const started = Date.now();
    detail['status'] !== 'completed' && detail['status'] !== 'failed' && Date.now() - started < 5000;
    await new Promise((r) => setTimeout(r, 50))
  ) {
    const list = expectStatus(await s.a.request('GET', `/api/v1/sessions?channel=web&workflow_uuid=${id}`, { token: s.owner.token }), 200, 'list')
    if (list[0]) detail = expectStatus(await s.a.request('GET', `${W}/${id}/sessions/${list[0].id}`, { token: s.owner.token }), 200, 'detail')
  }
  // The graph ended it in error: a failed call with the runtime's code, as a text session records it.
  t.match(detail, { status: 'failed', disposition: 'error', error_code: 'template_too_large' })
})
