import { Writable } from 'node:stream'
import t, { type Test } from 'tap'
import { createApp, listen } from '../../../api/index.js'
import { createLogger, loadConfig, loadSecrets, ManualClock } from '../../../core/index.js'
import { migrate, openDatabase } from '../../../db/index.js'
import { startOpenAiStandIn } from '../../../engine/pipeline/providers/stand-ins/index.js'
import { BOOKED, BOOKING_GRAPH, KEY, S, scripted, W } from './suite-fixtures.js'

// A run survives the process: a stop mid-case leaves the case running; the next process on the
// same database file runs it again from its start (or, past OZAN_TEST_RUN_MAX_ATTEMPTS, fails it
// as interrupted), and runs the cases still queued. Nothing is lost either way.

/** The app as `ozan` builds it, on a data directory; `request` speaks to its API. */
async function open(dataDir: string, env: Record<string, string>) {
  const config = loadConfig({ OZAN_DATA_DIR: dataDir, OZAN_PORT: '0', OZAN_HOST: '127.0.0.1', OZAN_TEST_RUN_CONCURRENCY: '1', ...env })
  const logger = createLogger('warn', new Writable({ write: (_c, _e, done) => done() }))
  const db = openDatabase(config.databaseFile)
  migrate(db)
  const app = createApp({ db, config, secrets: loadSecrets(config), logger, clock: new ManualClock(Date.parse('2026-11-27T09:00:00Z')) })
  const server = await listen(app, '127.0.0.1', 0, logger)
  const request = async (method: string, path: string, token: string | null, body?: unknown) => {
    const res = await fetch(`http://127.0.0.1:${server.port}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    // biome-ignore lint/suspicious/noExplicitAny: response bodies are read loosely in tests
    return { status: res.status, body: (await res.json().catch(() => null)) as any }
  }
  const close = async () => {
    await server.close(1000)
    await app.close()
    db.close()
  }
  return { app, request, close }
}

const simulated = {
  name: 'simulated',
  caller: { type: 'simulated', persona: 'Ayşe', goal: 'Book Monday.', max_turns: 3 },
  tool_results: BOOKED,
  assertions: [{ type: 'ended', disposition: 'booked' }],
}

/** A first process whose run has its first case in flight (the LLM hanging) when it stops. */
async function stoppedMidRun(t: Test, env: Record<string, string>) {
  const dataDir = t.testdir({})
  const llm = await startOpenAiStandIn({ apiKey: KEY })
  t.teardown(() => llm.close())
  const llmEnv = { OZAN_OPENAI_API_KEY: KEY, OZAN_OPENAI_BASE_URL: llm.url, ...env }
  const first = await open(dataDir, llmEnv)
  const reg = await first.request('POST', '/api/v1/auth/register', null, { email: 'owner@example.com', password: 'correct horse battery', name: 'Owner' })
  const token = reg.body.access_token as string
  const wf = (await first.request('POST', W, token, { name: 'Booking', definition: BOOKING_GRAPH })).body.id
  t.equal((await first.request('POST', `${W}/${wf}/publish`, token)).status, 200)
  const suite = await first.request('POST', S, token, { name: 'S', workflow_uuid: wf, cases: [simulated, scripted('scripted', ['Ayşe'], [{ type: 'ended' }])] })
  t.equal(suite.status, 201)
  llm.fail({ kind: 'hang' })
  const run = await first.request('POST', `${S}/${suite.body.id}/runs`, token, {})
  t.equal(run.status, 202)
  for (let i = 0; i < 300 && llm.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 10))
  t.equal(llm.requests.length, 1, 'the first case is at the LLM, hanging')
  await first.close()
  const path = `${S}/${suite.body.id}/runs/${run.body.id}`
  return { dataDir, llm, llmEnv, token, path }
}

async function settledRun(app: Awaited<ReturnType<typeof open>>, path: string, token: string) {
  for (let i = 0; i < 300; i++) {
    await app.app.services.testRunWorker.settled()
    const run = await app.request('GET', path, token)
    if (run.body.status === 'passed' || run.body.status === 'failed') return run.body
    await new Promise((r) => setTimeout(r, 10))
  }
  throw new Error('the run did not finish')
}

t.test('a case in flight when the server stops runs again at the next start, and the queued ones after it', async (t) => {
  const { dataDir, llm, llmEnv, token, path } = await stoppedMidRun(t, {})
  // As the stop left it, read straight from the file.
  const db = openDatabase(`${dataDir}/ozan.db`)
  t.same(
    (db.prepare('SELECT status, attempts FROM test_run_cases ORDER BY position').all() as unknown[]).map((r) => ({ ...(r as object) })),
    [
      { status: 'running', attempts: 1 },
      { status: 'pending', attempts: 0 },
    ],
  )
  db.close()

  llm.fallback((last) => (last.includes('May I have your name?') ? { text: 'Ayşe' } : null))
  const second = await open(dataDir, llmEnv)
  t.teardown(() => second.close())
  const run = await settledRun(second, path, token)
  t.match(run, { status: 'passed', counts: { total: 2, passed: 2 } })
  t.match(run.cases, [
    { name: 'simulated', status: 'passed', attempts: 2 },
    { name: 'scripted', status: 'passed', attempts: 1 },
  ])
})

t.test('past its attempts, an interrupted case is failed as interrupted, and the run still finishes', async (t) => {
  const { dataDir, llmEnv, token, path } = await stoppedMidRun(t, { OZAN_TEST_RUN_MAX_ATTEMPTS: '1' })
  const second = await open(dataDir, llmEnv)
  t.teardown(() => second.close())
  const run = await settledRun(second, path, token)
  t.match(run, { status: 'failed', counts: { total: 2, passed: 1, error: 1 } })
  t.match(run.cases, [
    { name: 'simulated', status: 'error', error_code: 'interrupted', attempts: 1, reason: /server stopped while this case ran, 1 time/ },
    { name: 'scripted', status: 'passed' },
  ])
})
