import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { assertAssignedPlansExist, loadPlans, parsePlans, PlansFileError, UNLIMITED_PLAN } from '../../../api/entitlements/index.js'

const FILE = '/etc/ozan/plans.json'
const parse = (v: unknown) => parsePlans(JSON.stringify(v), FILE)
/** The problems a file is refused for, one a line. */
const problems = (v: unknown) => {
  try {
    parse(v)
  } catch (err) {
    if (err instanceof PlansFileError) return err.message
    throw err
  }
  throw new Error('the file was accepted')
}

t.test('no plans file: one unlimited plan, the default, with every feature', async (t) => {
  const catalog = loadPlans(null)
  t.equal(catalog.plans.length, 1)
  t.equal(catalog.default, UNLIMITED_PLAN)
  t.ok(
    Object.values(catalog.default.limits).every((l) => l === null),
    'every limit is null',
  )
  t.same(catalog.default.features, { web_calls: true })
})

t.test('a plan leaving limits and features out is unlimited and has every feature', async (t) => {
  const catalog = parse({
    default_plan: 'free',
    plans: [
      { key: 'free', name: 'Free', limits: { agents: 2 } },
      { key: 'pro', name: 'Pro' },
    ],
  })
  t.equal(catalog.default.key, 'free')
  t.equal(catalog.get('free')!.limits.agents, 2)
  t.equal(catalog.get('free')!.limits.api_keys, null)
  t.same(catalog.get('pro')!.features, { web_calls: true })
  t.equal(catalog.get('pro')!.description, '')
  t.equal(catalog.get('nope'), undefined)
})

t.test('each problem is named by its place in the file', async (t) => {
  const message = problems({
    default_plan: 'gold',
    plans: [{ key: 'free', name: 'Free', limits: { agents: -1, members: 0, live_calls: 1.5 } }],
  })
  t.match(message, /^invalid plans file OZAN_PLANS_FILE=\/etc\/ozan\/plans\.json:/)
  t.match(message, /plans\[0\]\.limits\.agents: /)
  t.match(message, /plans\[0\]\.limits\.members: /, 'a plan needs room for the member who creates an organization')
  t.match(message, /plans\[0\]\.limits\.live_calls: /)
})

t.test('a key defined twice is refused', async (t) => {
  const twice = {
    default_plan: 'free',
    plans: [
      { key: 'free', name: 'Free' },
      { key: 'free', name: 'Again' },
    ],
  }
  t.match(problems(twice), /plans\[1\]\.key: "free" is defined twice/)
})

t.test('a default plan that is not among the plans is refused', async (t) => {
  t.match(problems({ default_plan: 'gold', plans: [{ key: 'free', name: 'Free' }] }), /default_plan: "gold" is not one of the plans/)
})

t.test('a misspelt limit or feature is refused, not ignored', async (t) => {
  t.match(problems({ default_plan: 'free', plans: [{ key: 'free', name: 'Free', limits: { agent: 2 } }] }), /plans\[0\]\.limits: .*agent/)
  t.match(problems({ default_plan: 'free', plans: [{ key: 'free', name: 'Free', features: { webcalls: false } }] }), /plans\[0\]\.features: .*webcalls/)
  t.match(problems({ default_plan: 'free', plans: [{ key: 'free', name: 'Free' }], extra: 1 }), /\(file\): .*extra/)
})

t.test('bad keys, empty catalogs and too many plans are refused', async (t) => {
  t.match(problems({ default_plan: 'Free', plans: [{ key: 'Free', name: 'Free' }] }), /plans\[0\]\.key: must be 1-40 lower-case/)
  t.match(problems({ default_plan: 'free', plans: [] }), /plans: /)
  const many = Array.from({ length: 51 }, (_, i) => ({ key: `p${i}`, name: `P${i}` }))
  t.match(problems({ default_plan: 'p0', plans: many }), /plans: /)
})

t.test('text that is not JSON, or too large, is refused with the reason', async (t) => {
  t.throws(() => parsePlans('{ "plans": [', FILE), { name: 'PlansFileError', message: /not valid JSON/ })
  t.throws(() => parsePlans(`${' '.repeat(300 * 1024)}{}`, FILE), { name: 'PlansFileError', message: /larger than 262144 bytes/ })
})

t.test('a file that cannot be read is refused naming it', async (t) => {
  const missing = path.join(t.testdir({}), 'absent.json')
  t.throws(() => loadPlans(missing), { name: 'PlansFileError', message: new RegExp(`OZAN_PLANS_FILE=${missing}:\\n  cannot be read: ENOENT`) })
})

t.test('a readable file is loaded', async (t) => {
  const file = path.join(t.testdir({}), 'plans.json')
  fs.writeFileSync(file, JSON.stringify({ default_plan: 'free', plans: [{ key: 'free', name: 'Free', limits: { agents: 1 } }] }))
  const catalog = loadPlans(file)
  t.equal(catalog.source, file)
  t.equal(catalog.default.limits.agents, 1)
})

t.test('organizations on a plan the file no longer defines stop start-up, counted', async (t) => {
  const catalog = parse({ default_plan: 'free', plans: [{ key: 'free', name: 'Free' }] })
  t.doesNotThrow(() => assertAssignedPlansExist(catalog, [{ plan_key: 'free', n: 4 }]))
  t.throws(
    () =>
      assertAssignedPlansExist(catalog, [
        { plan_key: 'free', n: 4 },
        { plan_key: 'gold', n: 2 },
      ]),
    { name: 'PlansFileError', message: /2 organizations are on plan "gold", which the file does not define/ },
  )
})
