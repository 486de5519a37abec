import t from 'tap'
import { expectStatus } from '../../helpers/tenancy-fixtures.js'
import { T0, W, agent, say, sessionPath, setup, start, type Scene } from './session-fixtures.js'

// The spec: POST /workflows/{uuid}/runs/text (TextRunRequest → TextRunResponse) is one run from
// input to output, recorded as a run summary; GET /sessions lists RunSummary[]. docs/api.md: the
// list filters workflow_uuid, status and channel, pages with limit/offset, and counts in X-Total-Count.

const GREETING = 'Merhaba, Anadolu Teknik Servis müşteri hizmetlerinden arıyorum.'
const CONSENT = 'Geçtiğimiz günlerde aldığınız hizmetle ilgili yaklaşık bir dakika sürecek kısa bir anketimiz var. Katılmak ister misiniz?'
const RATING =
  'Teşekkür ederim. Aldığınız hizmetten ne kadar memnun kaldınız? Lütfen 1 ile 5 arasında bir puan verin; 1 hiç memnun kalmadım, 5 çok memnun kaldım anlamına geliyor.'

const run = async (s: Scene, id: string, body: unknown) => expectStatus(await s.send('POST', `${W}/${id}/runs/text`, { body }), 200, 'text run')

t.test('a text run answers the opening and one turn, and is recorded as a completed session of channel run', async (t) => {
  const s = await setup(t)
  const id = await agent(s, { template: 'survey-tr' })
  const r = await run(s, id, { input: 'evet' })
  t.hasStrict(r, {
    workflow_id: id,
    version: 1,
    status: 'completed',
    ended: true,
    disposition: 'run_completed',
    node_id: 'ask_rating',
    messages: [GREETING, CONSENT, RATING],
    reply: RATING,
    output: `${GREETING} ${CONSENT} ${RATING}`,
    variables: { consent: true },
  })
  const detail = expectStatus(await s.send('GET', sessionPath(id, r.session_id)), 200, 'detail')
  t.hasStrict(detail, { channel: 'run', status: 'completed', disposition: 'run_completed', turn_count: 2, ended_at: new Date(T0).toISOString() })
  t.same(
    detail.transcript.map((m: { role: string }) => m.role),
    ['assistant', 'assistant', 'user', 'assistant'],
  )
  const events = expectStatus(await s.send('GET', `${sessionPath(id, r.session_id)}/events`), 200, 'events') as {
    kind: string
    data: Record<string, unknown>
  }[]
  t.hasStrict(events.at(-1), { kind: 'end', data: { disposition: 'run_completed' } }, 'closing the run is an event too')
  const again = await s.send('POST', `${sessionPath(id, r.session_id)}/messages`, { body: { text: '5' } })
  t.equal(again.status, 409, 'a finished run takes no more messages')
})

t.test('a run without input plays the opening only; a run the agent ends keeps its own disposition', async (t) => {
  const s = await setup(t)
  const id = await agent(s, { template: 'survey-tr' })
  t.hasStrict(await run(s, id, {}), {
    messages: [GREETING, CONSENT],
    output: `${GREETING} ${CONSENT}`,
    status: 'completed',
    disposition: 'run_completed',
    ended: true,
  })
  const declined = await run(s, id, { input: 'hayır', variables: { company_name: 'Ege Klima' } })
  t.hasStrict(declined, { status: 'completed', disposition: 'declined', node_id: null, ended: true, variables: { company_name: 'Ege Klima', consent: false } })
  t.match(declined.output, /^Merhaba, Ege Klima müşteri hizmetlerinden arıyorum\. .* Anlıyorum, hiç sorun değil\./)
  const draftOnly = await agent(s, { template: 'survey-tr', publish: false })
  t.equal((await s.send('POST', `${W}/${draftOnly}/runs/text`, { body: { input: 'evet' } })).status, 409, 'runs pick versions as sessions do')
  t.hasStrict(await run(s, draftOnly, { input: 'evet', use_draft: true }), { version: null, status: 'completed' })
  t.equal((await s.send('POST', `${W}/${id}/runs/text`, { body: { input: '' } })).status, 422, 'an empty input is refused')
})

t.test('GET /sessions lists newest first with filters, paging and X-Total-Count', async (t) => {
  const s = await setup(t)
  const survey = await agent(s, { template: 'survey-tr' })
  const booking = await agent(s, { template: 'appointment-booking' })
  const chatActive = (await start(s, survey)).session_id
  s.clock.advance(1000)
  const chatDone = (await start(s, survey)).session_id
  await say(s, survey, chatDone, 'hayır')
  s.clock.advance(1000)
  const otherAgent = (await start(s, booking)).session_id
  s.clock.advance(1000)
  const aRun = (await run(s, survey, { input: 'evet' })).session_id

  const list = async (qs = '') => {
    const r = await s.send('GET', `/api/v1/sessions${qs}`)
    const body = expectStatus(r, 200, `list ${qs}`) as { id: string }[]
    return { ids: body.map((x) => x.id), total: Number(r.headers.get('x-total-count')), body }
  }
  const expectList = async (qs: string, ids: string[], total: number) => {
    const got = await list(qs)
    t.same({ ids: got.ids, total: got.total }, { ids, total }, qs)
  }
  const all = await list()
  t.same(all.ids, [aRun, otherAgent, chatDone, chatActive], 'newest first')
  t.equal(all.total, 4)
  t.same(Object.keys(all.body[0]!).sort(), ['channel', 'disposition', 'ended_at', 'id', 'started_at', 'status', 'turn_count', 'version', 'workflow_id'])
  t.hasStrict(all.body, [
    { channel: 'run', status: 'completed', disposition: 'run_completed', turn_count: 2, workflow_id: survey },
    { channel: 'chat', status: 'active', disposition: null, ended_at: null, turn_count: 1, workflow_id: booking },
    { channel: 'chat', status: 'completed', disposition: 'declined', turn_count: 2 },
    { channel: 'chat', status: 'active', started_at: new Date(T0).toISOString() },
  ])

  await expectList(`?workflow_uuid=${survey}`, [aRun, chatDone, chatActive], 3)
  await expectList('?status=active', [otherAgent, chatActive], 2)
  await expectList('?status=completed', [aRun, chatDone], 2)
  await expectList('?channel=run', [aRun], 1)
  await expectList(`?channel=chat&workflow_uuid=${survey}`, [chatDone, chatActive], 2)
  await expectList(`?channel=chat&status=completed&workflow_uuid=${booking}`, [], 0)
  await expectList('?limit=2', [aRun, otherAgent], 4)
  await expectList('?limit=2&offset=2', [chatDone, chatActive], 4)
  await expectList('?limit=2&offset=3', [chatActive], 4)
  await expectList('?offset=10', [], 4)
  for (const bad of ['?limit=0', '?limit=201', '?offset=-1', '?status=paused', '?channel=sms', '?workflow_uuid=nope']) {
    t.equal((await s.send('GET', `/api/v1/sessions${bad}`)).status, 422, bad)
  }
})
