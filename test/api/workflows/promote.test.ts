import t, { type Test } from 'tap'
import type { DomainEvent } from '../../../core/index.js'
import { Definition } from '../../../engine/graph-runtime/index.js'
import { startTestApp, type RequestOptions, type TestApp } from '../../helpers/app.js'
import { SMALL_GRAPH, createWorkflow, expectStatus, newOwner, type Actor } from '../../helpers/tenancy-fixtures.js'

// Spec: POST /workflows/{uuid}/promote (PromoteRequest) → 200 WorkflowDetail, emits
// workflow.promoted; "when the agent is already in the target environment the response is 409".
// The issue: it copies the current published definition (or the draft if none) into the target
// environment as an agent linked to the source; promoting to the same environment is a clear 4xx.

const W = '/api/v1/workflows'

async function environments(a: TestApp, who: Actor): Promise<Record<string, string>> {
  const projects = expectStatus(await a.request('GET', '/api/v1/projects', { token: who.token }), 200, 'projects')
  return Object.fromEntries(projects[0].environments.map((e: { slug: string; id: string }) => [e.slug, e.id]))
}

async function setup(t: Test) {
  const a = await startTestApp()
  t.teardown(() => a.close())
  const owner = await newOwner(a)
  const events: DomainEvent[] = []
  t.teardown(a.services.bus.subscribe((e) => events.push(e)))
  /** A request acting in an environment (dev unless told). */
  const send = (method: string, path: string, o: RequestOptions & { env?: string } = {}) =>
    a.request(method, path, { token: owner.token, ...o, headers: { 'x-environment-id': o.env ?? 'dev', ...o.headers } })
  const promote = (id: string, target: string, env = 'dev') => send('POST', `${W}/${id}/promote`, { env, body: { target_environment: target } })
  return { a, owner, send, promote, events, env: await environments(a, owner) }
}

const saying = (text: string) => ({ ...SMALL_GRAPH, nodes: SMALL_GRAPH.nodes.map((n) => (n.id === 'hello' ? { ...n, data: { text } } : n)) })
const textOf = (definition: { nodes: { id: string; data?: { text?: string } }[] }) => definition.nodes.find((n) => n.id === 'hello')?.data?.text

t.test('promotion runs dev → staging → prod, each copy published as version 1 of the newest published definition', async (t) => {
  const { a, owner, send, promote, env } = await setup(t)
  const dev = await createWorkflow(a, owner, { name: 'Concierge', environment: 'dev' })
  for (const text of ['First', 'Second']) {
    expectStatus(await send('PUT', `${W}/${dev}/definition`, { body: saying(text) }), 200, 'put')
    expectStatus(await send('POST', `${W}/${dev}/publish`), 200, 'publish')
  }
  expectStatus(await send('PUT', `${W}/${dev}/definition`, { body: saying('Unpublished') }), 200, 'edit draft')

  const staging = await promote(dev, 'staging')
  t.equal(staging.status, 200)
  t.match(staging.body, {
    name: 'Concierge',
    environment: { id: env.staging, slug: 'staging' },
    source_workflow_id: dev,
    published_version: 1,
    archived: false,
  })
  t.not(staging.body.id, dev)
  t.equal(staging.body.versions.length, 1)
  t.equal(textOf(staging.body.definition), 'Second', 'the newest published version travels, not the draft')
  const stagingV1 = expectStatus(await send('GET', `${W}/${staging.body.id}/versions/1`, { env: 'staging' }), 200, 'staging v1')
  t.equal(textOf(stagingV1.definition), 'Second')

  const prod = await promote(staging.body.id, 'prod', 'staging')
  t.equal(prod.status, 200)
  t.match(prod.body, { environment: { id: env.prod, slug: 'prod' }, source_workflow_id: staging.body.id, published_version: 1 })
  t.equal(textOf(prod.body.definition), 'Second')
  t.same(expectStatus(await send('GET', `${W}/${prod.body.id}`, { env: 'prod' }), 200, 'get in prod'), prod.body)

  const source = expectStatus(await send('GET', `${W}/${dev}`), 200, 'source')
  t.equal(textOf(source.definition), 'Unpublished', 'the source is untouched')
  t.equal(source.published_version, 2)
})

t.test('an agent never published is promoted with its draft, published there as version 1', async (t) => {
  const { a, owner, send, promote } = await setup(t)
  const dev = await createWorkflow(a, owner)
  expectStatus(await send('PUT', `${W}/${dev}/definition`, { body: saying('Draft only') }), 200, 'put')
  const res = await promote(dev, 'prod')
  t.equal(res.status, 200)
  t.same(res.body.definition, Definition.parse(saying('Draft only')))
  t.equal(res.body.published_version, 1)
  t.equal(expectStatus(await send('GET', `${W}/${dev}`), 200, 'source').published_version, null, 'the source stays unpublished')
})

t.test('promoting into an environment that already holds the agent is 409 already_in_environment', async (t) => {
  const { a, owner, send, promote } = await setup(t)
  const dev = await createWorkflow(a, owner)
  const staging = expectStatus(await promote(dev, 'staging'), 200, 'promote')
  const again = await promote(dev, 'staging')
  t.equal(again.status, 409)
  t.equal(again.body.error.code, 'already_in_environment')
  const back = await promote(staging.id, 'dev', 'staging')
  t.equal(back.status, 409, 'the copy cannot be promoted back over its own source')
  t.equal(expectStatus(await send('GET', W, { env: 'staging' }), 200, 'list').length, 1, 'no second copy was made')
})

t.test('promoting to the environment the agent is in is 400 same_environment, by slug or by id', async (t) => {
  const { a, owner, promote, env } = await setup(t)
  const dev = await createWorkflow(a, owner)
  for (const target of ['dev', env.dev!]) {
    const res = await promote(dev, target)
    t.equal(res.status, 400, target)
    t.equal(res.body.error.code, 'same_environment')
  }
})

t.test("an unknown environment name or another organization's environment id is 400 unknown_environment", async (t) => {
  const { a, owner, promote } = await setup(t)
  const dev = await createWorkflow(a, owner)
  const stranger = await environments(a, await newOwner(a))
  for (const target of ['qa', stranger.prod!, '00000000-0000-4000-8000-000000000000']) {
    const res = await promote(dev, target)
    t.equal(res.status, 400, target)
    t.equal(res.body.error.code, 'unknown_environment')
  }
  t.equal((await promote(dev, '')).status, 422, 'an empty target is a validation error')
})

t.test("an environment of another of the organization's projects is a valid target, by id", async (t) => {
  const { a, owner, promote, send } = await setup(t)
  const project = expectStatus(await a.request('POST', '/api/v1/projects', { token: owner.token, body: { name: 'Second line' } }), 201, 'project')
  const target = project.environments.find((e: { slug: string }) => e.slug === 'staging').id
  const dev = await createWorkflow(a, owner)
  const res = await promote(dev, target)
  t.equal(res.status, 200)
  t.same(res.body.environment, { id: target, slug: 'staging' })
  t.equal(expectStatus(await send('GET', W, { env: target }), 200, 'list there')[0].id, res.body.id)
})

t.test("a slug target names an environment of the agent's own project, not the default one", async (t) => {
  const { a, owner, promote, env } = await setup(t)
  const project = expectStatus(await a.request('POST', '/api/v1/projects', { token: owner.token, body: { name: 'Branch office' } }), 201, 'project')
  const theirs: Record<string, string> = Object.fromEntries(project.environments.map((e: { slug: string; id: string }) => [e.slug, e.id]))
  const id = await createWorkflow(a, owner, { environment: theirs.dev })
  const res = await promote(id, 'prod', theirs.dev)
  t.equal(res.status, 200)
  t.same(res.body.environment, { id: theirs.prod, slug: 'prod' })
  t.not(res.body.environment.id, env.prod)
})

t.test('publish and promote emit workflow.published and workflow.promoted with their data', async (t) => {
  const { a, owner, send, promote, events, env } = await setup(t)
  const dev = await createWorkflow(a, owner, { name: 'Sales' })
  expectStatus(await send('POST', `${W}/${dev}/publish`), 200, 'publish')
  const copy = expectStatus(await promote(dev, 'staging'), 200, 'promote')
  t.same(
    events.map((e) => e.type),
    ['workflow.published', 'workflow.published', 'workflow.promoted'],
    'the copy’s version 1 is announced as published, then the promotion',
  )
  t.match(events[1], {
    organizationId: owner.organizationId,
    environmentId: env.staging,
    data: { workflow_uuid: copy.id, name: 'Sales', version: 1, environment: 'staging', environment_id: env.staging, published_by: owner.userId },
  })
  t.match(events[2], {
    organizationId: owner.organizationId,
    environmentId: env.staging,
    data: {
      workflow_uuid: dev,
      target_workflow_uuid: copy.id,
      name: 'Sales',
      source_environment: 'dev',
      target_environment: 'staging',
      target_environment_id: env.staging,
      source_version: 1,
      promoted_by: owner.userId,
    },
  })
  const draftOnly = await createWorkflow(a, owner)
  expectStatus(await promote(draftOnly, 'prod'), 200, 'promote a draft')
  t.equal(events.at(-1)!.data.source_version, null, 'a promoted draft has no source version')
})

t.test('after the promoted copy is deleted, promoting there again works', async (t) => {
  const { a, owner, send, promote } = await setup(t)
  const dev = await createWorkflow(a, owner)
  const first = expectStatus(await promote(dev, 'prod'), 200, 'promote')
  t.equal((await send('DELETE', `${W}/${first.id}`, { env: 'prod' })).status, 204)
  const second = await promote(dev, 'prod')
  t.equal(second.status, 200)
  t.not(second.body.id, first.id)
  t.same(
    expectStatus(await send('GET', W, { env: 'prod' }), 200, 'list').map((w: { id: string }) => w.id),
    [second.body.id],
  )
})

t.test('an archived copy still holds its place: promoting there again is 409', async (t) => {
  const { a, owner, send, promote } = await setup(t)
  const dev = await createWorkflow(a, owner)
  const copy = expectStatus(await promote(dev, 'prod'), 200, 'promote')
  expectStatus(await send('POST', `${W}/${copy.id}/archive`, { env: 'prod' }), 200, 'archive')
  t.equal((await promote(dev, 'prod')).status, 409)
})
