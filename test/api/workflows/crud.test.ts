import t, { type Test } from 'tap'
import { ManualClock } from '../../../core/index.js'
import { DEFAULT_CONFIG, Definition } from '../../../engine/graph-runtime/index.js'
import { startTestApp, type RequestOptions } from '../../helpers/app.js'
import { SMALL_GRAPH, createWorkflow, expectStatus, newOwner } from '../../helpers/tenancy-fixtures.js'

// Spec, Workflows (agents): POST/GET /workflows, GET /workflows/{uuid}, PUT …/definition and
// PUT …/config (both 200 DefinitionResponse). The issue: both PUTs "validate before saving", and
// a rejected graph gets 422 detail[] entries whose loc points at the node or edge and field.

const W = '/api/v1/workflows'

async function setup(t: Test) {
  const clock = new ManualClock(Date.parse('2025-03-01T09:00:00Z'))
  const a = await startTestApp({ clock })
  t.teardown(() => a.close())
  const owner = await newOwner(a)
  const send = (method: string, path: string, o: RequestOptions = {}) => a.request(method, path, { token: owner.token, ...o })
  return { a, clock, owner, send }
}

/** SMALL_GRAPH with its say node's text replaced. */
const saying = (text: string) => ({ ...SMALL_GRAPH, nodes: SMALL_GRAPH.nodes.map((n) => (n.id === 'hello' ? { ...n, data: { text } } : n)) })

t.test('an agent created with only a name gets the default graph and config, as a draft in the default environment', async (t) => {
  const { a, owner, send } = await setup(t)
  const res = await send('POST', W, { body: { name: 'Front desk' } })
  t.equal(res.status, 201)
  const projects = expectStatus(await send('GET', '/api/v1/projects'), 200, 'projects')
  const dev = projects[0].environments.find((e: { slug: string }) => e.slug === 'dev')
  t.match(res.body, {
    name: 'Front desk',
    description: '',
    environment: { id: dev.id, slug: 'dev' },
    archived: false,
    published_version: null,
    template_id: null,
    source_workflow_id: null,
    versions: [],
    created_at: '2025-03-01T09:00:00.000Z',
    draft_updated_at: '2025-03-01T09:00:00.000Z',
  })
  t.same(
    res.body.definition.nodes.map((n: { type: string }) => n.type),
    ['start', 'conversation', 'end'],
  )
  t.same(res.body.config, DEFAULT_CONFIG)
  t.same(expectStatus(await send('GET', `${W}/${res.body.id}`), 200, 'get'), res.body, 'GET returns what POST did')
  t.equal((a.db.prepare('SELECT created_by FROM workflows WHERE id = ?').get(res.body.id) as { created_by: string }).created_by, owner.userId)
})

t.test('an agent created with a graph and a config keeps them, defaults filled', async (t) => {
  const { send } = await setup(t)
  const res = await send('POST', W, {
    body: { name: 'Greeter', description: 'Says hello', definition: SMALL_GRAPH, config: { tts: { provider: 'openai', voice: 'nova' } } },
  })
  t.equal(res.status, 201)
  t.same(res.body.definition, Definition.parse(SMALL_GRAPH))
  t.same(res.body.definition.edges[0].condition, { kind: 'always' }, 'an edge without a condition is taken always')
  t.same(res.body.config.tts, { provider: 'openai', voice: 'nova', speed: 1 })
  t.equal(res.body.config.stt.provider, 'deepgram')
})

t.test('a create with an invalid graph is refused with 422 pointed inside body.definition, and creates nothing', async (t) => {
  const { send } = await setup(t)
  const broken = { ...SMALL_GRAPH, edges: [...SMALL_GRAPH.edges, { id: 'e_lost', source: 'hello', target: 'nowhere' }] }
  const res = await send('POST', W, { body: { name: 'Broken', definition: broken } })
  t.equal(res.status, 422)
  t.match(res.body.detail, [{ type: 'graph.unknown_node', loc: ['body', 'definition', 'edges', 2, 'target'], msg: /nowhere/ }])
  t.equal(res.body.detail.length, 1)
  const schema = await send('POST', W, { body: { name: 'Broken', definition: { ...SMALL_GRAPH, nodes: [...SMALL_GRAPH.nodes, { id: 'x', type: 'dance' }] } } })
  t.equal(schema.status, 422)
  t.same(schema.body.detail[0].loc, ['body', 'definition', 'nodes', 3, 'type'], 'a shape error points the same way')
  t.same(expectStatus(await send('GET', W), 200, 'list'), [])
})

t.test('a create names a template that exists, or gets 400 unknown_template', async (t) => {
  const { send } = await setup(t)
  const res = await send('POST', W, { body: { name: 'X', template_id: 'no-such-template' } })
  t.equal(res.status, 400)
  t.equal(res.body.error.code, 'unknown_template')
  t.same((await send('POST', W, { body: { name: '  ' } })).body.detail[0].loc, ['body', 'name'], 'a blank name is refused')
})

t.test('the listing shows live agents newest first; archived ones only with archived=true', async (t) => {
  const { a, clock, owner, send } = await setup(t)
  const first = await createWorkflow(a, owner, { name: 'First' })
  clock.advance(1000)
  const second = await createWorkflow(a, owner, { name: 'Second' })
  clock.advance(1000)
  const third = await createWorkflow(a, owner, { name: 'Third' })
  expectStatus(await send('POST', `${W}/${second}/archive`), 200, 'archive')
  const ids = async (q: string) => expectStatus<{ id: string }[]>(await send('GET', W + q), 200, `list${q}`).map((w) => w.id)
  t.same(await ids(''), [third, first], 'archived=false is the default')
  t.same(await ids('?archived=false'), [third, first])
  t.same(await ids('?archived=true'), [second])
  const list = expectStatus(await send('GET', W), 200, 'list')
  t.notOk('definition' in list[0], 'the listing holds summaries, not graphs')
  const bad = await send('GET', `${W}?archived=maybe`)
  t.equal(bad.status, 422)
  t.same(bad.body.detail[0].loc, ['query', 'archived'])
})

t.test('GET of an unknown agent is 404; of a malformed id, 422', async (t) => {
  const { send } = await setup(t)
  const missing = await send('GET', `${W}/00000000-0000-4000-8000-000000000000`)
  t.equal(missing.status, 404)
  t.equal(missing.body.error.code, 'not_found')
  const bad = await send('GET', `${W}/not-a-uuid`)
  t.equal(bad.status, 422)
  t.same(bad.body.detail[0].loc, ['path', 'workflow_uuid'])
})

t.test('PUT definition saves a valid graph as the draft and answers a draft DefinitionResponse', async (t) => {
  const { a, clock, owner, send } = await setup(t)
  const id = await createWorkflow(a, owner)
  clock.advance(60_000)
  const res = await send('PUT', `${W}/${id}/definition`, { body: saying('Welcome!') })
  t.equal(res.status, 200)
  t.same(res.body, {
    workflow_id: id,
    state: 'draft',
    version: null,
    definition: Definition.parse(saying('Welcome!')),
    config: DEFAULT_CONFIG,
    updated_at: '2025-03-01T09:01:00.000Z',
  })
  const detail = expectStatus(await send('GET', `${W}/${id}`), 200, 'get')
  t.same(detail.definition, res.body.definition)
  t.equal(detail.draft_updated_at, '2025-03-01T09:01:00.000Z')
  t.equal(detail.created_at, '2025-03-01T09:00:00.000Z')
  t.equal(detail.published_version, null, 'saving a draft publishes nothing')
})

t.test('PUT definition of an invalid graph answers 422 pointed at body.nodes and saves nothing', async (t) => {
  const { a, owner, send } = await setup(t)
  const id = await createWorkflow(a, owner)
  const before = expectStatus(await send('GET', `${W}/${id}`), 200, 'get')
  const undeclared = await send('PUT', `${W}/${id}/definition`, { body: saying('Hi {{first_name}}') })
  t.equal(undeclared.status, 422)
  t.same(
    undeclared.body.detail.map((d: { loc: unknown; type: string }) => [d.loc, d.type]),
    [[['body', 'nodes', 1, 'data', 'text'], 'graph.undeclared_variable']],
  )
  const noExit = await send('PUT', `${W}/${id}/definition`, { body: { ...SMALL_GRAPH, edges: SMALL_GRAPH.edges.slice(0, 1) } })
  t.equal(noExit.status, 422)
  t.match(noExit.body.detail, [
    { type: 'graph.no_exit', loc: ['body', 'nodes', 1] },
    { type: 'graph.unreachable', loc: ['body', 'nodes', 2] },
  ])
  const after = expectStatus(await send('GET', `${W}/${id}`), 200, 'get')
  t.same(after.definition, before.definition)
  t.equal(after.draft_updated_at, before.draft_updated_at)
})

t.test('PUT config replaces the whole config, filling defaults, and refuses a voice the provider lacks', async (t) => {
  const { a, owner, send } = await setup(t)
  const id = await createWorkflow(a, owner)
  const set = await send('PUT', `${W}/${id}/config`, { body: { recording: true, tts: { provider: 'openai', voice: 'coral' } } })
  t.equal(set.status, 200)
  t.match(set.body, {
    workflow_id: id,
    state: 'draft',
    version: null,
    config: { recording: true, tts: { provider: 'openai', voice: 'coral', speed: 1 }, language: 'en-US' },
  })
  const bad = await send('PUT', `${W}/${id}/config`, { body: { tts: { provider: 'openai', voice: 'nope' } } })
  t.equal(bad.status, 422)
  t.same(
    bad.body.detail.map((d: { loc: unknown }) => d.loc),
    [['body', 'tts', 'voice']],
  )
  t.equal(expectStatus(await send('GET', `${W}/${id}`), 200, 'get').config.tts.voice, 'coral', 'the refused config was not saved')
  const reset = await send('PUT', `${W}/${id}/config`, { body: {} })
  t.same(reset.body.config, DEFAULT_CONFIG, 'an empty config is every default, not a merge')
})

t.test('PUT on an unknown agent is 404, whatever the body', async (t) => {
  const { send } = await setup(t)
  const ghost = `${W}/00000000-0000-4000-8000-000000000000`
  t.equal((await send('PUT', `${ghost}/definition`, { body: SMALL_GRAPH })).status, 404)
  t.equal((await send('PUT', `${ghost}/config`, { body: {} })).status, 404)
})
