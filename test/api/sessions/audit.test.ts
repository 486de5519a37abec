import t from 'tap'
import { startTestApp } from '../../helpers/app.js'

t.test('starting a session is audited against the agent, naming the new session as its result', async (t) => {
  const a = await startTestApp()
  t.teardown(() => a.close())
  const token = (await a.register()).access_token
  const wf = (await a.request('POST', '/api/v1/workflows', { token, body: { name: 'Survey', template_id: 'survey-tr' } })).body
  await a.request('POST', `/api/v1/workflows/${wf.id}/publish`, { token })
  const started = await a.request('POST', `/api/v1/workflows/${wf.id}/sessions`, { token })
  t.equal(started.status, 201)
  const [event] = (await a.request('GET', '/api/v1/audit?action=session.started', { token })).body
  t.match(event, { resource_type: 'session', resource_id: wf.id, metadata: { result_id: started.body.session_id } })
})
