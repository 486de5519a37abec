import fs from 'node:fs'
import t from 'tap'
import { needsLlm, templates } from '../../../api/workflows/templates/index.js'
import { AgentConfig, Definition, NODE_TYPES, OPERATORS, SYSTEM_VARIABLES, validateDefinition } from '../../../engine/graph-runtime/index.js'
import { startTestApp } from '../../helpers/app.js'

const WORKFLOWS = '/api/v1/workflows'
const root = new URL('../../../', import.meta.url)
const read = (rel: string) => fs.readFileSync(new URL(rel, root), 'utf8')

/** A running app with a registered owner; closed when the test ends. */
async function setup(t: { teardown(fn: () => unknown): void }) {
  const a = await startTestApp()
  t.teardown(() => a.close())
  const owner = await a.register()
  return { a, token: owner.access_token as string }
}

t.test('every template parses, validates with no problems, and has a parsing config', async (t) => {
  const list = templates()
  t.ok(list.length >= 4, `at least four templates (got ${list.length})`)
  for (const tpl of list) {
    t.same(validateDefinition(Definition.parse(tpl.definition)), [], `${tpl.id}: no graph problems`)
    t.ok(AgentConfig.safeParse(tpl.config).success, `${tpl.id}: config parses`)
    t.equal(tpl.needs_llm, needsLlm(tpl.definition.nodes), `${tpl.id}: needs_llm agrees with its nodes`)
    t.ok(tpl.name && tpl.description && tpl.tags.length, `${tpl.id}: has a name, a description and tags`)
  }
  const ids = list.map((x) => x.id)
  t.equal(new Set(ids).size, ids.length, 'ids are unique')
})

t.test('at least one template is Turkish, with Turkish speech settings', async (t) => {
  const turkish = templates().filter((x) => x.language.startsWith('tr'))
  t.ok(turkish.length >= 1)
  for (const tpl of turkish) {
    t.match(tpl.config.language, /^tr/, `${tpl.id}: config language`)
    t.equal(tpl.config.tts.voice, 'tr', `${tpl.id}: Turkish voice`)
    t.equal(tpl.config.stt.language, 'tr', `${tpl.id}: Turkish recognition`)
  }
})

t.test('at least two templates run without an LLM', async (t) => {
  const deterministic = templates().filter((x) => !x.needs_llm)
  t.ok(deterministic.length >= 2, deterministic.map((x) => x.id).join(', '))
  t.ok(
    deterministic.some((x) => x.language.startsWith('tr')),
    'the Turkish survey is one of them',
  )
  for (const tpl of deterministic)
    t.notOk(
      tpl.definition.nodes.some((n) => n.type === 'conversation' || n.type === 'knowledge' || n.global),
      `${tpl.id}: no LLM-only node and no global intent`,
    )
})

t.test('the starters cover the issue’s flows: knowledge + global transfer, collect + tool, JSON Logic branching', async (t) => {
  const byId = new Map(templates().map((x) => [x.id, x.definition]))
  const receptionist = byId.get('receptionist')!
  t.ok(
    receptionist.nodes.some((n) => n.type === 'conversation' && n.data.knowledge_base.enabled),
    'a conversation grounded in the knowledge base',
  )
  t.ok(
    receptionist.nodes.some((n) => n.type === 'transfer' && n.global),
    'a global transfer',
  )

  const booking = byId.get('appointment-booking')!
  const collected = booking.nodes.flatMap((n) => (n.type === 'collect' ? [n.data.value_type] : []))
  for (const type of ['text', 'date', 'choice', 'phone'] as const) t.ok(collected.includes(type), `collects a ${type}`)
  const tool = booking.nodes.find((n) => n.type === 'tool')
  t.match(tool, { data: { action: { integration: 'calcom', action: 'create_booking' }, output: { booking_id: String } } })
  const outcomes = booking.edges.filter((e) => e.source === tool?.id).map((e) => e.condition)
  t.same(new Set(outcomes.map((c) => (c.kind === 'outcome' ? c.outcome : c.kind))), new Set(['success', 'failure']))

  const lead = byId.get('lead-qualification')!
  t.ok(
    lead.edges.some((e) => e.condition.kind === 'expression' && JSON.stringify(e.condition.expression).includes('"budget"')),
    'branches on budget',
  )
  t.same(new Set(lead.nodes.flatMap((n) => (n.type === 'end' ? [n.data.disposition] : []))), new Set(['qualified', 'not_qualified', 'incomplete']))

  const survey = byId.get('survey-tr')!
  const types = survey.nodes.flatMap((n) => (n.type === 'collect' ? [n.data.value_type] : []))
  for (const type of ['number', 'yes_no', 'text'] as const) t.ok(types.includes(type), `the survey collects a ${type}`)
  t.ok(
    survey.edges.some((e) => e.condition.kind === 'expression' && JSON.stringify(e.condition.expression).includes('"rating"')),
    'branches on the rating',
  )
})

t.test('GET /workflows/templates returns the registry', async (t) => {
  const { a, token } = await setup(t)
  const res = await a.request('GET', `${WORKFLOWS}/templates`, { token })
  t.equal(res.status, 200)
  t.same(res.body, JSON.parse(JSON.stringify(templates())))
})

t.test('POST /workflows with template_id creates an agent whose draft is the template, and it publishes', async (t) => {
  const { a, token } = await setup(t)
  for (const tpl of templates()) {
    const res = await a.request('POST', WORKFLOWS, { token, body: { name: `From ${tpl.id}`, template_id: tpl.id } })
    t.equal(res.status, 201, tpl.id)
    t.equal(res.body.template_id, tpl.id)
    t.same(res.body.definition, JSON.parse(JSON.stringify(tpl.definition)), `${tpl.id}: draft graph is the template's`)
    t.same(res.body.config, JSON.parse(JSON.stringify(tpl.config)), `${tpl.id}: draft config is the template's`)

    const again = await a.request('GET', `${WORKFLOWS}/${res.body.id}`, { token })
    t.same(again.body.definition, res.body.definition, `${tpl.id}: stored as returned`)
    const pub = await a.request('POST', `${WORKFLOWS}/${res.body.id}/publish`, { token })
    t.equal(pub.status, 200, `${tpl.id}: publish accepts it (${pub.text.slice(0, 200)})`)
    t.equal(pub.body.version, 1)
  }
})

t.test('an unknown template_id is 400 unknown_template and creates nothing', async (t) => {
  const { a, token } = await setup(t)
  const res = await a.request('POST', WORKFLOWS, { token, body: { name: 'Nope', template_id: 'no-such-template' } })
  t.equal(res.status, 400)
  t.equal(res.body.error.code, 'unknown_template')
  const list = await a.request('GET', WORKFLOWS, { token })
  t.same(list.body, [])
})

t.test('a workflow:read API key lists templates but cannot create from one', async (t) => {
  const { a, token } = await setup(t)
  const key = await a.request('POST', '/api/v1/api-keys', { token, body: { name: 'viewer', scopes: ['workflow:read'] } })
  t.equal(key.status, 201)
  const apiKey: string = key.body.key

  const list = await a.request('GET', `${WORKFLOWS}/templates`, { apiKey })
  t.equal(list.status, 200)
  t.equal(list.body.length, templates().length)

  const create = await a.request('POST', WORKFLOWS, { apiKey, body: { name: 'Survey', template_id: 'survey-tr' } })
  t.equal(create.status, 403)
  t.equal(create.body.error.code, 'permission_denied')
  t.same((await a.request('GET', WORKFLOWS, { token })).body, [], 'nothing was created')
})

t.test('docs/agents.md: its full JSON example is a valid graph', async (t) => {
  const doc = read('docs/agents.md')
  const block = /^```json\n([\s\S]*?)^```$/m.exec(doc)
  t.ok(block, 'the doc has a ```json block')
  const parsed = Definition.safeParse(JSON.parse(block![1]!))
  t.ok(parsed.success, parsed.success ? 'parses' : JSON.stringify(parsed.error.issues))
  if (!parsed.success) return
  t.same(validateDefinition(parsed.data), [])
  t.ok(parsed.data.nodes.length >= 10, 'a full example, not a fragment')
})

t.test('docs/agents.md: names every node type, problem type, operator and built-in variable', async (t) => {
  const doc = read('docs/agents.md')
  for (const type of NODE_TYPES) t.ok(doc.includes(`### \`${type}\``), `node type ${type} has a section`)
  const problemTypes = new Set(
    read('engine/graph-runtime/validate.ts')
      .match(/'graph\.[a-z_]+'/g)!
      .map((s) => s.slice(1, -1)),
  )
  t.ok(problemTypes.size >= 10, 'found the validator’s problem types')
  for (const type of problemTypes) t.ok(doc.includes(`\`${type}\``), `problem ${type} is documented`)
  for (const op of OPERATORS) t.ok(doc.includes(`\`${op}\``), `operator ${op} is listed`)
  for (const name of SYSTEM_VARIABLES) t.ok(doc.includes(`system.${name}`), `system.${name} is documented`)
})
