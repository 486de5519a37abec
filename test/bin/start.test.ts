import t from 'tap'
import { spawn } from 'node:child_process'
import path from 'node:path'
import { createServer, type AddressInfo } from 'node:net'

const ROOT = path.resolve(import.meta.dirname, '../..')
const TSX = path.join(ROOT, 'node_modules/.bin/tsx')

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

/** Starts `bin/ozan.ts` as the run command does; `whenUp` runs once it prints its URLs. */
function start(env: Record<string, string>, whenUp?: (out: string, kill: () => void) => Promise<void>, args: string[] = [], upWhen = 'OpenAPI:'): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, ['bin/ozan.ts', ...args], { cwd: ROOT, env: { ...process.env, ...env, OZAN_LOG_LEVEL: 'warn' } })
    let stdout = ''
    let stderr = ''
    let up = false
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
    child.stdout.on('data', (d) => {
      stdout += d
      if (!up && whenUp && stdout.includes(upWhen)) {
        up = true
        whenUp(stdout, () => child.kill('SIGTERM')).catch(reject)
      }
    })
    child.stderr.on('data', (d) => (stderr += d))
    child.on('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

t.test('the run command starts on the embedded default, prints its URLs and stops on SIGTERM', async (t) => {
  const dir = t.testdir({})
  const run = await start({ OZAN_DATA_DIR: dir, OZAN_PORT: '0', OZAN_ENGINE_PORT: '0' }, async (out, kill) => {
    const api = /API:\s+(http:\/\/localhost:(\d+)\/api\/v1)/.exec(out)
    t.ok(api, 'prints the API URL with the port it bound')
    t.not(api?.[2], '0')
    const res = await fetch(`http://127.0.0.1:${api?.[2]}/api/v1/openapi.json`)
    t.equal(res.status, 200, 'the printed URL answers')
    t.match(out, /Reference:\s+\S+\/docs/)
    const page = /Call page:\s+(\S+\/call) /.exec(out)
    t.ok(page, 'prints the call page URL')
    t.equal((await fetch(page![1]!.replace('localhost', '127.0.0.1'))).status, 200, 'the call page answers')
    const engine = /Engine:\s+ws:\/\/localhost:(\d+)\/v1\/calls\/ws \((uws|ws)\)/.exec(out)
    t.ok(engine, 'prints the call engine URL and transport')
    t.not(engine?.[1], '0', 'with the port it bound')
    kill()
  })
  t.equal(run.code, 0, 'exits 0 after SIGTERM')
  t.match(run.stdout, /ozan\.db/)
})

t.test('invalid configuration stops start-up naming the variable', async (t) => {
  const run = await start({ OZAN_PORT: 'not-a-port', OZAN_DATA_DIR: t.testdir({}) })
  t.equal(run.code, 78)
  t.match(run.stderr, /OZAN_PORT/)
})

t.test('a corrupt database file stops start-up with a clear message', async (t) => {
  const dir = t.testdir({ 'ozan.db': 'this is not a sqlite database at all, just text padding to fill a page' })
  const run = await start({ OZAN_DATA_DIR: dir, OZAN_PORT: '0', OZAN_ENGINE_PORT: '0' })
  t.not(run.code, 0)
  t.match(run.stderr, /ozan: failed to start: .*not a database/)
})

t.test('a web call a crash left active is marked failed at the next start', async (t) => {
  const { startTestApp } = await import('../helpers/app.js')
  const { newOwner, createWorkflow } = await import('../helpers/tenancy-fixtures.js')
  const { openDatabase } = await import('../../db/index.js')
  const { randomUUID } = await import('node:crypto')
  const a = await startTestApp()
  const owner = await newOwner(a)
  const workflowId = await createWorkflow(a, owner)
  const wf = a.db.prepare('SELECT organization_id, environment_id FROM workflows WHERE id = ?').get(workflowId) as {
    organization_id: string
    environment_id: string
  }
  const id = randomUUID()
  a.services.repos.sessions.insert({
    id,
    organization_id: wf.organization_id,
    environment_id: wf.environment_id,
    workflow_id: workflowId,
    workflow_version: null,
    channel: 'web',
    definition: '{}',
    config: '{}',
    state: '{}',
    started_by_user: null,
    started_by_key: null,
    started_at: Date.now(),
  })
  // A copy of the database as a crash would leave it (the test app removes its own directory).
  const dir = t.testdir({})
  a.db.prepare('VACUUM INTO ?').run(path.join(dir, 'ozan.db'))
  await a.close()
  const run = await start({ OZAN_DATA_DIR: dir, OZAN_PORT: '0', OZAN_ENGINE_PORT: '0' }, async (_out, kill) => kill())
  t.equal(run.code, 0)
  const db = openDatabase(path.join(dir, 'ozan.db'))
  t.teardown(() => db.close())
  t.match(db.prepare('SELECT status, error_code FROM sessions WHERE id = ?').get(id), { status: 'failed', error_code: 'interrupted' })
})

t.test('`ozan api` and `ozan engine` start one half each; an unknown command is refused', async (t) => {
  const dir = t.testdir({})
  const env = { OZAN_DATA_DIR: dir, OZAN_PORT: '0', OZAN_ENGINE_PORT: '0' }
  const api = await start(
    env,
    async (out, kill) => {
      const port = /API:\s+http:\/\/localhost:(\d+)/.exec(out)?.[1]
      t.equal((await fetch(`http://127.0.0.1:${port}/api/v1/openapi.json`)).status, 200, 'the API answers')
      kill()
    },
    ['api'],
  )
  t.equal(api.code, 0)
  t.match(api.stdout, /running \(api only\)/)
  t.notMatch(api.stdout, /Engine:/, 'no engine in an API process')
  // The port the API would take: an engine process must leave it closed (no Koa app, no API port).
  const apiPort = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo
      probe.close(() => resolve(port))
    })
  })
  const engine = await start(
    { ...env, OZAN_PORT: String(apiPort) },
    async (out, kill) => {
      const port = /Engine:\s+ws:\/\/localhost:(\d+)/.exec(out)?.[1]
      t.ok(port && port !== '0', 'the engine listens')
      await t.rejects(fetch(`http://127.0.0.1:${apiPort}/api/v1/openapi.json`), 'and nothing answers on the API port')
      kill()
    },
    ['engine'],
    'Engine:',
  )
  t.equal(engine.code, 0)
  t.notMatch(engine.stdout, /API:/, 'no REST API in an engine process')
  const bad = await start(env, undefined, ['both'])
  t.equal(bad.code, 64)
  t.match(bad.stderr, /unknown command "both"/)
})
