/**
 * A child process for call-record.test.ts: records one web call into a SQLite file with the real
 * SessionCallRecorder and real time, then waits to be killed (SIGKILL) mid-call. It reports on
 * stdout, one JSON line per step: `flushed` once its lines are on disk, `marked` once a live mark
 * newer than its last event is, and `unflushed` after feeding one more line the kill will lose.
 */
import { randomUUID } from 'node:crypto'
import { createLogger, InProcessBus, systemClock } from '../../../core/index.js'
import { createRepos, migrate, openDatabase } from '../../../db/index.js'
import { Definition, initialState } from '../../../engine/graph-runtime/index.js'
import { SessionCallRecorder } from '../../../api/calls/session-recorder.js'
import { CALL_GRAPH, VOICE_CONFIG } from './fixtures.js'

const file = process.argv[2]!
const db = openDatabase(file)
migrate(db)
const now = Date.now()
const organizationId = randomUUID()
const projectId = randomUUID()
const environmentId = randomUUID()
db.prepare('INSERT INTO organizations (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)').run(organizationId, 'Org', now, now)
db.prepare('INSERT INTO projects (id, organization_id, name, is_default, created_at) VALUES (?, ?, ?, 1, ?)').run(projectId, organizationId, 'P', now)
db.prepare("INSERT INTO environments (id, organization_id, project_id, slug, created_at) VALUES (?, ?, ?, 'dev', ?)").run(
  environmentId,
  organizationId,
  projectId,
  now,
)

const callId = randomUUID()
const recorder = new SessionCallRecorder({
  repos: createRepos(db),
  bus: new InProcessBus(),
  clock: systemClock,
  logger: createLogger('silent'),
  organizationId,
  environmentId,
  workflowId: null,
  version: null,
  definition: JSON.stringify(CALL_GRAPH),
  config: JSON.stringify(VOICE_CONFIG),
  initial: initialState(Definition.parse(CALL_GRAPH), {}),
  callId,
  pending: false,
})
const say = (line: string) => process.stdout.write(`${line}\n`)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const count = () => (db.prepare('SELECT count(*) AS n FROM session_events WHERE session_id = ?').get(callId) as { n: number }).n
const liveMark = () => (db.prepare('SELECT updated_at FROM sessions WHERE id = ?').get(callId) as { updated_at: number }).updated_at

recorder.open()
const startedAt = liveMark()
recorder.transcript('agent', 'Hello! What is your name?', { interrupted: false, turnId: 'turn-0' })
await sleep(300)
recorder.transcript('user', 'My name is Alice.', { interrupted: false, turnId: 'turn-1' })
recorder.event('usage', { prompt_tokens: 12, completion_tokens: 5 })
await sleep(200)
recorder.transcript('agent', 'Thank you. Anything else?', { interrupted: false, turnId: 'turn-1' })
recorder.metrics({
  turnId: 'turn-1',
  endpointingMs: 300,
  sttMs: 120,
  llmFirstTokenMs: null,
  ttsFirstByteMs: 40,
  engineMs: 90,
  voiceToVoiceMs: 700,
  bargeInStopMs: null,
  interrupted: false,
})
const lastEventAt = Date.now()
while (count() < 5) await sleep(20)
say(JSON.stringify({ step: 'flushed', callId, startedAt, lastEventAt }))
// The caller says nothing for a while: only the live mark moves.
while (liveMark() <= lastEventAt + 500) await sleep(20)
say(JSON.stringify({ step: 'marked', liveMark: liveMark() }))
recorder.transcript('user', 'One more thing.', { interrupted: false, turnId: 'turn-2' })
say(JSON.stringify({ step: 'unflushed' }))
await sleep(60_000)
