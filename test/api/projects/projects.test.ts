import { randomUUID } from 'node:crypto'
import t from 'tap'
import { startTestApp, type Reply } from '../../helpers/app.js'

const PROJECTS = '/api/v1/projects'
const SLUGS = ['dev', 'staging', 'prod']

async function setup(t: { teardown(fn: () => unknown): void }) {
  const a = await startTestApp()
  t.teardown(() => a.close())
  const owner = await a.register()
  return { a, owner, token: owner.access_token as string }
}

const sansRequestId = (r: Reply) => r.text.replace(r.body.error.request_id, '<id>')

t.test('GET /projects lists the default project with dev, staging and prod', async (t) => {
  const { a, token } = await setup(t)
  const res = await a.request('GET', PROJECTS, { token })
  t.equal(res.status, 200)
  t.equal(res.body.length, 1)
  const [project] = res.body
  t.match(project, { name: 'Default', is_default: true })
  t.same(
    project.environments.map((e: { slug: string }) => e.slug),
    SLUGS,
  )
  t.same(
    project.environments.map((e: { name: string }) => e.name),
    ['Development', 'Staging', 'Production'],
  )
  for (const e of project.environments) t.equal(e.project_id, project.id)
  t.equal(new Set(project.environments.map((e: { id: string }) => e.id)).size, 3, 'three distinct environments')
  // Exactly the organization's default environment (dev unless changed) is marked.
  t.same(
    project.environments.map((e: { is_default: boolean }) => e.is_default),
    [true, false, false],
  )
  await a.request('PATCH', '/api/v1/organization', { token, body: { default_environment: 'staging' } })
  const after = (await a.request('GET', PROJECTS, { token })).body[0]
  t.same(
    after.environments.map((e: { is_default: boolean }) => e.is_default),
    [false, true, false],
  )
})

t.test('POST /projects answers 201 with a new project that has its own dev, staging and prod', async (t) => {
  const { a, token } = await setup(t)
  const res = await a.request('POST', PROJECTS, { token, body: { name: ' Support line ' } })
  t.equal(res.status, 201)
  t.match(res.body, { name: 'Support line', is_default: false })
  t.same(
    res.body.environments.map((e: { slug: string }) => e.slug),
    SLUGS,
  )
  t.ok(
    res.body.environments.every((e: { project_id: string; is_default: boolean }) => e.project_id === res.body.id && !e.is_default),
    "a non-default project's environments are never the organization default",
  )

  const list = await a.request('GET', PROJECTS, { token })
  t.same(list.body.map((p: { id: string }) => p.id).slice(1), [res.body.id], 'listed after the default project')
  const defaultEnvIds = list.body[0].environments.map((e: { id: string }) => e.id)
  t.notOk(res.body.environments.some((e: { id: string }) => defaultEnvIds.includes(e.id)))

  for (const body of [{}, { name: '' }, { name: 'x'.repeat(101) }]) {
    t.equal((await a.request('POST', PROJECTS, { token, body })).status, 422, JSON.stringify(body))
  }
})

t.test('a viewer may list projects but not create one (403 permission_denied)', async (t) => {
  const { a, owner, token } = await setup(t)
  a.db.prepare('UPDATE org_members SET role_id = 4 WHERE user_id = ?').run(owner.user.id)
  t.equal((await a.request('GET', PROJECTS, { token })).status, 200)
  const res = await a.request('POST', PROJECTS, { token, body: { name: 'Nope' } })
  t.equal(res.status, 403)
  t.equal(res.body.error.code, 'permission_denied')
  t.equal(a.services.repos.projects.list(owner.user.organization.id).length, 1, 'no project created')
})

t.test('GET /projects/{uuid}/environments lists that project only', async (t) => {
  const { a, token } = await setup(t)
  const created = (await a.request('POST', PROJECTS, { token, body: { name: 'Second' } })).body
  const res = await a.request('GET', `${PROJECTS}/${created.id}/environments`, { token })
  t.equal(res.status, 200)
  t.same(res.body, created.environments)
  const defaultProject = (await a.request('GET', PROJECTS, { token })).body[0]
  const defaults = await a.request('GET', `${PROJECTS}/${defaultProject.id}/environments`, { token })
  t.same(defaults.body, defaultProject.environments)
})

t.test("another organization's project and an unknown project give the identical 404", async (t) => {
  const { a, token } = await setup(t)
  const stranger = await a.register()
  const theirs = (await a.request('POST', PROJECTS, { token: stranger.access_token, body: { name: 'Private' } })).body
  const theirDefault = (await a.request('GET', PROJECTS, { token: stranger.access_token })).body[0]

  const unknown = await a.request('GET', `${PROJECTS}/${randomUUID()}/environments`, { token })
  t.equal(unknown.status, 404)
  t.equal(unknown.body.error.code, 'not_found')
  for (const id of [theirs.id, theirDefault.id]) {
    const foreign = await a.request('GET', `${PROJECTS}/${id}/environments`, { token })
    t.equal(foreign.status, 404)
    t.equal(sansRequestId(foreign), sansRequestId(unknown), 'indistinguishable from a missing project')
    t.notOk(foreign.text.includes(id))
  }
  // The owner still sees it.
  t.equal((await a.request('GET', `${PROJECTS}/${theirs.id}/environments`, { token: stranger.access_token })).status, 200)
})

t.test('an invalid project uuid is 422 at path.project_uuid', async (t) => {
  const { a, token } = await setup(t)
  const res = await a.request('GET', `${PROJECTS}/not-a-uuid/environments`, { token })
  t.equal(res.status, 422)
  t.equal(res.body.detail.length, 1)
  t.same(res.body.detail[0].loc, ['path', 'project_uuid'])
  t.equal(res.body.detail[0].type, 'uuid_parsing')
})

t.test('project routes need authentication', async (t) => {
  const { a } = await setup(t)
  for (const [method, path] of [
    ['GET', PROJECTS],
    ['POST', PROJECTS],
    ['GET', `${PROJECTS}/${randomUUID()}/environments`],
  ] as const) {
    const res = await a.request(method, path, method === 'POST' ? { body: { name: 'x' } } : {})
    t.equal(res.status, 401, `${method} ${path}`)
    t.equal(res.body.error.code, 'authentication_required')
  }
})
