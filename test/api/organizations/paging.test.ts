import t from 'tap'
import { DEFAULT_ORGANIZATION_PAGE_LIMITS } from '../../../api/organizations/schema.js'
import { startTestApp } from '../../helpers/app.js'
import { newOwner } from '../../helpers/tenancy-fixtures.js'
import { checkPagedList, type Seeded } from '../http/paging-fixtures.js'

const T1 = Date.parse('2025-06-02T09:00:00Z')

t.test('GET /organizations is paged: joined earliest first, ties by name then id, the caller’s memberships only', async (t) => {
  const a = await startTestApp()
  t.teardown(() => a.close())
  const user = await newOwner(a)
  const other = await newOwner(a)
  const { defaultLimit, maxLimit } = DEFAULT_ORGANIZATION_PAGE_LIMITS
  const { organizations } = a.services.repos
  const joined = (orgId: string) =>
    (a.db.prepare('SELECT created_at FROM org_members WHERE organization_id = ? AND user_id = ?').get(orgId, user.userId) as { created_at: number }).created_at
  const mine: Seeded[] = [{ id: user.organizationId, key: joined(user.organizationId) }]
  for (let i = 0; i < maxLimit + 4; i++) {
    const at = T1 + (i % 2) * 1000
    // One name for all: rows joined in the same millisecond are then ordered by id alone.
    const org = organizations.create('Shared name', null, at)
    organizations.addMember(org.id, user.userId, 4, at)
    mine.push({ id: org.id, key: at })
  }
  const theirs: Seeded[] = Array.from({ length: 6 }, () => {
    const org = organizations.create('Shared name', null, T1)
    organizations.addMember(org.id, other.userId, 4, T1)
    return { id: org.id, key: T1 }
  })
  await checkPagedList(t, {
    path: '/api/v1/organizations',
    get: (url) => a.request('GET', url, { token: user.token }),
    mine,
    theirs,
    defaultLimit,
    maxLimit,
    ascending: true,
    idOf: (o) => (o as { id: string }).id,
  })

  await t.test('current marks the organization the session acts in, on whichever page it falls', async (t) => {
    const res = await a.request('GET', `/api/v1/organizations?limit=${maxLimit}&offset=${maxLimit}`, { token: user.token })
    t.same(
      res.body.filter((o: { current: boolean }) => o.current).map((o: { id: string }) => o.id),
      [user.organizationId],
    )
  })
})
