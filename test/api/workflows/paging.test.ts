import { randomUUID } from 'node:crypto'
import t from 'tap'
import { DEFAULT_WORKFLOW_PAGE_LIMITS } from '../../../api/workflows/schema.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { newOwner, type Actor } from '../../helpers/tenancy-fixtures.js'
import { checkPagedList, type Seeded } from '../http/paging-fixtures.js'

const W = '/api/v1/workflows'
const T1 = Date.parse('2025-06-02T09:00:00Z')
const T2 = T1 + 60_000

function envOf(a: TestApp, who: Actor, slug: string): string {
  return a.services.repos.projects.defaultProjectEnvironment(who.organizationId, slug)!.id
}

/**
 * Stores `n` agents straight through the repository, half at each of two instants, so many rows
 * share one created_at and only the id can order them.
 */
function seed(a: TestApp, who: Actor, o: { n: number; env?: string; archived?: boolean }): Seeded[] {
  const environmentId = envOf(a, who, o.env ?? 'dev')
  const rows: Seeded[] = []
  a.db.transaction(() => {
    for (let i = 0; i < o.n; i++) {
      const id = randomUUID()
      const createdAt = i % 2 ? T1 : T2
      a.services.repos.workflows.insert({
        id,
        organization_id: who.organizationId,
        environment_id: environmentId,
        lineage_id: id,
        source_workflow_id: null,
        name: `agent ${i}`,
        description: '',
        template_id: null,
        draft_definition: '{}',
        draft_config: '{}',
        created_by: who.userId,
        created_at: createdAt,
      })
      if (o.archived) a.services.repos.workflows.setArchived({ organizationId: who.organizationId, environmentId }, id, true, createdAt)
      rows.push({ id, key: createdAt })
    }
  })()
  return rows
}

t.test('GET /workflows is paged with limit/offset, X-Total-Count and Link', async (t) => {
  const a = await startTestApp()
  t.teardown(() => a.close())
  const owner = await newOwner(a)
  const other = await newOwner(a)
  const { defaultLimit, maxLimit } = DEFAULT_WORKFLOW_PAGE_LIMITS
  const live = seed(a, owner, { n: maxLimit + 31 })
  const archived = seed(a, owner, { n: maxLimit + 5, archived: true })
  const staging = seed(a, owner, { n: 3, env: 'staging' })
  const foreign = seed(a, other, { n: 40 })
  const get = (url: string) => a.request('GET', url, { token: owner.token })
  const idOf = (w: unknown) => (w as { id: string }).id

  await t.test('the default listing (not archived)', (t) =>
    checkPagedList(t, { path: W, get, mine: live, theirs: [...archived, ...staging, ...foreign], defaultLimit, maxLimit, idOf }),
  )
  await t.test('archived=true pages the archived agents alone', (t) =>
    checkPagedList(t, { path: `${W}?archived=true`, get, mine: archived, theirs: [...live, ...staging, ...foreign], defaultLimit, maxLimit, idOf }),
  )

  await t.test('the next link keeps the archived filter', async (t) => {
    const res = await get(`${W}?archived=true&limit=3`)
    t.match(res.headers.get('link'), /<\/api\/v1\/workflows\?archived=true&limit=3&offset=3>; rel="next"/)
  })

  await t.test('the other organization sees only its own agents', async (t) => {
    const res = await a.request('GET', `${W}?limit=${maxLimit}`, { token: other.token })
    t.equal(res.status, 200)
    t.equal(res.headers.get('x-total-count'), String(foreign.length))
    t.same(new Set(res.body.map(idOf)), new Set(foreign.map((r) => r.id)))
  })
})

t.test('agents created through the API in one millisecond list in one stable order', async (t) => {
  const a = await startTestApp()
  t.teardown(() => a.close())
  const owner = await newOwner(a)
  const created: string[] = []
  for (let i = 0; i < 9; i++) {
    const res = await a.request('POST', W, { token: owner.token, body: { name: `same instant ${i}` } })
    t.equal(res.status, 201)
    created.push(res.body.id)
  }
  // The test clock does not move, so all nine share created_at: the order is by id alone.
  const seen: string[] = []
  for (let offset = 0; offset < 9; offset += 2) {
    const res = await a.request('GET', `${W}?limit=2&offset=${offset}`, { token: owner.token })
    seen.push(...res.body.map((w: { id: string }) => w.id))
  }
  t.same(seen, [...created].sort())
})
