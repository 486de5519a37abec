import t from 'tap'
import type { DomainEvent } from '../../../core/index.js'
import { expectStatus } from '../../helpers/tenancy-fixtures.js'
import { T0, W, agent, say, setup, start } from './session-fixtures.js'

// The issue: events on the internal bus — session.started, transcript.updated (each new line),
// function.called (each tool call), session.completed carrying the end-of-call report:
// transcript, variables, cost, latency, and (the spec) no recording address.

const GREETING = 'Merhaba, Anadolu Teknik Servis müşteri hizmetlerinden arıyorum.'
const CONSENT = 'Geçtiğimiz günlerde aldığınız hizmetle ilgili yaklaşık bir dakika sürecek kısa bir anketimiz var. Katılmak ister misiniz?'
const DECLINED = 'Anlıyorum, hiç sorun değil. Zaman ayırdığınız için teşekkür ederiz, iyi günler dileriz.'

const sessionEvents = (events: DomainEvent[]) =>
  events.filter((e) => e.type.startsWith('session.') || e.type === 'transcript.updated' || e.type === 'function.called')

/** Every key of a value, at any depth. */
const keysDeep = (v: unknown): string[] => (v !== null && typeof v === 'object' ? Object.entries(v).flatMap(([k, x]) => [k, ...keysDeep(x)]) : [])

t.test('a session announces its start, each transcript line, and its end-of-session report', async (t) => {
  const s = await setup(t)
  const id = await agent(s, { template: 'survey-tr' })
  const projects = expectStatus(await s.send('GET', '/api/v1/projects'), 200, 'projects')
  const defaultEnv = projects[0].environments.find((e: { is_default: boolean }) => e.is_default).id as string
  s.events.length = 0

  const { session_id: sid } = await start(s, id)
  s.clock.advance(1500)
  await say(s, id, sid, 'hayır')
  const base = { session_uuid: sid, workflow_uuid: id }
  const got = sessionEvents(s.events)
  t.same(
    got.map((e) => e.type),
    ['session.started', 'transcript.updated', 'transcript.updated', 'transcript.updated', 'transcript.updated', 'session.completed'],
  )
  for (const e of got) t.same([e.organizationId, e.environmentId], [s.owner.organizationId, defaultEnv], `${e.type} names organization and environment`)

  t.same(got[0]!.data, {
    ...base,
    version: 1,
    channel: 'chat',
    variables: { company_name: 'Anadolu Teknik Servis', consent: false, callback_requested: false },
  })
  t.equal(got[0]!.occurredAt, T0)
  t.same(
    got.slice(1, 5).map((e) => e.data),
    [
      { ...base, role: 'assistant', text: GREETING },
      { ...base, role: 'assistant', text: CONSENT },
      { ...base, role: 'user', text: 'hayır' },
      { ...base, role: 'assistant', text: DECLINED },
    ],
    'one transcript.updated per line, the caller’s included',
  )

  const report = got[5]!
  t.equal(report.occurredAt, T0 + 1500)
  t.same(report.data, {
    ...base,
    version: 1,
    channel: 'chat',
    status: 'completed',
    disposition: 'declined',
    started_at: new Date(T0).toISOString(),
    ended_at: new Date(T0 + 1500).toISOString(),
    duration_ms: 1500,
    transcript: [
      { role: 'assistant', text: GREETING },
      { role: 'assistant', text: CONSENT },
      { role: 'user', text: 'hayır' },
      { role: 'assistant', text: DECLINED },
    ],
    variables: { company_name: 'Anadolu Teknik Servis', consent: false, callback_requested: false },
    cost: { prompt_tokens: 0, completion_tokens: 0, amount_minor: null, currency: null },
    latency: {
      turns: [
        { turn: 1, duration_ms: 0 },
        { turn: 2, duration_ms: 0 },
      ],
      average_turn_ms: 0,
    },
  })
  t.notOk(
    keysDeep(report.data).some((k) => /record|audio|url/i.test(k)),
    'no recording address anywhere in the report',
  )

  s.events.length = 0
  t.equal((await s.send('POST', `${W}/${id}/sessions/${sid}/messages`, { body: { text: 'evet' } })).status, 409)
  t.same(sessionEvents(s.events), [], 'a refused message announces nothing')
})

t.test('a text run announces its start and its report with channel run and disposition run_completed', async (t) => {
  const s = await setup(t)
  const id = await agent(s, { template: 'survey-tr' })
  s.events.length = 0
  const r = expectStatus(await s.send('POST', `${W}/${id}/runs/text`, { body: { input: 'evet' } }), 200, 'run')
  const got = sessionEvents(s.events)
  t.same(
    got.map((e) => e.type),
    ['session.started', 'transcript.updated', 'transcript.updated', 'transcript.updated', 'transcript.updated', 'session.completed'],
  )
  t.hasStrict(got[0]!.data, { session_uuid: r.session_id, channel: 'run' })
  t.same(
    got.slice(1, 5).map((e) => [e.data.role, e.data.text]),
    [
      ['assistant', GREETING],
      ['assistant', CONSENT],
      ['user', 'evet'],
      ['assistant', r.reply],
    ],
  )
  const report = got[5]!.data
  t.hasStrict(report, { session_uuid: r.session_id, channel: 'run', status: 'completed', disposition: 'run_completed', variables: { consent: true } })
  t.equal((report.transcript as unknown[]).length, 4)
  t.same(
    (report.latency as { turns: unknown[] }).turns,
    [
      { turn: 1, duration_ms: 0 },
      { turn: 2, duration_ms: 0 },
    ],
    'closing the run adds no turn',
  )
  t.equal(got.filter((e) => e.type === 'session.completed').length, 1, 'reported once')
})

t.test('an unfinished session publishes no report', async (t) => {
  const s = await setup(t)
  const id = await agent(s, { template: 'survey-tr' })
  const { session_id: sid } = await start(s, id)
  await say(s, id, sid, 'evet')
  await say(s, id, sid, '4')
  t.notOk(s.events.some((e) => e.type === 'session.completed'))
  t.equal(s.events.filter((e) => e.type === 'transcript.updated').length, 2 + 2 + 2)
})
