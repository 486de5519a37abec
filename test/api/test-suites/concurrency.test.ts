import t from 'tap'
import { newOwner } from '../../helpers/tenancy-fixtures.js'
import { agent, BOOKED, finished, S, scene, suite } from './suite-fixtures.js'

// OZAN_TEST_RUN_CONCURRENCY bounds the cases running at once over every run of the server (two
// organizations' runs here); each case waits 150 ms for each LLM answer, so they overlap if allowed.

const simulated = (name: string) => ({
  name,
  caller: { type: 'simulated', persona: 'Ayşe', goal: 'Book Monday.', max_turns: 2 },
  tool_results: BOOKED,
  assertions: [{ type: 'ended', disposition: 'booked' }],
})

t.test('no more cases run at once than the bound, and the bound is reached', async (t) => {
  const s = await scene(t, { OZAN_TEST_RUN_CONCURRENCY: '2' })
  s.llm.pace({ firstTokenLatencyMs: 150 })
  s.llm.fallback((last) => (last.includes('May I have your name?') ? { text: 'Ayşe' } : null))
  const other = await newOwner(s.a)
  const ours = await suite(s.a, s.owner, await agent(s.a, s.owner), ['a', 'b', 'c'].map(simulated))
  const theirs = await suite(s.a, other, await agent(s.a, other), ['d', 'e', 'f'].map(simulated))

  const worker = s.a.services.testRunWorker
  const atLLM = () => s.llm.requests.filter((r) => r.outcome === undefined).length
  const runningRows = () => (s.a.db.prepare("SELECT COUNT(*) AS n FROM test_run_cases WHERE status = 'running'").get() as { n: number }).n
  let most = { worker: 0, llm: 0, rows: 0 }
  const sampler = setInterval(() => {
    most = { worker: Math.max(most.worker, worker.running), llm: Math.max(most.llm, atLLM()), rows: Math.max(most.rows, runningRows()) }
  }, 5)
  t.teardown(() => clearInterval(sampler))

  const run1 = (await s.send('POST', `${S}/${ours}/runs`)).body.id
  const run2 = (await s.a.request('POST', `${S}/${theirs}/runs`, { token: other.token })).body.id
  const [r1, r2] = [await finished(s.a, s.owner, ours, run1), await finished(s.a, other, theirs, run2)]
  clearInterval(sampler)
  t.match(r1, { status: 'passed', counts: { passed: 3 } })
  t.match(r2, { status: 'passed', counts: { passed: 3 } })
  t.equal(s.llm.requests.length, 6, 'one LLM request per case')
  t.equal(most.worker, 2, 'the worker ran two cases at once, never more')
  t.equal(most.rows, 2, 'two cases were marked running at once, never more')
  t.ok(most.llm <= 2, `at most two requests were at the LLM at once (${most.llm})`)
})

t.test('the worker refuses a bound below one', async (t) => {
  const { TestRunWorker } = await import('../../../api/test-suites/index.js')
  t.throws(
    () =>
      new TestRunWorker({
        repos: {} as never,
        clock: {} as never,
        logger: {} as never,
        runtimeIO: () => ({ now: () => new Date() }),
        options: { concurrency: 0 },
      }),
    /invalid options/,
  )
})
