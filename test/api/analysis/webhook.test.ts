import t from 'tap'
import { EVENT_TYPES } from '../../../api/webhooks/catalog.js'
import { verifyWebhook } from '../../../sdk/node/src/index.js'
import { createEndpoint, receiver, settled } from '../webhooks/webhook-fixtures.js'
import { GOOD_ANSWER, agent, finishedSession, scene, settle } from './analysis-fixtures.js'

// session.analysis.completed leaves through the webhook outbox like every event: one signed
// delivery per subscribed endpoint, once, with the keys the catalog (and docs/webhooks.md) shows.

t.test('one signed delivery of session.analysis.completed, with the catalog example’s keys', async (t) => {
  const s = await scene(t, { OZAN_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8' })
  const r = await receiver(t)
  const endpoint = await createEndpoint(s.a, s.owner, { url: r.url('/ok'), events: ['session.analysis.completed'] })
  const wf = await agent(s)
  s.llm.script({ text: JSON.stringify(GOOD_ANSWER) })
  const sid = await finishedSession(s, wf)
  await settle(s, wf, sid)
  await settled(s.a)
  // Another pass of the worker and the dispatcher must not send it again.
  s.a.services.analysis.wake()
  await s.a.services.analysis.settled()
  await settled(s.a)

  const deliveries = r.seen.filter((c) => c.headers['x-ozan-event'] === 'session.analysis.completed')
  t.equal(deliveries.length, 1, 'delivered once')
  const c = deliveries[0]!
  const event = verifyWebhook(c.raw, c.headers['x-ozan-signature'] as string, endpoint.secret as string, { now: () => s.clock.now() / 1000 })
  t.equal(event.event, 'session.analysis.completed')
  const example = EVENT_TYPES.find((e) => e.type === 'session.analysis.completed')!.example
  t.same(Object.keys(event.data).sort(), Object.keys(example).sort(), 'the keys of the catalog example')
  t.match(event.data, { session_uuid: sid, workflow_uuid: wf, status: 'completed', summary: GOOD_ANSWER.summary, structured_data: GOOD_ANSWER.structured_data })
  t.equal(r.seen.filter((x) => x.headers['x-ozan-event'] !== 'session.analysis.completed').length, 0, 'only the subscribed type')
})

t.test('a failed analysis is delivered too, with its reason', async (t) => {
  const s = await scene(t, { OZAN_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8', OZAN_ANALYSIS_MAX_ATTEMPTS: '1' })
  const r = await receiver(t)
  await createEndpoint(s.a, s.owner, { url: r.url('/ok'), events: ['session.analysis.completed'] })
  const wf = await agent(s)
  s.llm.script({ text: 'not json' })
  const sid = await finishedSession(s, wf)
  await settle(s, wf, sid)
  await settled(s.a)
  const bodies = r.seen.map((c) => JSON.parse(c.raw.toString('utf8')) as { data: Record<string, unknown> })
  t.equal(bodies.length, 1)
  t.match(bodies[0]!.data, { session_uuid: sid, status: 'failed', summary: null, error: { code: 'invalid_output' } })
})
