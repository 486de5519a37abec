import t from 'tap'
import { startTestApp, type RequestOptions, type TestApp } from '../../helpers/app.js'
import { SMALL_GRAPH, createKey, createWorkflow, expectStatus, newOwner, type Actor } from '../../helpers/tenancy-fixtures.js'

// The issue: agents are environment-scoped; "an agent in dev is invisible with
// X-Environment-Id: prod". Another organization's agents are covered by the BOLA matrix
// (test/api/tenancy/bola-matrix.test.ts); here the boundary is between environments of one.

const W = '/api/v1/workflows'
const a: TestApp = await startTestApp()
t.teardown(() => a.close())
const owner: Actor = await newOwner(a)
const projects = expectStatus(await a.request('GET', '/api/v1/projects', { token: owner.token }), 200, 'projects')
const envId: Record<string, string> = Object.fromEntries(projects[0].environments.map((e: { slug: string; id: string }) => [e.slug, e.id]))

const inEnv = (env: string | undefined, auth: { token: string } | { apiKey: string } = { token: owner.token }): RequestOptions => ({
  ...auth,
  headers: env === undefined ? {} : { 'x-environment-id': env },
})
const ids = async (env: string | undefined, auth?: { token: string } | { apiKey: string }) =>
  expectStatus<{ id: string }[]>(await a.request('GET', W, inEnv(env, auth)), 200, `list in ${env}`).map((w) => w.id)

t.test('an agent created in dev is visible in dev and invisible with X-Environment-Id: prod', async (t) => {
  const id = await createWorkflow(a, owner, { environment: 'dev' })
  t.equal((await a.request('GET', `${W}/${id}`, inEnv('dev'))).status, 200)
  t.ok((await ids('dev')).includes(id))
  t.ok((await ids(undefined)).includes(id), 'dev is the organization’s default environment')
  t.ok((await ids(envId.dev)).includes(id), 'dev named by its id')

  for (const env of ['prod', 'staging', envId.prod!]) {
    const res = await a.request('GET', `${W}/${id}`, inEnv(env))
    t.equal(res.status, 404, `GET in ${env}`)
    t.equal(res.body.error.code, 'not_found')
    t.notOk((await ids(env)).includes(id), `not listed in ${env}`)
    t.notOk((await ids(env)).length, `${env} is empty`)
  }
})

t.test('from another environment every action on the agent is 404 and changes nothing', async (t) => {
  const id = await createWorkflow(a, owner, { environment: 'dev' })
  const before = expectStatus(await a.request('GET', `${W}/${id}`, inEnv('dev')), 200, 'get')
  const actions: [string, string, unknown?][] = [
    ['PUT', '/definition', SMALL_GRAPH],
    ['PUT', '/config', { recording: true }],
    ['POST', '/publish'],
    ['POST', '/promote', { target_environment: 'staging' }],
    ['POST', '/duplicate'],
    ['POST', '/archive'],
    ['GET', '/versions/1'],
    ['DELETE', ''],
  ]
  for (const [method, suffix, body] of actions) {
    const res = await a.request(method, `${W}/${id}${suffix}`, { ...inEnv('prod'), body })
    t.equal(res.status, 404, `${method} ${suffix || '/'} from prod`)
  }
  const after = expectStatus(await a.request('GET', `${W}/${id}`, inEnv('dev')), 200, 'get')
  t.same(after, before, 'the agent in dev is exactly as it was')
  t.same(await ids('prod'), [], 'nothing was duplicated or promoted into prod')
  t.same(await ids('staging'), [])
})

t.test('an agent created with X-Environment-Id: staging lives only in staging', async (t) => {
  const id = await createWorkflow(a, owner, { environment: 'staging' })
  const detail = expectStatus(await a.request('GET', `${W}/${id}`, inEnv('staging')), 200, 'get')
  t.same(detail.environment, { id: envId.staging, slug: 'staging' })
  t.notOk((await ids('dev')).includes(id))
  t.equal((await a.request('GET', `${W}/${id}`, inEnv(undefined))).status, 404, 'not in the default environment')
})

t.test('an API key sees the environment its request names, like a user', async (t) => {
  const { key } = await createKey(a, owner)
  const id = await createWorkflow(a, owner, { environment: 'prod' })
  t.equal((await a.request('GET', `${W}/${id}`, inEnv('prod', { apiKey: key }))).status, 200)
  t.equal((await a.request('GET', `${W}/${id}`, inEnv('dev', { apiKey: key }))).status, 404)
  t.ok((await ids('prod', { apiKey: key })).includes(id))
  t.notOk((await ids(undefined, { apiKey: key })).includes(id), 'the default environment is dev')
})

t.test("another organization's environment id in the header falls back to the caller's default", async (t) => {
  // The spec's selection rule: an unrecognised value, including a foreign uuid, means the default.
  const stranger = await newOwner(a)
  const theirs = expectStatus(await a.request('GET', '/api/v1/projects', { token: stranger.token }), 200, 'projects')[0]
  const theirProd = theirs.environments.find((e: { slug: string }) => e.slug === 'prod').id
  const mine = await createWorkflow(a, owner, { environment: 'dev' })
  const res = await a.request('GET', `${W}/${mine}`, inEnv(theirProd))
  t.equal(res.status, 200)
  t.equal(res.body.environment.slug, 'dev')
  const created = expectStatus(await a.request('POST', W, { ...inEnv(theirProd), body: { name: 'Where?' } }), 201, 'create')
  t.equal(created.environment.id, envId.dev, 'nothing lands in the other organization')
})
