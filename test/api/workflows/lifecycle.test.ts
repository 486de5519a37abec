import t, { type Test } from 'tap'
import { ManualClock } from '../../../core/index.js'
import { startTestApp, type RequestOptions } from '../../helpers/app.js'
import { SMALL_GRAPH, createWorkflow, expectStatus, newOwner } from '../../helpers/tenancy-fixtures.js'

// Spec: POST …/duplicate (201 WorkflowDetail), …/archive and …/unarchive (200 WorkflowSummary),
// DELETE (204). The issue: duplicate makes "Copy of …" with the draft; deleted agents leave past
// sessions and calls readable (the row and its versions stay, marked deleted).

const W = '/api/v1/workflows'

async function setup(t: Test) {
  const clock = new ManualClock(Date.parse('2025-05-01T08:00:00Z'))
  const a = await startTestApp({ clock })
  t.teardown(() => a.close())
  const owner = await newOwner(a)
  const send = (method: string, path: string, o: RequestOptions = {}) => a.request(method, path, { token: owner.token, ...o })
  const listed = async (archived = false) => expectStatus<{ id: string }[]>(await send('GET', `${W}?archived=${archived}`), 200, 'list').map((w) => w.id)
  return { a, clock, owner, send, listed }
}

const summaryKeys = [
  'archived',
  'created_at',
  'description',
  'draft_updated_at',
  'environment',
  'id',
  'name',
  'published_version',
  'source_workflow_id',
  'template_id',
  'updated_at',
]

t.test('duplicate creates "Copy of …" with the draft, no versions and a lineage of its own', async (t) => {
  const { a, owner, send, listed } = await setup(t)
  const id = await createWorkflow(a, owner, { name: 'Reception' })
  expectStatus(await send('POST', `${W}/${id}/publish`), 200, 'publish')
  expectStatus(await send('PUT', `${W}/${id}/definition`, { body: SMALL_GRAPH }), 200, 'edit draft after publishing')
  expectStatus(await send('PUT', `${W}/${id}/config`, { body: { recording: true } }), 200, 'config')
  const source = expectStatus(await send('GET', `${W}/${id}`), 200, 'get')

  const res = await send('POST', `${W}/${id}/duplicate`)
  t.equal(res.status, 201)
  t.not(res.body.id, id)
  t.match(res.body, {
    name: 'Copy of Reception',
    environment: source.environment,
    published_version: null,
    versions: [],
    source_workflow_id: null,
    archived: false,
  })
  t.same(res.body.definition, source.definition, 'the draft, not the published version')
  t.same(res.body.config, source.config)
  t.same((await listed()).sort(), [id, res.body.id].sort(), 'both are listed')

  // A new lineage: the copy may go where the original already is.
  expectStatus(await send('POST', `${W}/${id}/promote`, { body: { target_environment: 'prod' } }), 200, 'promote original')
  const promoted = await send('POST', `${W}/${res.body.id}/promote`, { body: { target_environment: 'prod' } })
  t.equal(promoted.status, 200, 'the duplicate promotes beside the original')
  t.equal(expectStatus(await send('GET', W, { headers: { 'x-environment-id': 'prod' } }), 200, 'prod list').length, 2)
})

t.test('a duplicate of a long name stays within the name limit', async (t) => {
  const { a, owner, send } = await setup(t)
  const id = await createWorkflow(a, owner, { name: 'x'.repeat(120) })
  const res = await send('POST', `${W}/${id}/duplicate`)
  t.equal(res.status, 201)
  t.equal(res.body.name, `Copy of ${'x'.repeat(112)}`)
})

t.test('archive and unarchive answer a WorkflowSummary and move the agent between listings', async (t) => {
  const { a, clock, owner, send, listed } = await setup(t)
  const id = await createWorkflow(a, owner)
  clock.advance(5000)
  const archived = await send('POST', `${W}/${id}/archive`)
  t.equal(archived.status, 200)
  t.same(Object.keys(archived.body).sort(), summaryKeys, 'a summary, without the graph')
  t.match(archived.body, { id, archived: true, updated_at: '2025-05-01T08:00:05.000Z', draft_updated_at: '2025-05-01T08:00:00.000Z' })
  t.same(await listed(false), [])
  t.same(await listed(true), [id])
  t.equal(expectStatus(await send('GET', `${W}/${id}`), 200, 'get').archived, true, 'an archived agent can still be read')

  const again = await send('POST', `${W}/${id}/archive`)
  t.equal(again.status, 200, 'archiving twice is harmless')
  t.equal(again.body.archived, true)

  const restored = await send('POST', `${W}/${id}/unarchive`)
  t.equal(restored.status, 200)
  t.same(Object.keys(restored.body).sort(), summaryKeys)
  t.equal(restored.body.archived, false)
  t.same(await listed(false), [id])
  t.same(await listed(true), [])
})

t.test('archive, unarchive and duplicate of an unknown agent are 404', async (t) => {
  const { send } = await setup(t)
  for (const action of ['archive', 'unarchive', 'duplicate', 'publish']) {
    const res = await send('POST', `${W}/00000000-0000-4000-8000-000000000000/${action}`)
    t.equal(res.status, 404, action)
    t.equal(res.body.error.code, 'not_found')
  }
})

t.test('DELETE hides the agent (204, then 404) but keeps the row and its versions for past sessions', async (t) => {
  const { a, clock, owner, send, listed } = await setup(t)
  const keep = await createWorkflow(a, owner)
  const id = await createWorkflow(a, owner)
  expectStatus(await send('POST', `${W}/${id}/publish`), 200, 'publish')
  expectStatus(await send('POST', `${W}/${id}/publish`), 200, 'publish')
  clock.advance(1000)

  const res = await send('DELETE', `${W}/${id}`)
  t.equal(res.status, 204)
  t.equal(res.text, '')
  t.equal((await send('GET', `${W}/${id}`)).status, 404)
  t.equal((await send('GET', `${W}/${id}/versions/1`)).status, 404, 'its versions are gone from the API')
  t.same(await listed(false), [keep])
  t.same(await listed(true), [])
  const again = await send('DELETE', `${W}/${id}`)
  t.equal(again.status, 404)
  t.equal(again.body.error.code, 'not_found')
  for (const [method, path, body] of [
    ['PUT', '/definition', SMALL_GRAPH],
    ['POST', '/publish'],
    ['POST', '/unarchive'],
  ] as const) {
    t.equal((await send(method, `${W}/${id}${path}`, { body })).status, 404, `${method} ${path} after delete`)
  }

  const row = a.db.prepare('SELECT deleted_at FROM workflows WHERE id = ?').get(id) as { deleted_at: number } | undefined
  t.equal(row?.deleted_at, clock.now(), 'the row stays, marked deleted')
  const versions = a.db.prepare('SELECT version, definition FROM workflow_versions WHERE workflow_id = ? ORDER BY version').all(id) as {
    version: number
    definition: string
  }[]
  t.same(
    versions.map((v) => v.version),
    [1, 2],
    'the versions past sessions ran stay readable',
  )
  t.ok(a.services.repos.workflows.version(id, 2), 'the repository still reads a deleted agent’s version by id')
})

t.test('an archived agent can be deleted', async (t) => {
  const { a, owner, send, listed } = await setup(t)
  const id = await createWorkflow(a, owner)
  expectStatus(await send('POST', `${W}/${id}/archive`), 200, 'archive')
  t.equal((await send('DELETE', `${W}/${id}`)).status, 204)
  t.same(await listed(true), [])
})

t.test('the audit event of a duplicate names the source as resource and the copy as result', async (t) => {
  const { startTestApp } = await import('../../helpers/app.js')
  const a = await startTestApp()
  t.teardown(() => a.close())
  const owner = await a.register()
  const token = owner.access_token
  const source = (await a.request('POST', '/api/v1/workflows', { token, body: { name: 'Original' } })).body.id
  const copy = (await a.request('POST', `/api/v1/workflows/${source}/duplicate`, { token })).body.id
  const [event] = (await a.request('GET', '/api/v1/audit?action=workflow.duplicated', { token })).body
  t.match(event, { resource_type: 'workflow', resource_id: source, metadata: { result_id: copy } })
  const [created] = (await a.request('GET', '/api/v1/audit?action=workflow.created', { token })).body
  t.equal(created.metadata, null, 'a plain create has no separate result')
})
