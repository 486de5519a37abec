import { randomUUID } from 'node:crypto'
import t from 'tap'
import { createRepos, migrate, openDatabase, type Repos } from '../../../db/index.js'
import { resolveEnvironment } from '../../../api/security/environment.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'

type Env = { id: string; slug: string }
type Project = { id: string; is_default: boolean; environments: Env[] }

const idsBySlug = (p: Project) => Object.fromEntries(p.environments.map((e) => [e.slug, e.id])) as Record<'dev' | 'staging' | 'prod', string>

async function setup(t: { teardown(fn: () => unknown): void }) {
  const a = await startTestApp()
  t.teardown(() => a.close())
  const owner = await a.register()
  const token: string = owner.access_token
  const extra: Project = (await a.request('POST', '/api/v1/projects', { token, body: { name: 'Second' } })).body
  const projects: Project[] = (await a.request('GET', '/api/v1/projects', { token })).body
  const main = idsBySlug(projects.find((p) => p.is_default)!)
  return { a, owner, token, main, extra: idsBySlug(extra) }
}

/**
 * The environment a mutating request acted in, as its audit event recorded it: creates an API key
 * with the given X-Environment-Id and reads that key's `api_key.created` event back.
 */
async function environmentOf(a: TestApp, auth: { token?: string; apiKey?: string }, header: string | undefined): Promise<string | null> {
  const headers: Record<string, string> = header === undefined ? {} : { 'x-environment-id': header }
  const created = await a.request('POST', '/api/v1/api-keys', { ...auth, headers, body: { name: 'probe' } })
  if (created.status !== 201) throw new Error(`create key: ${created.status} ${created.text}`)
  const audit = await a.request('GET', '/api/v1/audit?action=api_key.created&limit=1', auth)
  if (audit.status !== 200) throw new Error(`audit: ${audit.status} ${audit.text}`)
  const [event] = audit.body
  if (event.resource_id !== created.body.id) throw new Error('the newest audit event is not this request')
  return event.environment_id
}

t.test('dev, staging and prod select the default project environments; absent means the org default', async (t) => {
  const { a, token, main } = await setup(t)
  t.equal(await environmentOf(a, { token }, undefined), main.dev, 'absent → default (dev)')
  t.equal(await environmentOf(a, { token }, 'dev'), main.dev)
  t.equal(await environmentOf(a, { token }, 'staging'), main.staging)
  t.equal(await environmentOf(a, { token }, 'prod'), main.prod)
})

t.test('an environment uuid of the caller organization selects it, in any project', async (t) => {
  const { a, token, main, extra } = await setup(t)
  t.equal(await environmentOf(a, { token }, main.staging), main.staging)
  t.equal(await environmentOf(a, { token }, extra.prod), extra.prod, 'a non-default project environment')
  t.equal(await environmentOf(a, { token }, extra.dev.toUpperCase()), extra.dev, 'uuids compare case-insensitively')
})

t.test('unknown values and other organizations’ environments fall back to the default, without error', async (t) => {
  const { a, token, main } = await setup(t)
  const stranger = await a.register()
  const theirs: Project[] = (await a.request('GET', '/api/v1/projects', { token: stranger.access_token })).body
  const foreign = idsBySlug(theirs[0]!)
  for (const header of ['qa', 'production', randomUUID(), foreign.prod, foreign.staging]) {
    t.equal(await environmentOf(a, { token }, header), main.dev, header)
  }
})

t.test("changing the organization's default environment changes the fallback", async (t) => {
  const { a, token, main, extra } = await setup(t)
  const patched = await a.request('PATCH', '/api/v1/organization', { token, body: { default_environment: 'prod' } })
  t.equal(patched.status, 200)
  t.equal(await environmentOf(a, { token }, undefined), main.prod)
  t.equal(await environmentOf(a, { token }, 'nonsense'), main.prod)
  t.equal(await environmentOf(a, { token }, 'dev'), main.dev, 'an explicit slug still wins')
  t.equal(await environmentOf(a, { token }, extra.staging), extra.staging)
})

t.test('API keys select environments the same way; reads record it in the request log', async (t) => {
  const { a, token, main, extra } = await setup(t)
  const key: string = (await a.request('POST', '/api/v1/api-keys', { token, body: { name: 'k' } })).body.key
  t.equal(await environmentOf(a, { apiKey: key }, 'staging'), main.staging)
  t.equal(await environmentOf(a, { apiKey: key }, extra.dev), extra.dev)
  t.equal(await environmentOf(a, { apiKey: key }, undefined), main.dev)

  const read = await a.request('GET', '/api/v1/projects', { apiKey: key, headers: { 'x-environment-id': 'prod' } })
  t.equal(read.status, 200)
  const requestId = read.headers.get('x-request-id')
  const logs = await a.request('GET', '/api/v1/request-logs?method=GET&limit=200', { token })
  t.equal(logs.status, 200)
  const row = logs.body.items.find((r: { request_id: string }) => r.request_id === requestId)
  t.ok(row, 'the read is in the request log')
  t.equal(row?.environment_id, main.prod)
})

function repos(t: { teardown(fn: () => unknown): void }): Repos {
  const db = openDatabase(':memory:')
  t.teardown(() => db.close())
  migrate(db)
  return createRepos(db)
}

t.test('resolveEnvironment against the repositories', async (t) => {
  const r = repos(t)
  const now = Date.now()
  const org = r.organizations.create('Mine', null, now)
  const other = r.organizations.create('Theirs', null, now)
  const second = r.projects.create(org.id, 'Second', now)
  const [main] = r.projects.list(org.id)
  const env = (orgId: string, projectId: string, slug: string) => r.projects.environments(orgId, projectId).find((e) => e.slug === slug)!
  const otherProd = env(other.id, r.projects.list(other.id)[0]!.id, 'prod')

  t.equal(resolveEnvironment(r, org.id, undefined).id, env(org.id, main!.id, 'dev').id)
  for (const slug of ['dev', 'staging', 'prod']) {
    const got = resolveEnvironment(r, org.id, slug)
    t.equal(got.id, env(org.id, main!.id, slug).id, slug)
    t.match(got, { organization_id: org.id, project_id: main!.id, slug })
  }
  const secondStaging = env(org.id, second.id, 'staging')
  t.same(resolveEnvironment(r, org.id, secondStaging.id), secondStaging)
  t.same(resolveEnvironment(r, org.id, ` ${secondStaging.id.toUpperCase()} `), secondStaging)
  for (const header of ['', 'qa', 'DEVELOPMENT', randomUUID(), otherProd.id]) {
    t.equal(resolveEnvironment(r, org.id, header).id, env(org.id, main!.id, 'dev').id, `fallback for ${JSON.stringify(header)}`)
  }
  t.equal(resolveEnvironment(r, other.id, otherProd.id).id, otherProd.id, 'the owner organization resolves it')

  r.organizations.update({ id: org.id, name: org.name, default_environment: 'staging', updated_at: now })
  t.equal(resolveEnvironment(r, org.id, undefined).id, env(org.id, main!.id, 'staging').id)
  t.equal(resolveEnvironment(r, org.id, otherProd.id).id, env(org.id, main!.id, 'staging').id)

  t.throws(() => resolveEnvironment(r, randomUUID(), undefined), /no default environment/, 'an organization without environments is a bug, not a fallback')
})
