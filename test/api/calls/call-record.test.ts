/**
 * What a web call's record says about how it ended (issue #18 item 5): a call a crash cut off ends
 * at its last recorded activity with its recorded turns and tokens; a client that broke the
 * protocol is recorded as protocol_error with the close code, on both transports.
 */
import t, { type Test } from 'tap'
import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import path from 'node:path'
import { createRepos, migrate, openDatabase, type Db } from '../../../db/index.js'
import { FLUSH_EVERY_MS } from '../../../api/calls/session-recorder.js'
import { reportAbandonedCalls } from '../../../api/calls/abandoned.js'
import { InProcessBus, type DomainEvent } from '../../../core/index.js'
import { MAX_CONSECUTIVE_ERRORS } from '../../../engine/server/index.js'
import { skipWithoutEspeak } from '../../helpers/speech.js'
import { expectStatus } from '../../helpers/tenancy-fixtures.js'
import { callScene } from './fixtures.js'

const ROOT = path.resolve(import.meta.dirname, '../../..')
const skip = await skipWithoutEspeak()

type Step = { step: string; [k: string]: unknown }

t.test('a call killed mid-way (SIGKILL) ends at its last recorded activity, with the turns and tokens it recorded', { timeout: 60_000 }, async (t) => {
  const file = path.join(t.testdir({}), 'ozan.db')
  // node itself with tsx's loader, not the tsx CLI: the CLI runs the script in a grandchild that a
  // SIGKILL of the CLI would leave running (and writing).
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'crashing-call.ts'), file], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  t.teardown(() => child.kill('SIGKILL'))
  const steps: Step[] = []
  let killedAt = 0
  await new Promise<void>((resolve, reject) => {
    let buf = ''
    child.stdout.on('data', (d) => {
      buf += d
      for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
        const step = JSON.parse(buf.slice(0, i)) as Step
        buf = buf.slice(i + 1)
        steps.push(step)
        if (step.step === 'unflushed') {
          killedAt = Date.now()
          child.kill('SIGKILL')
        }
      }
    })
    child.on('exit', (_code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`child exited without being killed (${steps.length} steps)`))))
  })
  const { callId, startedAt, lastEventAt } = steps.find((s) => s.step === 'flushed') as Step & { callId: string; startedAt: number; lastEventAt: number }
  const { liveMark } = steps.find((s) => s.step === 'marked') as Step & { liveMark: number }

  const db = openDatabase(file)
  t.teardown(() => db.close())
  const eventsAtKill = (db.prepare('SELECT count(*) AS n FROM session_events').get() as { n: number }).n
  await new Promise((r) => setTimeout(r, FLUSH_EVERY_MS + 500))
  t.equal((db.prepare('SELECT count(*) AS n FROM session_events').get() as { n: number }).n, eventsAtKill, 'the killed recorder writes nothing more')
  const repos = createRepos(db)
  const row = () => db.prepare('SELECT * FROM sessions WHERE id = ?').get(callId) as Record<string, unknown>
  t.match(row(), { status: 'active', ended_at: null, turn_count: 0 }, 'the crash left the call active')
  const restartAt = Date.now() + 5_000
  t.equal(repos.sessions.abandonLive(restartAt).length, 1)

  const after = row()
  t.match(after, { status: 'failed', error_code: 'interrupted', disposition: 'interrupted', turn_count: 1, prompt_tokens: 12, completion_tokens: 5 })
  const endedAt = after['ended_at'] as number
  t.equal(endedAt, liveMark, 'ended at the last live mark the recorder wrote, not at the restart')
  t.ok(endedAt >= lastEventAt && endedAt <= killedAt, 'between its last event and the kill')
  t.ok(killedAt - endedAt <= FLUSH_EVERY_MS + 500, `at most one flush period before the kill (${killedAt - endedAt} ms)`)
  t.equal(endedAt - startedAt, endedAt - (after['started_at'] as number), 'duration counts from the recorded start')
  const events = repos.sessions.events(callId)
  t.same(
    events.filter((e) => e.kind.endsWith('_message')).map((e) => JSON.parse(e.data).text),
    ['Hello! What is your name?', 'My name is Alice.', 'Thank you. Anything else?'],
    'the unflushed line is lost',
  )
  t.ok(
    events.slice(0, -1).every((e) => e.created_at >= startedAt && e.created_at <= lastEventAt),
    'each event keeps the time it happened, not its batch’s (written ≥ 2 s later)',
  )
  t.match(events.at(-1), { kind: 'end', created_at: endedAt })
  t.same(JSON.parse(events.at(-1)!.data), { disposition: 'interrupted', reason: 'interrupted' })
  t.equal(repos.sessions.abandonLive(restartAt + 1).length, 0, 'a second start finds nothing to mark')
})

/** An in-memory database with one environment; sessions inserted by hand with known times. */
function recoveryFixture(t: { teardown(fn: () => unknown): void }) {
  const db: Db = openDatabase(':memory:')
  t.teardown(() => db.close())
  migrate(db)
  const organizationId = randomUUID()
  const environmentId = randomUUID()
  const projectId = randomUUID()
  db.prepare('INSERT INTO organizations (id, name, created_at, updated_at) VALUES (?, ?, ?, 0)').run(organizationId, 'Org', 0)
  db.prepare('INSERT INTO projects (id, organization_id, name, is_default, created_at) VALUES (?, ?, ?, 1, 0)').run(projectId, organizationId, 'P')
  db.prepare("INSERT INTO environments (id, organization_id, project_id, slug, created_at) VALUES (?, ?, ?, 'dev', 0)").run(
    environmentId,
    organizationId,
    projectId,
  )
  const repos = createRepos(db)
  const session = (channel: 'web' | 'chat', startedAt: number) => {
    const id = randomUUID()
    repos.sessions.insert({
      id,
      organization_id: organizationId,
      environment_id: environmentId,
      workflow_id: null,
      workflow_version: null,
      channel,
      definition: '{}',
      config: '{}',
      state: '{}',
      started_by_user: null,
      started_by_key: null,
      started_at: startedAt,
    })
    return id
  }
  const get = (id: string) => repos.sessions.get({ organizationId, environmentId }, id)!
  return { db, repos, session, get }
}

t.test('recovery: ended_at is the newest event’s own time, else the start; turns and tokens from events; text sessions untouched', async (t) => {
  const f = recoveryFixture(t)
  const T0 = 1_700_000_000_000
  const talked = f.session('web', T0)
  // Written in one flush at T0 + 6000, each event with the time it happened.
  f.repos.sessions.appendEvents(
    talked,
    [
      { kind: 'agent_message', data: { text: 'Hello', turn_id: 'turn-0' }, at: T0 + 400 },
      { kind: 'user_message', data: { text: 'Hi', turn_id: 'turn-1' }, at: T0 + 3100 },
      { kind: 'usage', data: { prompt_tokens: 7, completion_tokens: 3 }, at: T0 + 3600 },
      { kind: 'agent_message', data: { text: 'Welcome', turn_id: 'turn-1' }, at: T0 + 4900 },
      { kind: 'turn', data: { turn: 1, duration_ms: 650 }, at: T0 + 4900 },
      { kind: 'user_message', data: { text: 'Bye', turn_id: 'turn-2' }, at: T0 + 5200 },
      { kind: 'usage', data: { prompt_tokens: 5, completion_tokens: 2 }, at: T0 + 5300 },
      { kind: 'agent_message', data: { text: 'Goodbye', turn_id: 'turn-2' }, at: T0 + 5600 },
      { kind: 'turn', data: { turn: 2, duration_ms: 700 }, at: T0 + 5600 },
    ],
    T0 + 6000,
    T0 + 5600,
  )
  const silent = f.session('web', T0 + 1000)
  const chat = f.session('chat', T0)

  t.equal(f.repos.sessions.abandonLive(T0 + 7_800).length, 2, 'the two web calls, not the chat session')
  t.match(f.get(talked), {
    status: 'failed',
    error_code: 'interrupted',
    ended_at: T0 + 5600,
    turn_count: 2,
    prompt_tokens: 12,
    completion_tokens: 5,
    updated_at: T0 + 7_800,
  })
  t.match(f.get(silent), { status: 'failed', ended_at: T0 + 1000, turn_count: 0, prompt_tokens: 0 }, 'nothing recorded: ended at its start (duration 0)')
  t.match(f.get(chat), { status: 'active', ended_at: null })
  t.match(f.repos.sessions.events(talked).at(-1), { kind: 'end', created_at: T0 + 5600 })
})

t.test('recovery: each abandoned call still sends its session.completed, built from what was recorded', async (t) => {
  const f = recoveryFixture(t)
  const T0 = 1_700_000_000_000
  const id = f.session('web', T0)
  f.db.prepare('UPDATE sessions SET state = ? WHERE id = ?').run(JSON.stringify({ variables: { name: 'Alice' } }), id)
  f.repos.sessions.appendEvents(
    id,
    [
      { kind: 'agent_message', data: { text: 'Hello! What is your name?', turn_id: 'turn-0' }, at: T0 + 400 },
      { kind: 'user_message', data: { text: 'Alice', turn_id: 'turn-1' }, at: T0 + 3100 },
      { kind: 'agent_message', data: { text: 'Thank you, Alice.', turn_id: 'turn-1' }, at: T0 + 4900 },
      { kind: 'turn', data: { turn: 1, duration_ms: 650, engine_ms: 4 }, at: T0 + 4900 },
    ],
    T0 + 6000,
    T0 + 5000,
  )
  f.session('chat', T0)
  const published: DomainEvent[] = []
  const bus = new InProcessBus()
  bus.subscribe((e) => published.push(e))
  reportAbandonedCalls(f.repos, bus, f.repos.sessions.abandonLive(T0 + 9_000))
  t.equal(published.length, 1, 'one report, for the web call only')
  t.match(published[0], {
    type: 'session.completed',
    occurredAt: T0 + 5000,
    data: {
      session_uuid: id,
      channel: 'web',
      status: 'failed',
      disposition: 'interrupted',
      duration_ms: 5000,
      transcript: [
        { role: 'assistant', text: 'Hello! What is your name?' },
        { role: 'user', text: 'Alice' },
        { role: 'assistant', text: 'Thank you, Alice.' },
      ],
      variables: { name: 'Alice' },
      latency: { turns: [{ turn: 1, duration_ms: 650, engine_ms: 4 }], average_turn_ms: 650 },
    },
  })
  reportAbandonedCalls(f.repos, bus, f.repos.sessions.abandonLive(T0 + 10_000))
  t.equal(published.length, 1, 'a second start reports nothing again')
})

t.test('recovery: a live mark later than the newest event wins', async (t) => {
  const f = recoveryFixture(t)
  const T0 = 1_700_000_000_000
  const id = f.session('web', T0)
  f.repos.sessions.appendEvents(id, [{ kind: 'agent_message', data: { text: 'Hello' }, at: T0 + 400 }], T0 + 2000)
  f.repos.sessions.appendEvents(id, [], T0 + 4000)
  f.repos.sessions.appendEvents(id, [], T0 + 6000)
  f.repos.sessions.abandonLive(T0 + 60_000)
  t.equal(f.get(id).ended_at, T0 + 6000)
})

for (const kind of ['ws', 'uws'] as const) {
  t.test(
    `${kind}: ${MAX_CONSECUTIVE_ERRORS} malformed messages (4400) are recorded as protocol_error, failed, with the close code`,
    { skip, timeout: 60_000 },
    async (t) => {
      const s = await callScene(t, {}, kind)
      await s.storeDeepgram()
      const minted = expectStatus(await s.mint(await s.agent()), 201, 'mint')
      const c = await s.connect(minted.ws_url)
      const hello = await c.event((e) => e.type === 'hello')
      for (let i = 0; i < MAX_CONSECUTIVE_ERRORS; i++) c.ws.send('{')
      t.same(await c.closed, { code: 4400, reason: 'protocol_error' })
      const detail = await recorded(t, s, String(hello['call_id']))
      t.match(detail, { status: 'failed', disposition: 'protocol_error', error_code: 'protocol_error' })
      t.match(
        detail.events.find((e: { kind: string }) => e.kind === 'end'),
        { data: { reason: 'protocol_error', close_code: 4400 } },
      )
      t.match(
        detail.events.find((e: { kind: string }) => e.kind === 'call_ended'),
        { data: { reason: 'protocol_error' } },
      )
    },
  )

  t.test(`${kind}: invalid UTF-8 in a text message is recorded as protocol_error with close code 1007`, { skip, timeout: 60_000 }, async (t) => {
    const s = await callScene(t, {}, kind)
    await s.storeDeepgram()
    const minted = expectStatus(await s.mint(await s.agent()), 201, 'mint')
    const c = await s.connect(minted.ws_url)
    const hello = await c.event((e) => e.type === 'hello')
    c.ws.send(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), { binary: false })
    // ws sends the 1007 close frame; uWS drops the connection without one (docs/protocol.md §5).
    t.equal((await c.closed).code, kind === 'ws' ? 1007 : 1006)
    const detail = await recorded(t, s, String(hello['call_id']))
    t.match(detail, { status: 'failed', disposition: 'protocol_error', error_code: 'protocol_error' })
    t.match(
      detail.events.find((e: { kind: string }) => e.kind === 'end'),
      { data: { reason: 'protocol_error', close_code: 1007 } },
    )
  })
}

t.test('a caller who goes away without a close frame is still recorded as dropped (completed)', { skip, timeout: 60_000 }, async (t) => {
  const s = await callScene(t)
  await s.storeDeepgram()
  const minted = expectStatus(await s.mint(await s.agent()), 201, 'mint')
  const c = await s.connect(minted.ws_url)
  const hello = await c.event((e) => e.type === 'hello')
  c.ws.terminate()
  const detail = await recorded(t, s, String(hello['call_id']))
  t.match(detail, { status: 'completed', disposition: 'dropped', error_code: null })
  t.match(
    detail.events.find((e: { kind: string }) => e.kind === 'end'),
    { data: { reason: 'dropped', close_code: 1006 } },
  )
})

/** The call's detail once its record is written (the engine writes it just after the close). */
async function recorded(t: Test, s: Awaited<ReturnType<typeof callScene>>, callId: string) {
  const deadline = Date.now() + 10_000
  for (;;) {
    const res = await s.a.request('GET', `/api/v1/calls/${callId}`, { token: s.owner.token })
    if (res.status === 200 && res.body.status !== 'active') return res.body
    if (Date.now() > deadline) {
      t.ok(false, `the call was not recorded as ended: ${res.text}`)
      return res.body
    }
    await new Promise((r) => setTimeout(r, 50))
  }
}
