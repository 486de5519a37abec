import t from 'tap'
import { AnalysisWorker, analysisLlmFor } from '../../../api/analysis/index.js'
import { createLogger } from '../../../core/index.js'
import { providerConnections } from '../../../engine/pipeline/providers/connections.js'
import { GOOD_ANSWER, KEY, agent, analysisEvents, analysisOf, finishedSession, scene, settle } from './analysis-fixtures.js'

// A job survives the process: a stop (or a crash) mid-attempt leaves it `running`; the next
// start puts it back to pending and runs it. Here the second "process" is a new worker on the
// same database, built as createServices builds it, its start() the code a restart runs.

t.test('a job in flight when the server stops is run again by the next start, and announced once', async (t) => {
  const s = await scene(t)
  const wf = await agent(s)
  s.llm.fail({ kind: 'hang' })
  const sid = await finishedSession(s, wf)
  // Wait until the attempt is at the stand-in, hanging.
  for (let i = 0; i < 200 && s.llm.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 10))
  t.equal(s.llm.requests.length, 1)
  t.match(await analysisOf(s, wf, sid), { status: 'running', attempts: 1 })

  await s.a.services.analysis.close()
  t.equal(s.a.services.repos.analysis.get(sid)?.status, 'running', 'left running, as a crash would leave it')

  const restarted = new AnalysisWorker({
    repos: s.a.services.repos,
    bus: s.a.services.bus,
    clock: s.clock,
    logger: createLogger('silent'),
    llmFor: analysisLlmFor({
      accessFor: () => ({ apiKey: KEY, baseURL: s.llm.url, organization: null, origin: 'operator' }),
      organizationConnections: providerConnections,
      timeoutMs: 10_000,
    }),
  })
  // The detail reads the app's worker; let it show the new one's work.
  ;(s.a.services as { analysis: AnalysisWorker }).analysis = restarted
  t.teardown(() => restarted.close())
  s.llm.script({ text: JSON.stringify(GOOD_ANSWER) })
  restarted.start()
  const done = await settle(s, wf, sid)
  t.match(done, { status: 'completed', attempts: 2, summary: GOOD_ANSWER.summary })
  t.equal(s.llm.requests.length, 2)
  t.equal(analysisEvents(s).length, 1, 'announced once')
})
