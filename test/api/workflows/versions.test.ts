import t, { type Test } from 'tap'
import type { DomainEvent } from '../../../core/index.js'
import { ManualClock } from '../../../core/index.js'
import { Definition } from '../../../engine/graph-runtime/index.js'
import { startTestApp, type RequestOptions } from '../../helpers/app.js'
import { SMALL_GRAPH, createWorkflow, expectStatus, newOwner } from '../../helpers/tenancy-fixtures.js'

// The issue: "Each agent has one editable draft and numbered, immutable published versions.
// publish snapshots the draft into the next version, emits workflow.published, returns
// DefinitionResponse." Tests: "draft edits never change a published version; publish numbering".

const W = '/api/v1/workflows'

async function setup(t: Test) {
  const clock = new ManualClock(Date.parse('2025-04-01T12:00:00Z'))
  const a = await startTestApp({ clock })
  t.teardown(() => a.close())
  const owner = await newOwner(a)
  const send = (method: string, path: string, o: RequestOptions = {}) => a.request(method, path, { token: owner.token, ...o })
  const events: DomainEvent[] = []
  t.teardown(a.services.bus.subscribe((e) => events.push(e)))
  return { a, clock, owner, send, events }
}

const saying = (text: string) => ({ ...SMALL_GRAPH, nodes: SMALL_GRAPH.nodes.map((n) => (n.id === 'hello' ? { ...n, data: { text } } : n)) })

t.test('publishing numbers versions 1, 2, 3 and lists them newest first', async (t) => {
  const { a, clock, owner, send } = await setup(t)
  const id = await createWorkflow(a, owner)
  for (const n of [1, 2, 3]) {
    clock.advance(1000)
    const res = await send('POST', `${W}/${id}/publish`)
    t.equal(res.status, 200)
    t.match(res.body, { workflow_id: id, state: 'published', version: n, updated_at: new Date(clock.now()).toISOString() })
  }
  const detail = expectStatus(await send('GET', `${W}/${id}`), 200, 'get')
  t.equal(detail.published_version, 3)
  t.same(
    detail.versions,
    [3, 2, 1].map((version) => ({
      version,
      published_at: new Date(Date.parse('2025-04-01T12:00:00Z') + version * 1000).toISOString(),
      published_by: owner.userId,
    })),
  )
})

t.test('publish snapshots the draft graph and config; later draft edits never change it', async (t) => {
  const { a, owner, send } = await setup(t)
  const id = await createWorkflow(a, owner)
  expectStatus(await send('PUT', `${W}/${id}/definition`, { body: saying('Version one') }), 200, 'put definition')
  expectStatus(await send('PUT', `${W}/${id}/config`, { body: { recording: true } }), 200, 'put config')
  const v1 = expectStatus(await send('POST', `${W}/${id}/publish`), 200, 'publish')
  t.same(v1.definition, Definition.parse(saying('Version one')))
  t.equal(v1.config.recording, true)

  expectStatus(await send('PUT', `${W}/${id}/definition`, { body: saying('Version two') }), 200, 'edit draft')
  expectStatus(await send('PUT', `${W}/${id}/config`, { body: { recording: false, language: 'tr-TR' } }), 200, 'edit config')
  const stored = expectStatus(await send('GET', `${W}/${id}/versions/1`), 200, 'get version 1')
  t.same(stored, v1, 'version 1 is exactly what publish returned')
  const detail = expectStatus(await send('GET', `${W}/${id}`), 200, 'get')
  t.equal(detail.definition.nodes[1].data.text, 'Version two', 'the draft moved on')
  t.equal(detail.published_version, 1)

  const v2 = expectStatus(await send('POST', `${W}/${id}/publish`), 200, 'publish again')
  t.equal(v2.definition.nodes[1].data.text, 'Version two')
  t.equal(v2.config.language, 'tr-TR')
  t.same(expectStatus(await send('GET', `${W}/${id}/versions/1`), 200, 'get version 1'), v1, 'still unchanged after a second publish')
})

t.test('a version that does not exist is 404; a version that is not a positive number is 422', async (t) => {
  const { a, owner, send } = await setup(t)
  const id = await createWorkflow(a, owner)
  const none = await send('GET', `${W}/${id}/versions/1`)
  t.equal(none.status, 404, 'never published')
  t.equal(none.body.error.code, 'not_found')
  expectStatus(await send('POST', `${W}/${id}/publish`), 200, 'publish')
  t.equal((await send('GET', `${W}/${id}/versions/2`)).status, 404)
  for (const bad of ['x', '0', '1.5']) {
    const res = await send('GET', `${W}/${id}/versions/${bad}`)
    t.equal(res.status, 422, `version ${bad}`)
    t.same(res.body.detail[0].loc, ['path', 'version'])
  }
  t.equal((await send('GET', `${W}/00000000-0000-4000-8000-000000000000/versions/1`)).status, 404, 'unknown agent')
})

t.test('published versions are immutable in the database itself', async (t) => {
  const { a, owner, send } = await setup(t)
  const id = await createWorkflow(a, owner)
  expectStatus(await send('POST', `${W}/${id}/publish`), 200, 'publish')
  t.throws(() => a.db.prepare("UPDATE workflow_versions SET definition = '{}' WHERE workflow_id = ?").run(id), /immutable/)
  t.throws(() => a.db.prepare('UPDATE workflow_versions SET version = 7 WHERE workflow_id = ?').run(id), /immutable/)
  const row = a.db.prepare('SELECT definition FROM workflow_versions WHERE workflow_id = ? AND version = 1').get(id) as { definition: string }
  t.not(row.definition, '{}')
})

t.test('publish emits workflow.published with the agent, version, environment and publisher', async (t) => {
  const { a, owner, send, events } = await setup(t)
  const id = await createWorkflow(a, owner, { name: 'Bookings' })
  expectStatus(await send('POST', `${W}/${id}/publish`), 200, 'publish')
  expectStatus(await send('POST', `${W}/${id}/publish`), 200, 'publish')
  const published = events.filter((e) => e.type === 'workflow.published')
  t.equal(published.length, 2)
  const dev = expectStatus(await send('GET', `${W}/${id}`), 200, 'get').environment
  t.match(published[1], {
    organizationId: owner.organizationId,
    environmentId: dev.id,
    occurredAt: a.clock.now(),
    data: { workflow_uuid: id, name: 'Bookings', version: 2, environment: 'dev', environment_id: dev.id, published_by: owner.userId },
  })
  t.equal(published[0]!.data.version, 1)
})

t.test('publishing a stored draft that no longer validates is refused and publishes nothing', async (t) => {
  const { a, owner, send, events } = await setup(t)
  const id = await createWorkflow(a, owner)
  // A draft saved before a rule existed: the only way to get one is to write it directly.
  const stale = { ...Definition.parse(SMALL_GRAPH), edges: [] }
  a.db.prepare('UPDATE workflows SET draft_definition = ? WHERE id = ?').run(JSON.stringify(stale), id)
  const res = await send('POST', `${W}/${id}/publish`)
  t.equal(res.status, 422)
  t.match(res.body.detail[0], { type: 'graph.no_exit', loc: ['draft', 'definition', 'nodes', 0] })
  t.same(expectStatus(await send('GET', `${W}/${id}`), 200, 'get').versions, [])
  t.notOk(
    events.some((e) => e.type === 'workflow.published'),
    'no event for a refused publish',
  )
})
