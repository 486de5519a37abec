import t from 'tap'
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { createLogger, loadConfig, loadSecrets, ManualClock } from '../../../core/index.js'
import { migrate, openDatabase } from '../../../db/index.js'
import { createApp } from '../../../api/index.js'

const ROOT = path.resolve(import.meta.dirname, '../../..')

/** Builds the app as start-up does, over a data dir and a plans file; returns what it threw. */
async function start(dir: string, plans: unknown, seed?: (db: ReturnType<typeof openDatabase>) => void): Promise<Error | null> {
  const file = path.join(dir, 'plans.json')
  fs.writeFileSync(file, typeof plans === 'string' ? plans : JSON.stringify(plans))
  const config = loadConfig({ OZAN_DATA_DIR: dir, OZAN_PLANS_FILE: file })
  const db = openDatabase(config.databaseFile)
  migrate(db)
  seed?.(db)
  try {
    const app = createApp({ db, config, secrets: loadSecrets(config), logger: createLogger('silent'), clock: new ManualClock() })
    // Closed before the database: closing stops workers that still write to it.
    await app.close()
    return null
  } catch (err) {
    return err as Error
  } finally {
    db.close()
  }
}

t.test('a bad plans file stops start-up naming the file and each problem', async (t) => {
  const dir = t.testdir({})
  const err = await start(dir, { default_plan: 'free', plans: [{ key: 'free', name: 'Free', limits: { agents: 'ten' } }] })
  t.equal(err?.name, 'PlansFileError')
  t.match(err?.message, `invalid plans file OZAN_PLANS_FILE=${path.join(dir, 'plans.json')}`)
  t.match(err?.message, /plans\[0\]\.limits\.agents: /)
})

t.test('a good plans file starts', async (t) => {
  t.equal(await start(t.testdir({}), { default_plan: 'free', plans: [{ key: 'free', name: 'Free' }] }), null)
})

t.test('organizations on a plan the file no longer defines stop start-up', async (t) => {
  const err = await start(t.testdir({}), { default_plan: 'free', plans: [{ key: 'free', name: 'Free' }] }, (db) => {
    db.prepare("INSERT INTO organizations (id, name, created_at, updated_at) VALUES ('org-1', 'Acme', 0, 0)").run()
    db.prepare("INSERT INTO organization_plans (organization_id, plan_key, assigned_at) VALUES ('org-1', 'gold', 0)").run()
  })
  t.match(err?.message, /1 organization is on plan "gold", which the file does not define/)
})

t.test('the run command exits 1 and prints the problem', async (t) => {
  const dir = t.testdir({ 'plans.json': '{"default_plan": "free", "plans": [' })
  const run = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const env = { ...process.env, OZAN_DATA_DIR: dir, OZAN_PORT: '0', OZAN_ENGINE_PORT: '0', OZAN_SIP: 'off', OZAN_PLANS_FILE: path.join(dir, 'plans.json') }
    const child = spawn(path.join(ROOT, 'node_modules/.bin/tsx'), ['bin/ozan.ts'], { cwd: ROOT, env })
    let stderr = ''
    child.stderr.on('data', (d) => (stderr += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
    child.on('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, stderr })
    })
  })
  t.equal(run.code, 1)
  t.match(run.stderr, /ozan: failed to start: invalid plans file OZAN_PLANS_FILE=.*plans\.json:\n {2}not valid JSON/)
})
