import t from 'tap'
import { startOpenAiStandIn } from '../../../engine/pipeline/providers/stand-ins/index.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'

const KEY = 'sk-iris-test-key-42'

async function setup(t: { teardown(fn: () => unknown): void }, withLlm = true) {
  const llm = await startOpenAiStandIn({ apiKey: KEY, firstTokenLatencyMs: 0, tokensPerSecond: 0 })
  t.teardown(() => llm.close())
  const a: TestApp = await startTestApp({ env: withLlm ? { OZAN_OPENAI_API_KEY: KEY, OZAN_OPENAI_BASE_URL: llm.url } : {} })
  t.teardown(() => a.close())
  const token = (await a.register()).access_token as string
  const wf = (await a.request('POST', '/api/v1/workflows', { token, body: { name: 'Survey', template_id: 'survey-tr' } })).body
  await a.request('POST', `/api/v1/workflows/${wf.id}/publish`, { token })
  const session = (await a.request('POST', `/api/v1/workflows/${wf.id}/sessions`, { token })).body.session_id as string
  await a.request('POST', `/api/v1/workflows/${wf.id}/sessions/${session}/messages`, { token, body: { text: 'hayır' } })
  return { a, llm, token, wf, session }
}

t.test('lists an agent’s recent sessions with a preview of the caller’s words', async (t) => {
  const { a, token, wf, session } = await setup(t, false)
  const res = await a.request('GET', `/api/v1/iris/sessions/${wf.id}`, { token })
  t.equal(res.status, 200)
  t.match(res.body, [{ session_id: session, status: 'completed', disposition: 'declined', preview: 'hayır' }])
  t.equal((await a.request('GET', `/api/v1/iris/sessions/00000000-0000-4000-8000-000000000000`, { token })).status, 404)
})

t.test('without an LLM the helper answers provider_not_configured', async (t) => {
  const { a, token, wf } = await setup(t, false)
  const res = await a.request('POST', '/api/v1/iris/chat', { token, body: { workflow_uuid: wf.id, message: 'Why did it end?' } })
  t.equal(res.status, 400)
  t.equal(res.body.error.code, 'provider_not_configured')
})

t.test('answers grounded in the graph and the session, and returns a checked proposal without applying it', async (t) => {
  const { a, llm, token, wf, session } = await setup(t)
  const draft = (await a.request('GET', `/api/v1/workflows/${wf.id}`, { token })).body.definition
  const changed = {
    ...draft,
    nodes: draft.nodes.map((n: { id: string; type: string; data: Record<string, unknown> }) =>
      n.type === 'end' && n.id === 'end_declined' ? { ...n, data: { ...n.data, disposition: 'declined_politely' } } : n,
    ),
  }
  llm.script({
    text: ['It ended because the caller said ', '"hayır" at the consent question.'],
    toolCalls: [{ name: 'propose_definition', arguments: { summary: 'Rename the decline disposition', definition: changed }, fragments: 4 }],
  })
  const res = await a.request('POST', '/api/v1/iris/chat', { token, body: { workflow_uuid: wf.id, session_id: session, message: 'Why did it end so fast?' } })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.reply, 'It ended because the caller said "hayır" at the consent question.')
  t.match(res.body.proposal, { summary: 'Rename the decline disposition', valid: true, problems: [] })
  const sent = llm.requests[0]!
  t.match(sent.messages[0]!.content, /ask_consent/, 'the graph is in the prompt')
  t.match(sent.messages[0]!.content, /user_message \{"text":"hayır"\}/, 'the session’s events are in the prompt')
  t.match(sent.messages.at(-1), { role: 'user', content: 'Why did it end so fast?' })
  t.same((await a.request('GET', `/api/v1/workflows/${wf.id}`, { token })).body.definition, draft, 'the draft is unchanged')
})

t.test('an invalid proposal is returned as such, with its problems', async (t) => {
  const { a, llm, token, wf } = await setup(t)
  const broken = {
    nodes: [
      { id: 'start', type: 'start' },
      { id: 'lost', type: 'say', data: { text: 'Hi {{nobody}}' } },
    ],
    edges: [],
  }
  llm.script({ text: [], toolCalls: [{ name: 'propose_definition', arguments: { summary: 'Simplify', definition: broken } }] })
  const res = await a.request('POST', '/api/v1/iris/chat', { token, body: { workflow_uuid: wf.id, message: 'Make it shorter' } })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.proposal.valid, false)
  t.ok(res.body.proposal.problems.some((p: { type: string }) => p.type === 'graph.undeclared_variable'))
  t.equal(res.body.reply, 'Simplify', 'with no text, the proposal’s summary is the reply')
})

t.test('a session of another agent, or another organization’s agent, is 404', async (t) => {
  const { a, token, session } = await setup(t, false)
  const other = (await a.request('POST', '/api/v1/workflows', { token, body: { name: 'Other' } })).body
  const res = await a.request('POST', '/api/v1/iris/chat', { token, body: { workflow_uuid: other.id, session_id: session, message: 'Why?' } })
  t.equal(res.status, 404)
  const stranger = (await a.register()).access_token
  t.equal((await a.request('POST', '/api/v1/iris/chat', { token: stranger, body: { workflow_uuid: other.id, message: 'Why?' } })).status, 404)
})
