import t from 'tap'
import { startOpenAiStandIn } from '../../../engine/pipeline/providers/stand-ins/index.js'
import { startTestApp } from '../../helpers/app.js'
import { expectStatus } from '../../helpers/tenancy-fixtures.js'

// An agent's integration tools reach the model with each action's exact input schema, the one
// GET /integrations publishes, as the stand-in receives it in the request's `tools`.

const KEY = 'sk-tool-schema-test-8802'
const AGENT = {
  name: 'Tools',
  definition: {
    nodes: [
      { id: 'start', type: 'start' },
      {
        id: 'chat',
        type: 'conversation',
        data: {
          prompt: 'You help with bookings.',
          tools: [
            { integration: 'slack', action: 'post_message' },
            { integration: 'calcom', action: 'create_booking' },
            { integration: 'calendar', action: 'create_booking' },
          ],
        },
      },
      { id: 'bye', type: 'end' },
    ],
    edges: [
      { id: 'a', source: 'start', target: 'chat' },
      { id: 'b', source: 'chat', target: 'bye', condition: { kind: 'intent', description: 'The caller is done' } },
    ],
  },
}

type Published = { key: string; actions: { name: string; description: string; input_schema: Record<string, unknown> }[] }

t.test("the model is offered each integration action's own description and JSON schema", async (t) => {
  const llm = await startOpenAiStandIn({ apiKey: KEY })
  t.teardown(() => llm.close())
  const a = await startTestApp({ env: { OZAN_OPENAI_API_KEY: KEY, OZAN_OPENAI_BASE_URL: llm.url } })
  t.teardown(() => a.close())
  const token = (await a.register()).access_token as string
  const wf = expectStatus(await a.request('POST', '/api/v1/workflows', { token, body: AGENT }), 201, 'create agent')
  expectStatus(await a.request('POST', `/api/v1/workflows/${wf.id}/publish`, { token }), 200, 'publish')
  const started = expectStatus(await a.request('POST', `/api/v1/workflows/${wf.id}/sessions`, { token }), 201, 'start session')
  const reply = await a.request('POST', `/api/v1/workflows/${wf.id}/sessions/${started.session_id}/messages`, { token, body: { text: 'Book me for Monday' } })
  t.equal(reply.status, 200, reply.text)

  const catalog = expectStatus<Published[]>(await a.request('GET', '/api/v1/integrations', { token }), 200, 'catalog')
  const published = (key: string, action: string) => catalog.find((i) => i.key === key)!.actions.find((x) => x.name === action)!
  const offered = Object.fromEntries(llm.requests[0]!.tools!.map((x) => [x.function.name, x.function]))
  t.equal(llm.requests[0]!.status, 200, 'the stand-in accepted the tools')

  for (const [key, action] of [
    ['slack', 'post_message'],
    ['calcom', 'create_booking'],
  ] as const) {
    const { $schema, ...schema } = published(key, action).input_schema
    t.equal($schema, 'https://json-schema.org/draft/2020-12/schema', 'the catalog names its dialect')
    t.same(
      offered[`${key}__${action}`],
      { name: `${key}__${action}`, description: published(key, action).description, parameters: schema },
      `${key}.${action}: the published schema, without $schema`,
    )
  }
  t.match(offered.slack__post_message!.parameters, {
    type: 'object',
    required: ['channel', 'text'],
    additionalProperties: false,
    properties: { channel: { type: 'string' }, thread_ts: { pattern: '^\\d+\\.\\d+$' } },
  })
  t.same(
    offered.calendar__create_booking!.parameters,
    { type: 'object', additionalProperties: true },
    'an integration that does not exist keeps the open schema',
  )
})
