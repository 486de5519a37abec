import { randomUUID } from 'node:crypto'
import t, { type Test } from 'tap'
import { DEFAULT_RBAC_PAGE_LIMITS } from '../../../api/rbac/schema.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { newOwner, type Actor } from '../../helpers/tenancy-fixtures.js'
import { checkPagedList, type Seeded } from '../http/paging-fixtures.js'

const T1 = Date.parse('2025-06-02T09:00:00Z')
const FAR = Date.parse('2099-01-01T00:00:00Z')
const { defaultLimit, maxLimit } = DEFAULT_RBAC_PAGE_LIMITS

async function scene(t: Test) {
  const a = await startTestApp()
  t.teardown(() => a.close())
  return { a, owner: await newOwner(a), other: await newOwner(a) }
}
const getAs = (a: TestApp, who: Actor) => (url: string) => a.request('GET', url, { token: who.token })

t.test('GET /rbac/roles is paged: built-in roles first, then custom roles by id', async (t) => {
  const { a, owner, other } = await scene(t)
  const roles = a.services.repos.roles
  // Integer ids compare as numbers in SQL; padded, they compare alike as strings.
  const pad = (id: number) => String(id).padStart(12, '0')
  const custom = (who: Actor, i: number): Seeded => ({
    id: pad(roles.insert(who.organizationId, { key: `role_${i}`, name: `Role ${i}`, description: '', permissions: [] }, T1)),
    key: 0,
  })
  const builtins = roles
    .list(owner.organizationId)
    .filter((r) => r.builtin)
    .map((r) => ({ id: pad(r.id), key: 1 }))
  const mine = [...builtins, ...Array.from({ length: maxLimit + 3 }, (_, i) => custom(owner, i))]
  const theirs = Array.from({ length: 5 }, (_, i) => custom(other, i))
  await checkPagedList(t, {
    path: '/api/v1/rbac/roles',
    get: getAs(a, owner),
    mine,
    theirs,
    defaultLimit,
    maxLimit,
    idOf: (r) => pad((r as { id: number }).id),
  })
})

t.test('GET /rbac/members is paged: longest-standing first, ties by email', async (t) => {
  const { a, owner, other } = await scene(t)
  const { users, organizations } = a.services.repos
  const join = (org: Actor, i: number): Seeded => {
    const id = randomUUID()
    // The email starts with the id, so the email tiebreak orders as the id does.
    users.insert({ id, email: `${id}@example.com`, name: `Member ${i}`, password_hash: 'x', locale: 'en', created_at: T1 })
    const at = T1 + (i % 2) * 1000
    organizations.addMember(org.organizationId, id, 4, at)
    return { id, key: at }
  }
  const ownerJoined = (a.db.prepare('SELECT created_at FROM org_members WHERE user_id = ?').get(owner.userId) as { created_at: number }).created_at
  const mine = [{ id: owner.userId, key: ownerJoined }, ...Array.from({ length: maxLimit + 5 }, (_, i) => join(owner, i))]
  const theirs = [{ id: other.userId, key: 0 }, ...Array.from({ length: 4 }, (_, i) => join(other, i))]
  await checkPagedList(t, {
    path: '/api/v1/rbac/members',
    get: getAs(a, owner),
    mine,
    theirs,
    defaultLimit,
    maxLimit,
    ascending: true,
    idOf: (m) => (m as { user_id: string }).user_id,
  })
})

t.test('GET /rbac/invitations is paged: pending ones only, newest first', async (t) => {
  const { a, owner, other } = await scene(t)
  const invite = (org: Actor, i: number, expiresAt = FAR): Seeded => {
    const id = randomUUID()
    const at = T1 + (i % 2) * 1000
    a.services.repos.invitations.replace({
      id,
      organization_id: org.organizationId,
      email: `invitee-${i}-${id}@example.com`,
      role_id: 4,
      token_hash: randomUUID(),
      invited_by: org.userId,
      created_at: at,
      expires_at: expiresAt,
    })
    return { id, key: at }
  }
  const mine = Array.from({ length: maxLimit + 7 }, (_, i) => invite(owner, i))
  // Expired invitations of this organization are not pending: they must not be listed either.
  const theirs = [...Array.from({ length: 4 }, (_, i) => invite(other, i)), ...Array.from({ length: 3 }, (_, i) => invite(owner, 1000 + i, T1 + 1))]
  await checkPagedList(t, {
    path: '/api/v1/rbac/invitations',
    get: getAs(a, owner),
    mine,
    theirs,
    defaultLimit,
    maxLimit,
    idOf: (v) => (v as { id: string }).id,
  })
})
