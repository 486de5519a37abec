import t from 'tap'
import type { z } from 'zod'
import { AgentConfig, Definition, GraphRuntime, initialState, type RuntimeIO, type ToolRunner } from '../../../engine/graph-runtime/index.js'
import { ScriptedLlm, text } from '../../../engine/graph-runtime/testing/scripted-llm.js'

// Integration actions are offered to the LLM with the schema the tool runner describes; the
// runtime knows nothing of where that schema comes from (the API injects it through RuntimeIO).

const graph: z.input<typeof Definition> = {
  nodes: [
    { id: 'start', type: 'start' },
    {
      id: 'chat',
      type: 'conversation',
      data: {
        prompt: 'Help.',
        tools: [
          { integration: 'mail', action: 'send' },
          { integration: 'fax', action: 'send' },
        ],
      },
    },
  ],
  edges: [{ id: 'e1', source: 'start', target: 'chat' }],
}

const SEND_SCHEMA = {
  type: 'object',
  properties: { to: { type: 'string', format: 'email' }, body: { type: 'string', maxLength: 500 } },
  required: ['to', 'body'],
  additionalProperties: false,
}
const OPEN = { type: 'object', additionalProperties: true }

async function offered(tools: ToolRunner | undefined) {
  const llm = new ScriptedLlm([[text('Sure.')]])
  const def = Definition.parse(graph)
  const io: RuntimeIO = { llm, now: () => new Date('2026-11-22T10:00:00Z'), ...(tools ? { tools } : {}) }
  const rt = new GraphRuntime(def, AgentConfig.parse({}), io, initialState(def), { channel: 'chat' })
  for await (const _ of rt.start(new AbortController().signal));
  for await (const _ of rt.turn('send a note', new AbortController().signal));
  return Object.fromEntries(llm.requests[0]!.tools.map((x) => [x.name, { description: x.description, parameters: x.parameters }]))
}

const run: ToolRunner['run'] = async () => ({ ok: true, output: null })

t.test('a described action is offered with its own description and exact input schema', async (t) => {
  const asked: unknown[] = []
  const tools = await offered({
    run,
    describe: (ref) => (asked.push(ref), ref.integration === 'mail' ? { description: 'Send an email.', parameters: SEND_SCHEMA } : undefined),
  })
  t.same(tools.mail__send, { description: 'Send an email.', parameters: SEND_SCHEMA })
  t.same(tools.fax__send, { description: 'Run the send action of fax', parameters: OPEN }, 'an action the runner does not know keeps the open schema')
  t.same(asked, [
    { integration: 'mail', action: 'send' },
    { integration: 'fax', action: 'send' },
  ])
})

t.test('a runner without describe, or no runner at all, offers open schemas as before', async (t) => {
  t.same((await offered({ run })).mail__send, { description: 'Run the send action of mail', parameters: OPEN })
  t.same((await offered(undefined)).mail__send, { description: 'Run the send action of mail', parameters: OPEN })
})
