import t from 'tap'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { PLANS_USAGE, runPlansCommand } from '../../../api/entitlements/index.js'
import { expectStatus } from '../../helpers/tenancy-fixtures.js'
import { E, PLANS, planScene } from './fixtures.js'

const ROOT = path.resolve(import.meta.dirname, '../../..')

t.test('assign puts an organization on a plan at once; unassign returns it to the default; both are audited', async (t) => {
  const s = await planScene(t)
  const run = (...args: string[]) => runPlansCommand(args, { repos: s.a.services.repos, catalog: s.a.services.entitlementGuard.catalog, clock: s.a.clock })
  const org = s.owner.organizationId
  t.match(run('show', org), { code: 0, out: /: small \(Small\), the default$/ })
  t.match(run('assign', org, 'roomy', 'sales ticket 42'), { code: 0, out: new RegExp(`\\(${org}\\) is on roomy \\(Roomy\\)`) })
  let got = expectStatus(await s.a.request('GET', E, { token: s.owner.token }), 200, 'entitlements')
  t.match(got.plan, { key: 'roomy', default: false }, 'the next request sees the new plan')
  t.equal(s.a.services.repos.entitlements.planOf(org)?.note, 'sales ticket 42')
  t.match(run('list'), { code: 0, out: /^small\tSmall\t0 assigned \(default.*\)\nroomy\tRoomy\t1 assigned\nno-web\tNo web\t0 assigned$/ })
  t.match(run('unassign', org), { code: 0, out: /is on the default plan, small$/ })
  got = expectStatus(await s.a.request('GET', E, { token: s.owner.token }), 200, 'entitlements')
  t.equal(got.plan.key, 'small')
  const audit = expectStatus(await s.a.request('GET', '/api/v1/audit', { token: s.owner.token }), 200, 'audit')
  const planEvents = audit.filter((e: { resource_type: string }) => e.resource_type === 'plan').reverse()
  t.match(planEvents, [
    { action: 'plan.assigned', actor: { type: 'system', id: 'ozan-plans' }, metadata: { plan: 'roomy', previous: null } },
    { action: 'plan.unassigned', actor: { type: 'system', id: 'ozan-plans' }, metadata: { plan: 'small', previous: 'roomy' } },
  ])
})

t.test('unknown organizations and plans are refused (1); wrong usage prints the usage (64)', async (t) => {
  const s = await planScene(t)
  const run = (...args: string[]) => runPlansCommand(args, { repos: s.a.services.repos, catalog: s.a.services.entitlementGuard.catalog, clock: s.a.clock })
  t.same(run('assign', 'no-such-org', 'roomy'), { code: 1, out: 'no organization has the id "no-such-org"' })
  t.match(run('assign', s.owner.organizationId, 'gold'), { code: 1, out: /no plan "gold" in .*plans\.json: small, roomy, no-web/ })
  t.equal(s.a.services.repos.entitlements.planOf(s.owner.organizationId), undefined, 'nothing assigned')
  for (const args of [[], ['frobnicate'], ['assign', s.owner.organizationId], ['show'], ['list', 'extra']])
    t.same(run(...args), { code: 64, out: PLANS_USAGE }, args.join(' '))
})

t.test('bin/ozan-plans.ts runs against the server’s data dir and plans file', async (t) => {
  const dir = t.testdir({})
  const file = path.join(dir, 'plans.json')
  fs.writeFileSync(file, JSON.stringify(PLANS))
  const env = { ...process.env, OZAN_DATA_DIR: dir, OZAN_PLANS_FILE: file }
  const cli = (...args: string[]) => spawnSync(path.join(ROOT, 'node_modules/.bin/tsx'), ['bin/ozan-plans.ts', ...args], { cwd: ROOT, env, encoding: 'utf8' })
  const list = cli('list')
  t.equal(list.status, 0)
  t.match(list.stdout, /^small\tSmall\t0 assigned/)
  const missing = cli('show', 'nobody')
  t.equal(missing.status, 1)
  t.match(missing.stderr, /no organization has the id "nobody"/)
  fs.writeFileSync(file, '{')
  const bad = cli('list')
  t.equal(bad.status, 78, 'a bad plans file: EX_CONFIG')
  t.match(bad.stderr, /ozan-plans: invalid plans file/)
})
