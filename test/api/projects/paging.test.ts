import t from 'tap'
import { DEFAULT_PROJECT_PAGE_LIMITS } from '../../../api/projects/schema.js'
import { startTestApp } from '../../helpers/app.js'
import { newOwner } from '../../helpers/tenancy-fixtures.js'
import { checkPagedList, type Seeded } from '../http/paging-fixtures.js'

const T1 = Date.parse('2025-06-02T09:00:00Z')

t.test('GET /projects is paged: the default project first, then oldest first, ties by id', async (t) => {
  const a = await startTestApp()
  t.teardown(() => a.close())
  const owner = await newOwner(a)
  const other = await newOwner(a)
  const { defaultLimit, maxLimit } = DEFAULT_PROJECT_PAGE_LIMITS
  const repos = a.services.repos.projects
  const [main] = repos.list(owner.organizationId)
  // Ascending by key: the default project's key sorts before every other.
  const mine: Seeded[] = [{ id: main!.id, key: 0 }]
  for (let i = 0; i < maxLimit + 6; i++) {
    const at = T1 + (i % 3) * 1000
    mine.push({ id: repos.create(owner.organizationId, `project ${i}`, at).id, key: at })
  }
  const theirs: Seeded[] = Array.from({ length: 5 }, (_, i) => ({ id: repos.create(other.organizationId, `theirs ${i}`, T1).id, key: T1 }))
  await checkPagedList(t, {
    path: '/api/v1/projects',
    get: (url) => a.request('GET', url, { token: owner.token }),
    mine,
    theirs,
    defaultLimit,
    maxLimit,
    ascending: true,
    idOf: (p) => (p as { id: string }).id,
  })
})
