import t from 'tap'
import type { DomainEvent } from '../../../core/index.js'
import { speak, skipWithoutEspeak } from '../../helpers/speech.js'
import { expectStatus } from '../../helpers/tenancy-fixtures.js'
import { Mic } from '../../engine/pipeline/call/fixture.js'
import type { Event } from '../../engine/server/helpers.js'
import { W, callScene } from './fixtures.js'

// The product path of a browser call: POST /api/v1/calls/web-token → the engine's socket → a
// CallSession (Silero VAD, Deepgram stand-in STT, espeak-ng TTS, a no-LLM graph) → a session of
// channel "web", announced on the bus.

const skip = await skipWithoutEspeak()
const transcript = (role: string, turn: string) => (e: Event) => e.type === 'transcript' && e['role'] === role && e['final'] === true && e['turn_id'] === turn

t.test('mint, connect, greeting, one spoken turn, stop: recorded as a completed web session', { skip, timeout: 90_000 }, async (t) => {
  const s = await callScene(t)
  const seen: DomainEvent[] = []
  t.teardown(s.a.services.bus.subscribe((e) => void seen.push(e)))
  await s.storeDeepgram()
  const id = await s.agent()
  const alice = await speak('my name is Alice', 'en')
  const minted = expectStatus(await s.mint(id), 201, 'mint')
  const c = await s.connect(minted.ws_url)
  c.keepBinaries = false
  const mic = new Mic(c)
  t.teardown(() => mic.stop())

  const greeting = await c.event(transcript('agent', 'turn-0'), 15_000)
  t.equal(greeting['text'], 'Hello! Welcome to the demo line. What is your name?')
  t.ok(c.binaryBytes >= 16_000 * 2, 'at least a second of greeting audio arrived')
  await c.event((e) => e.type === 'status' && e['status'] === 'listening' && c.events.indexOf(e) > c.events.indexOf(greeting), 10_000)

  s.dg.script('My name is Alice.')
  const before = c.binaryBytes
  await mic.say(alice)
  t.equal((await c.event(transcript('user', 'turn-1'), 10_000))['text'], 'My name is Alice.')
  const reply = await c.event(transcript('agent', 'turn-1'), 20_000)
  t.equal(reply['text'], 'Thank you. Anything else?')
  t.ok(c.binaryBytes > before, 'the reply was heard as audio')
  await c.event((e) => e.type === 'metrics' && e['turn_id'] === 'turn-1', 10_000)
  await c.event((e) => e.type === 'status' && e['status'] === 'listening' && c.events.indexOf(e) > c.events.indexOf(reply), 10_000)

  c.ws.send(JSON.stringify({ type: 'stop' }))
  t.equal((await c.closed).code, 1000)
  t.match(c.events.at(-1), { type: 'ended', reason: 'client_stop' })

  await c.until(() => seen.some((e) => e.type === 'session.completed'), 5000)
  const list = expectStatus(await s.a.request('GET', `/api/v1/sessions?channel=web&workflow_uuid=${id}`, { token: s.owner.token }), 200, 'list')
  t.equal(list.length, 1)
  t.match(list[0], { workflow_id: id, channel: 'web', status: 'completed', disposition: 'client_hangup', turn_count: 1 })
  const detail = expectStatus(await s.a.request('GET', `${W}/${id}/sessions/${list[0].id}`, { token: s.owner.token }), 200, 'detail')
  t.match(detail.variables, { name: 'Alice' })
  t.match(detail.transcript, [
    { role: 'assistant', text: 'Hello! Welcome to the demo line.' },
    { role: 'assistant', text: 'What is your name?' },
    { role: 'user', text: 'My name is Alice.' },
    { role: 'assistant', text: 'Thank you. Anything else?' },
  ])
  const events = expectStatus(await s.a.request('GET', `${W}/${id}/sessions/${list[0].id}/events`, { token: s.owner.token }), 200, 'events')
  const kinds = events.map((e: { kind: string }) => e.kind)
  t.ok(kinds.includes('user_message') && kinds.includes('agent_message') && kinds.includes('turn') && kinds.at(-1) === 'end', kinds.join(' '))

  const started = seen.find((e) => e.type === 'session.started')
  t.match(started, { organizationId: s.owner.organizationId, data: { session_uuid: list[0].id, workflow_uuid: id, channel: 'web' } })
  t.ok(seen.filter((e) => e.type === 'transcript.updated').length === 3, 'transcript.updated per line heard (greeting, caller, reply)')
  const report = seen.find((e) => e.type === 'session.completed')!
  t.match(report.data, {
    session_uuid: list[0].id,
    channel: 'web',
    status: 'completed',
    disposition: 'client_hangup',
    variables: { name: 'Alice' },
    cost: { prompt_tokens: 0, completion_tokens: 0 },
    latency: { turns: [{ turn: 1, turn_id: 'turn-1' }] },
  })
  t.type((report.data['latency'] as { turns: { voice_to_voice_ms: unknown }[] }).turns[0]!.voice_to_voice_ms, 'number')
})

t.test(
  'the deepgram credential removed after minting: error provider_not_configured on connect, then ended; nothing recorded',
  { timeout: 30_000 },
  async (t) => {
    const s = await callScene(t)
    const id = await s.agent()
    await s.storeDeepgram()
    const minted = expectStatus(await s.mint(id), 201, 'mint')
    expectStatus(await s.a.request('DELETE', '/api/v1/credentials/deepgram', { token: s.owner.token }), 204, 'delete credential')
    const c = await s.connect(minted.ws_url)
    const err = await c.event((e) => e.type === 'error', 10_000)
    t.match(err, { code: 'provider_not_configured', message: /deepgram/ })
    t.equal((await c.closed).code, 1000)
    t.match(c.events.at(-1), { type: 'ended', reason: 'error' })
    const list = expectStatus(await s.a.request('GET', '/api/v1/sessions?channel=web', { token: s.owner.token }), 200, 'list')
    t.equal(list.length, 0)
  },
)

t.test('engine close ends a live call with server_shutdown (1001), recorded as failed', { skip, timeout: 60_000 }, async (t) => {
  const s = await callScene(t)
  await s.storeDeepgram()
  const id = await s.agent()
  const minted = expectStatus(await s.mint(id), 201, 'mint')
  const c = await s.connect(minted.ws_url)
  await c.event((e) => e.type === 'status' && e['status'] === 'speaking', 15_000)
  await s.engine.close()
  const closed = await c.closed
  t.same(closed, { code: 1001, reason: 'server_shutdown' })
  t.match(
    c.events.find((e) => e.type === 'ended'),
    { reason: 'server_shutdown' },
  )
  const list = expectStatus(await s.a.request('GET', '/api/v1/sessions?channel=web', { token: s.owner.token }), 200, 'list')
  t.match(list, [{ status: 'failed', disposition: 'server_shutdown' }])
})
