import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { createRepos, migrate, openDatabase, tenancyVersions } from '../../db/index.js'

function fresh(t: { teardown(fn: () => unknown): void }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ozan-versions-'))
  const file = path.join(dir, 'ozan.db')
  const db = openDatabase(file)
  migrate(db)
  t.teardown(() => {
    db.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })
  const repos = createRepos(db)
  const v = tenancyVersions(db)
  const now = Date.now()
  repos.users.insert({ id: 'u1', email: 'a@example.com', name: 'A', password_hash: 'x', locale: 'en', created_at: now })
  const org = repos.organizations.create('One', 'u1', now)
  const other = repos.organizations.create('Two', 'u1', now)
  return { db, file, repos, v, org: org.id, other: other.id, now }
}

t.test('a write to any watched table moves the stamp of its organization only', async (t) => {
  const { db, repos, v, org, other, now } = fresh(t)
  const writes: [string, () => unknown][] = [
    ['org_members insert', () => repos.organizations.addMember(org, 'u1', 1, now)],
    ['org_members update', () => repos.members.setRole(org, 'u1', 2)],
    ['roles insert', () => repos.roles.insert(org, { key: 'custom', name: 'Custom', description: '', permissions: [] }, now)],
    [
      'api_keys insert',
      () =>
        repos.apiKeys.insert({
          id: 'k1',
          organization_id: org,
          created_by: 'u1',
          name: 'k',
          lookup: '0123456789abcdef',
          secret_hash: 'h',
          scopes: null,
          created_at: now,
          expires_at: null,
        }),
    ],
    ['api_keys last_used_at', () => repos.apiKeys.touch('k1', now, 0)],
    ['organizations update', () => repos.organizations.update({ id: org, name: 'Renamed', default_environment: 'prod', updated_at: now })],
    ['projects and environments insert', () => repos.projects.create(org, 'P', now)],
    ['raw SQL', () => db.prepare('UPDATE environments SET created_at = 1 WHERE organization_id = ?').run(org)],
    ['api_keys delete', () => repos.apiKeys.delete(org, 'k1')],
    ['org_members delete', () => repos.members.remove(org, 'u1')],
  ]
  for (const [what, write] of writes) {
    const mine = v.stamp(org)
    const theirs = v.stamp(other)
    write()
    t.notOk(v.isCurrent(mine, org), `${what}: stale`)
    t.ok(v.isCurrent(theirs, other), `${what}: another organization is untouched`)
  }
})

t.test('users and built-in roles concern every organization', async (t) => {
  const { db, repos, v, org, other, now } = fresh(t)
  const stamps = () => [v.stamp(org), v.stamp(other)] as const
  let [a, b] = stamps()
  repos.users.markVerified('u1', now)
  t.notOk(v.isCurrent(a, org))
  t.notOk(v.isCurrent(b, other))
  ;[a, b] = stamps()
  db.prepare("UPDATE roles SET description = 'x' WHERE id = 1").run()
  t.notOk(v.isCurrent(a, org))
  t.notOk(v.isCurrent(b, other))
})

t.test('reads and writes to other tables move nothing', async (t) => {
  const { db, repos, v, org } = fresh(t)
  const s = v.stamp(org)
  const changes = v.changes
  repos.organizations.get(org)
  db.prepare(
    "INSERT INTO request_logs (organization_id, method, route, status, duration_ms, request_id, created_at) VALUES (?, 'GET', '/x', 200, 1, 'r', 0)",
  ).run(org)
  v.sync()
  t.ok(v.isCurrent(s, org))
  t.equal(v.changes, changes)
})

t.test("another connection's commit is seen at the next sync, and only then", async (t) => {
  const { file, v, org } = fresh(t)
  const s = v.stamp(org)
  const other = openDatabase(file)
  other
    .prepare("INSERT INTO request_logs (organization_id, method, route, status, duration_ms, request_id, created_at) VALUES (?, 'GET', '/x', 200, 1, 'r', 0)")
    .run(org)
  other.close()
  t.ok(v.isCurrent(s, org), 'not before sync')
  v.sync()
  t.notOk(v.isCurrent(s, org), 'any commit elsewhere: everything is re-read')
})

t.test('one set of counters per connection', async (t) => {
  const { db, v } = fresh(t)
  t.equal(tenancyVersions(db), v)
})
