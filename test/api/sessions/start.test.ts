import t from 'tap'
import { newOwner } from '../../helpers/tenancy-fixtures.js'
import { W, agent, errorOf, lineGraph, sessionsOf, setup, start } from './session-fixtures.js'

// The spec: POST /workflows/{uuid}/sessions answers 201 SessionStartResponse; the body is optional
// and may be null; `variables` seeds the session. docs/api.md: the newest published version runs
// unless `version` or `use_draft` say otherwise; never published → 409 no_published_version;
// an unknown version → 400 unknown_version.

t.test('an agent never published answers 409 no_published_version; use_draft runs the draft as version null', async (t) => {
  const s = await setup(t)
  const id = await agent(s, { definition: lineGraph('Draft speaking.'), publish: false })
  const refused = await s.send('POST', sessionsOf(id), { body: {} })
  t.same(errorOf(refused), { status: 409, code: 'no_published_version' })
  t.same(s.a.db.prepare('SELECT count(*) AS n FROM sessions').get(), { n: 0 }, 'nothing was stored')
  t.notOk(
    s.events.some((e) => e.type === 'session.started'),
    'nothing was announced',
  )

  const draft = await start(s, id, { use_draft: true })
  t.hasStrict(draft, {
    workflow_id: id,
    version: null,
    messages: ['Draft speaking.'],
    reply: 'Draft speaking.',
    ended: true,
    status: 'completed',
    disposition: 'said',
    node_id: null,
  })
})

t.test('the newest published version runs by default; version picks an older one; use_draft the draft', async (t) => {
  const s = await setup(t)
  const id = await agent(s, { definition: lineGraph('Version one.') })
  await s.send('PUT', `${W}/${id}/definition`, { body: lineGraph('Version two.') })
  t.equal((await s.send('POST', `${W}/${id}/publish`)).body.version, 2)
  await s.send('PUT', `${W}/${id}/definition`, { body: lineGraph('Unpublished draft.') })

  t.hasStrict(await start(s, id), { version: 2, messages: ['Version two.'], reply: 'Version two.' }, 'newest published')
  t.hasStrict(await start(s, id, { version: 1 }), { version: 1, messages: ['Version one.'], reply: 'Version one.' }, 'the older wording')
  t.hasStrict(await start(s, id, { version: 2 }), { version: 2, messages: ['Version two.'], reply: 'Version two.' })
  t.hasStrict(await start(s, id, { use_draft: true }), { version: null, messages: ['Unpublished draft.'], reply: 'Unpublished draft.' })

  const listed = (await s.send('GET', `/api/v1/sessions?workflow_uuid=${id}`)).body as { version: number | null }[]
  t.same(listed.map((x) => x.version).sort(), [1, 2, 2, null].sort(), 'each session records the version it ran')
})

t.test('an unknown version answers 400 unknown_version and stores nothing', async (t) => {
  const s = await setup(t)
  const id = await agent(s, { definition: lineGraph('Only one.') })
  t.same(errorOf(await s.send('POST', sessionsOf(id), { body: { version: 2 } })), { status: 400, code: 'unknown_version' })
  const zero = await s.send('POST', sessionsOf(id), { body: { version: 0 } })
  t.equal(zero.status, 422, 'versions start at 1')
  t.hasStrict(zero.body.detail, [{ loc: ['body', 'version'] }])
  t.same(s.a.db.prepare('SELECT count(*) AS n FROM sessions').get(), { n: 0 })
})

t.test('the body may be absent, null or {}', async (t) => {
  const s = await setup(t)
  const id = await agent(s, { template: 'survey-tr' })
  const absent = await s.send('POST', sessionsOf(id))
  const nullBody = await s.send('POST', sessionsOf(id), { raw: 'null', headers: { 'content-type': 'application/json' } })
  const empty = await s.send('POST', sessionsOf(id), { body: {} })
  for (const [label, r] of [
    ['absent', absent],
    ['null', nullBody],
    ['{}', empty],
  ] as const) {
    t.equal(r.status, 201, label, { body: r.text })
    t.hasStrict(r.body, { version: 1, status: 'active', node_id: 'ask_consent', ended: false })
    t.equal(r.body.messages[0], 'Merhaba, Anadolu Teknik Servis müşteri hizmetlerinden arıyorum.', `${label}: defaults apply`)
  }
  t.equal(new Set([absent.body.session_id, nullBody.body.session_id, empty.body.session_id]).size, 3, 'three sessions')
})

t.test('variables seed declared variables over their defaults; undeclared names are ignored', async (t) => {
  const s = await setup(t)
  const id = await agent(s, { template: 'survey-tr' })
  const r = await start(s, id, { variables: { company_name: 'Boğaziçi Klima', not_declared: 'x' } })
  t.equal(r.messages[0], 'Merhaba, Boğaziçi Klima müşteri hizmetlerinden arıyorum.', 'the template reads the seeded value')
  t.equal(r.messages[1], 'Geçtiğimiz günlerde aldığınız hizmetle ilgili yaklaşık bir dakika sürecek kısa bir anketimiz var. Katılmak ister misiniz?')
  t.same(r.variables, { company_name: 'Boğaziçi Klima', consent: false, callback_requested: false })
  const detail = (await s.send('GET', `${sessionsOf(id)}/${r.session_id}`)).body
  t.same(detail.variables, r.variables, 'stored as answered')
})

t.test("another organization's agent and an unknown agent are 404, alike", async (t) => {
  const s = await setup(t)
  const other = await newOwner(s.a)
  const theirs = await agent(s, { template: 'survey-tr', actor: other })
  const foreign = await s.send('POST', sessionsOf(theirs), { body: {} })
  const unknown = await s.send('POST', sessionsOf('00000000-0000-4000-8000-000000000000'), { body: {} })
  t.same(errorOf(foreign), { status: 404, code: 'not_found' })
  t.same(errorOf(unknown), { status: 404, code: 'not_found' })
  t.equal(foreign.body.error.message, unknown.body.error.message)
  t.same(errorOf(await s.send('POST', `${W}/${theirs}/runs/text`, { body: { input: 'evet' } })), { status: 404, code: 'not_found' })
  t.same(s.a.db.prepare('SELECT count(*) AS n FROM sessions').get(), { n: 0 })
})

t.test('an agent of another environment is 404 unless the request names that environment', async (t) => {
  const s = await setup(t)
  const id = await agent(s, { template: 'survey-tr', environment: 'staging' })
  t.same(errorOf(await s.send('POST', sessionsOf(id), { body: {} })), { status: 404, code: 'not_found' }, 'the default environment does not see it')
  const r = await s.send('POST', sessionsOf(id), { body: {}, headers: { 'x-environment-id': 'staging' } })
  t.equal(r.status, 201, 'staging does', { body: r.text })
  const sid = r.body.session_id
  t.same(errorOf(await s.send('GET', `${sessionsOf(id)}/${sid}`)), { status: 404, code: 'not_found' }, 'nor its sessions')
  t.same(errorOf(await s.send('POST', `${sessionsOf(id)}/${sid}/messages`, { body: { text: 'evet' } })), { status: 404, code: 'not_found' })
  t.equal((await s.send('GET', '/api/v1/sessions')).body.length, 0, 'the default environment lists none')
  t.equal((await s.send('GET', '/api/v1/sessions', { headers: { 'x-environment-id': 'staging' } })).body.length, 1)
})
