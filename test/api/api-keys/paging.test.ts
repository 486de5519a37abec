import { randomUUID } from 'node:crypto'
import t from 'tap'
import { DEFAULT_API_KEY_PAGE_LIMITS } from '../../../api/api-keys/schema.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { newOwner, type Actor } from '../../helpers/tenancy-fixtures.js'
import { checkPagedList, type Seeded } from '../http/paging-fixtures.js'

const T1 = Date.parse('2025-06-02T09:00:00Z')

/** Stores `n` keys through the repository, half at each of two instants (ties ordered by id). */
function seed(a: TestApp, who: Actor, n: number): Seeded[] {
  return Array.from({ length: n }, (_, i) => {
    const id = randomUUID()
    const createdAt = T1 + (i % 2) * 60_000
    a.services.repos.apiKeys.insert({
      id,
      organization_id: who.organizationId,
      created_by: who.userId,
      name: `key ${i}`,
      lookup: randomUUID().replaceAll('-', ''),
      secret_hash: 'x'.repeat(64),
      scopes: null,
      created_at: createdAt,
      expires_at: null,
    })
    return { id, key: createdAt }
  })
}

t.test('GET /api-keys is paged, newest first, one organization only', async (t) => {
  const a = await startTestApp()
  t.teardown(() => a.close())
  const owner = await newOwner(a)
  const other = await newOwner(a)
  const { defaultLimit, maxLimit } = DEFAULT_API_KEY_PAGE_LIMITS
  const mine = seed(a, owner, maxLimit + 9)
  const theirs = seed(a, other, 12)
  await checkPagedList(t, {
    path: '/api/v1/api-keys',
    get: (url) => a.request('GET', url, { token: owner.token }),
    mine,
    theirs,
    defaultLimit,
    maxLimit,
    idOf: (k) => (k as { id: string }).id,
  })
})
