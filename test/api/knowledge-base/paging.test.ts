import { randomUUID } from 'node:crypto'
import t from 'tap'
import { DEFAULT_DOCUMENT_PAGE_LIMITS } from '../../../api/knowledge-base/schema.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { newOwner, type Actor } from '../../helpers/tenancy-fixtures.js'
import { checkPagedList, type Seeded } from '../http/paging-fixtures.js'

const DOCS = '/api/v1/knowledge-base/documents'
const T1 = Date.parse('2025-06-02T09:00:00Z')
const T2 = T1 + 60_000

/** Stores `n` documents (no chunks) through the repository, half at each of two instants. */
function seed(a: TestApp, who: Actor, n: number, env = 'dev'): Seeded[] {
  const environmentId = a.services.repos.projects.defaultProjectEnvironment(who.organizationId, env)!.id
  const rows: Seeded[] = []
  for (let i = 0; i < n; i++) {
    const id = randomUUID()
    const createdAt = i % 2 ? T1 : T2
    a.services.repos.knowledge.insert(
      {
        id,
        organization_id: who.organizationId,
        environment_id: environmentId,
        title: `doc ${i}`,
        source: null,
        content_type: 'text/plain',
        size_bytes: 5,
        text: 'hello',
        metadata: '{}',
        created_by: who.userId,
        created_at: createdAt,
      },
      [],
    )
    rows.push({ id, key: createdAt })
  }
  return rows
}

t.test('GET /knowledge-base/documents is paged with limit/offset, X-Total-Count and Link', async (t) => {
  const a = await startTestApp()
  t.teardown(() => a.close())
  const owner = await newOwner(a)
  const other = await newOwner(a)
  const { defaultLimit, maxLimit } = DEFAULT_DOCUMENT_PAGE_LIMITS
  const mine = seed(a, owner, maxLimit + 13)
  const theirs = [...seed(a, other, 30), ...seed(a, owner, 4, 'prod')]
  const get = (url: string) => a.request('GET', url, { token: owner.token })
  await checkPagedList(t, { path: DOCS, get, mine, theirs, defaultLimit, maxLimit, idOf: (d) => (d as { id: string }).id })

  await t.test('a document added through the API is on the first page, without its text', async (t) => {
    const created = await a.request('POST', DOCS, { token: owner.token, body: { title: 'newest', text: 'Opening hours are nine to five.' } })
    t.equal(created.status, 201)
    const res = await get(`${DOCS}?limit=1`)
    t.same(
      res.body.map((d: { id: string }) => d.id),
      [created.body.id],
    )
    t.notOk('text' in res.body[0])
    t.equal(res.headers.get('x-total-count'), String(mine.length + 1))
  })
})
