import t from 'tap'
import { addMember, createKey, expectStatus } from '../../helpers/tenancy-fixtures.js'
import { W, agent, errorOf, sessionPath, sessionsOf, setup, start, type Scene } from './session-fixtures.js'

// The spec's scope table: workflow:read "View agents, sessions, calls and analytics";
// workflow:run "Run agents: start calls and sessions". Reading a session and running an agent are
// separate grants: a key may hold either, or both.

type Auth = { apiKey: string } | { token: string }

/** Each session operation once, as `auth`, on a fresh survey session the owner started. */
async function tryAll(s: Scene, id: string, auth: Auth) {
  const { session_id: sid } = await start(s, id)
  const as = (o: object = {}) => ({ ...o, ...auth })
  return {
    get: await s.a.request('GET', sessionPath(id, sid), as()),
    events: await s.a.request('GET', `${sessionPath(id, sid)}/events`, as()),
    list: await s.a.request('GET', '/api/v1/sessions', as()),
    start: await s.a.request('POST', sessionsOf(id), as({ body: {} })),
    message: await s.a.request('POST', `${sessionPath(id, sid)}/messages`, as({ body: { text: 'evet' } })),
    run: await s.a.request('POST', `${W}/${id}/runs/text`, as({ body: { input: 'evet' } })),
    sid,
  }
}

const READS = ['get', 'events', 'list'] as const
const RUNS = ['start', 'message', 'run'] as const
const SUCCESS = { get: 200, events: 200, list: 200, start: 201, message: 200, run: 200 } as const

t.test('a workflow:read key sees sessions, their events and the list, but cannot start, message or run', async (t) => {
  const s = await setup(t)
  const id = await agent(s, { template: 'survey-tr' })
  const { key } = await createKey(s.a, s.owner, ['workflow:read'])
  const r = await tryAll(s, id, { apiKey: key })
  for (const op of READS) t.equal(r[op].status, SUCCESS[op], `${op} allowed`, { body: r[op].text })
  for (const op of RUNS) t.same(errorOf(r[op]), { status: 403, code: 'permission_denied' }, `${op} denied`)
  const detail = expectStatus(await s.send('GET', sessionPath(id, r.sid)), 200, 'detail')
  t.equal(detail.turn_count, 1, 'the denied message did not run')
  t.equal((await s.send('GET', '/api/v1/sessions')).body.length, 1, 'the denied start and run stored nothing')
})

t.test('a workflow:run key starts, messages and runs, but reads no session', async (t) => {
  const s = await setup(t)
  const id = await agent(s, { template: 'survey-tr' })
  const { key, id: keyId } = await createKey(s.a, s.owner, ['workflow:run'])
  const r = await tryAll(s, id, { apiKey: key })
  for (const op of RUNS) t.equal(r[op].status, SUCCESS[op], `${op} allowed`, { body: r[op].text })
  for (const op of READS) t.same(errorOf(r[op]), { status: 403, code: 'permission_denied' }, `${op} denied`)
  t.equal(r.message.body.node_id, 'ask_rating', 'the message ran')
  const started = s.a.db.prepare('SELECT started_by_key, started_by_user FROM sessions WHERE id = ?').get(r.start.body.session_id)
  t.same(started, { started_by_key: keyId, started_by_user: s.owner.userId }, 'the session records the key that started it')
})

t.test('a key with both scopes does everything; an unscoped key too', async (t) => {
  const s = await setup(t)
  const id = await agent(s, { template: 'survey-tr' })
  for (const scopes of [['workflow:read', 'workflow:run'], undefined]) {
    const { key } = await createKey(s.a, s.owner, scopes)
    const r = await tryAll(s, id, { apiKey: key })
    for (const op of [...READS, ...RUNS]) t.equal(r[op].status, SUCCESS[op], `${scopes ?? 'unscoped'}: ${op}`, { body: r[op].text })
  }
})

t.test('the viewer role reads sessions but cannot run agents; a developer can', async (t) => {
  const s = await setup(t)
  const id = await agent(s, { template: 'survey-tr' })
  const viewer = await addMember(s.a, s.owner, 4)
  const developer = await addMember(s.a, s.owner, 3)
  const v = await tryAll(s, id, { token: viewer.token })
  for (const op of READS) t.equal(v[op].status, SUCCESS[op], `viewer ${op}`)
  for (const op of RUNS) t.equal(v[op].status, 403, `viewer ${op} denied`)
  const d = await tryAll(s, id, { token: developer.token })
  for (const op of [...READS, ...RUNS]) t.equal(d[op].status, SUCCESS[op], `developer ${op}`, { body: d[op].text })
})
