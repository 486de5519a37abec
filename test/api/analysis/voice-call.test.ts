import { randomUUID } from 'node:crypto'
import t from 'tap'
import { reportAbandonedCalls } from '../../../api/index.js'
import { GOOD_ANSWER, agent, analysisEvents, finishedSession, scene } from './analysis-fixtures.js'

// Calls end through session.completed too (the recorder, or the report of a call a crash left
// live), so they are analysed like text sessions. Here: a web call recorded in the sessions table,
// then abandoned by a crash and reported at the next start, as bin/ozan.ts does.

t.test('a web call a crash left live is analysed from what was recorded, shown on GET /calls/{uuid}', async (t) => {
  const s = await scene(t)
  const wf = await agent(s)
  s.llm.script({ text: JSON.stringify(GOOD_ANSWER) }, { text: JSON.stringify(GOOD_ANSWER) })
  // A finished chat session of the agent gives the scope and the agent's stored config.
  const chat = s.a.db.prepare('SELECT * FROM sessions WHERE id = ?').get(await finishedSession(s, wf)) as Record<string, string>
  const id = randomUUID()
  const T0 = s.clock.now()
  s.a.services.repos.sessions.insert({
    id,
    organization_id: chat.organization_id!,
    environment_id: chat.environment_id!,
    workflow_id: wf,
    workflow_version: 1,
    channel: 'web',
    definition: chat.definition!,
    config: chat.config!,
    state: JSON.stringify({ variables: {} }),
    started_by_user: null,
    started_by_key: null,
    started_at: T0,
  })
  s.a.services.repos.sessions.appendEvents(
    id,
    [
      { kind: 'agent_message', data: { text: 'Hello! Who is calling?', turn_id: 'turn-0' }, at: T0 + 400 },
      { kind: 'user_message', data: { text: 'Ayşe, for Monday.', turn_id: 'turn-1' }, at: T0 + 3100 },
    ],
    T0 + 4000,
    T0 + 3100,
  )
  reportAbandonedCalls(s.a.services.repos, s.a.services.bus, s.a.services.repos.sessions.abandonLive(T0 + 9000))
  await s.a.services.analysis.settled()
  for (let i = 0; i < 20 && (await s.send('GET', `/api/v1/calls/${id}`)).body.analysis.status !== 'completed'; i++) {
    await s.a.services.analysis.settled()
    await new Promise((r) => setTimeout(r, 10))
  }
  const detail = (await s.send('GET', `/api/v1/calls/${id}`)).body
  t.match(detail, { status: 'failed', channel: 'web', analysis: { status: 'completed', summary: GOOD_ANSWER.summary } })
  const request = s.llm.requests.at(-1)!
  t.match(String(request.messages.at(-1)!.content), /Agent: Hello! Who is calling\?\nCaller: Ayşe, for Monday\.$/)
  t.match(analysisEvents(s).at(-1)!.data, { session_uuid: id, channel: 'web', status: 'completed' })
})
