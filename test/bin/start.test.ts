import t from 'tap'
import { spawn } from 'node:child_process'
import path from 'node:path'

const ROOT = path.resolve(import.meta.dirname, '../..')
const TSX = path.join(ROOT, 'node_modules/.bin/tsx')

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

/** Starts `bin/ozan.ts` as the run command does; `whenUp` runs once it prints its URLs. */
function start(env: Record<string, string>, whenUp?: (out: string, kill: () => void) => Promise<void>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, ['bin/ozan.ts'], { cwd: ROOT, env: { ...process.env, ...env, OZAN_LOG_LEVEL: 'warn' } })
    let stdout = ''
    let stderr = ''
    let up = false
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
    child.stdout.on('data', (d) => {
      stdout += d
      if (!up && whenUp && stdout.includes('OpenAPI:')) {
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
  const run = await start({ OZAN_DATA_DIR: dir, OZAN_PORT: '0' }, async (out, kill) => {
    const api = /API:\s+(http:\/\/localhost:(\d+)\/api\/v1)/.exec(out)
    t.ok(api, 'prints the API URL with the port it bound')
    t.not(api?.[2], '0')
    const res = await fetch(`http://127.0.0.1:${api?.[2]}/api/v1/openapi.json`)
    t.equal(res.status, 200, 'the printed URL answers')
    t.match(out, /Reference:\s+\S+\/docs/)
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
  const run = await start({ OZAN_DATA_DIR: dir, OZAN_PORT: '0' })
  t.not(run.code, 0)
  t.match(run.stderr, /ozan: failed to start: .*not a database/)
})
