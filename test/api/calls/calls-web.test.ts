import t from 'tap'
import type { ManualClock, DomainEvent } from '../../../core/index.js'
import { CloseCode } from '../../../engine/server/index.js'
import { skipWithoutEspeak, speak } from '../../helpers/speech.js'
import { expectStatus } from '../../helpers/tenancy-fixtures.js'
import { Mic } from '../../engine/pipeline/call/fixture.js'
import type { Event } from '../../engine/server/helpers.js'
import { CALL_GRAPH, VOICE_CONFIG, callScene } from './fixtures.js'

// Web calls created by POST /calls and controlled by POST /calls/{uuid}/control while live: the
// real app, the real engine (ws transport), Silero VAD, the Deepgram stand-in and espeak-ng TTS.

const C = '/api/v1/calls'
const skip = await skipWithoutEspeak()
const agentLine = (text: string | RegExp) => (e: Event) =>
  e.type === 'transcript' && e['role'] === 'agent' && e['final'] === true && (typeof text === 'string' ? e['text'] === text : text.test(String(e['text'])))

t.test('pending → connected → say (queued, then cutting) → end: receivers 1 live, 0 after; recorded', { skip, timeout: 90_000 }, async (t) => {
  const s = await callScene(t)
  const seen: DomainEvent[] = []
  t.teardown(s.a.services.bus.subscribe((e) => void seen.push(e)))
  await s.storeDeepgram()
  const id = await s.agent()
  const created = expectStatus(
    await s.a.request('POST', C, { token: s.owner.token, body: { channel: 'web', workflow_uuid: id, variables: { other: 'none' } } }),
    201,
    'create',
  )
  t.match(created, { channel: 'web', status: 'pending', workflow_uuid: id, transient: false })
  const call = created.call_uuid as string
  t.match(expectStatus(await s.a.request('GET', `${C}/${call}`, { token: s.owner.token }), 200, 'pending'), { status: 'pending', ended_at: null })
  t.same(
    expectStatus(await s.a.request('POST', `${C}/${call}/control`, { token: s.owner.token, body: { action: 'end' } }), 202, 'control pending'),
    { receivers: 0 },
    'no worker holds a pending call',
  )

  const c = await s.connect(created.ws_url)
  c.keepBinaries = false
  const mic = new Mic(c)
  t.teardown(() => mic.stop())
  t.equal((await c.event((e) => e.type === 'hello'))['call_id'], call, 'the socket call is the created call')
  await c.event((e) => e.type === 'status' && e['status'] === 'speaking', 15_000)
  t.match(expectStatus(await s.a.request('GET', `${C}/${call}`, { token: s.owner.token }), 200, 'live'), { status: 'active' })

  const control = (body: unknown) => s.a.request('POST', `${C}/${call}/control`, { token: s.owner.token, body })
  // Queued: the greeting plays to its end first, then the line.
  t.same(expectStatus(await control({ action: 'say', text: 'Calls may be recorded.' }), 202, 'say'), { receivers: 1 })
  await c.event(agentLine(/What is your name\?$/), 15_000)
  await c.event(agentLine('Calls may be recorded.'), 15_000)
  t.notOk(
    c.events.some((e) => e.type === 'clear'),
    'nothing was cut',
  )
  // Written in batches while the call runs: the detail follows it, and each written line is announced.
  const liveDetail = async () => expectStatus(await s.a.request('GET', `${C}/${call}`, { token: s.owner.token }), 200, 'live detail')
  await c.until(() => seen.some((e) => e.type === 'transcript.updated' && e.data['text'] === 'Calls may be recorded.'), 5000)
  const live = await liveDetail()
  t.equal(live.status, 'active')
  t.ok(
    live.transcript.some((l: { text: string }) => l.text === 'Calls may be recorded.'),
    'the line is stored while the call is live',
  )
  t.notOk(seen.some((e) => e.type === 'session.completed'))

  // Cutting: a long line, interrupted by another once it is audible.
  const before = c.binaryBytes
  expectStatus(
    await control({
      action: 'say',
      text: 'Our opening hours are nine to five on weekdays and ten to two on Saturdays, closed on Sundays and public holidays.',
    }),
    202,
    'long',
  )
  // A second and a half of the line has arrived (it runs for several): "Our opening hours" has
  // been heard, by its share of the line's whole audio (which playout knows once TTS has sent it).
  await c.until(() => c.binaryBytes - before > 48_000, 15_000)
  t.same(expectStatus(await control({ action: 'say', text: 'Sorry, one moment.', interrupt: true }), 202, 'cut'), { receivers: 1 })
  const cut = await c.event((e) => e.type === 'transcript' && e['role'] === 'agent' && e['interrupted'] === true, 5000)
  t.match(String(cut['text']), /^Our opening hours/, 'the cut line keeps what was heard')
  t.ok(String(cut['text']).length < 100, `only the heard part: "${cut['text']}"`)
  t.ok(
    c.events.some((e) => e.type === 'clear'),
    'the client was told to drop buffered audio',
  )
  await c.event(agentLine('Sorry, one moment.'), 15_000)

  t.same(expectStatus(await control({ action: 'end', immediately: true }), 202, 'end'), { receivers: 1 })
  t.equal((await c.closed).code, 1000)
  t.match(c.events.at(-1), { type: 'ended', reason: 'ended_by_api' })
  t.same(expectStatus(await control({ action: 'say', text: 'anyone?' }), 202, 'after end'), { receivers: 0 })

  await c.until(() => seen.some((e) => e.type === 'session.completed'), 5000)
  const detail = expectStatus(await s.a.request('GET', `${C}/${call}`, { token: s.owner.token }), 200, 'detail')
  t.match(detail, { status: 'completed', disposition: 'ended_by_api', channel: 'web', variables: { other: 'none' } })
  t.ok(
    detail.transcript.some((l: { text: string; interrupted: boolean }) => l.interrupted && /^Our opening hours/.test(l.text)),
    'interrupted line recorded as heard',
  )
  t.ok(detail.events.some((e: { kind: string }) => e.kind === 'control'))
  const listed = expectStatus(await s.a.request('GET', `${C}?channel=calls`, { token: s.owner.token }), 200, 'list')
  t.same(
    listed.items.map((i: { call_uuid: string }) => i.call_uuid),
    [call],
  )
})

t.test('transfer ends a web call with a transfer event; a transient agent runs over the socket', { skip, timeout: 60_000 }, async (t) => {
  const s = await callScene(t)
  await s.storeDeepgram()
  const body = { channel: 'web', agent: { definition: CALL_GRAPH, config: VOICE_CONFIG } }
  const created = expectStatus(await s.a.request('POST', C, { token: s.owner.token, body }), 201, 'transient web call')
  t.match(created, { transient: true, workflow_uuid: null, status: 'pending' })
  const c = await s.connect(created.ws_url)
  c.keepBinaries = false
  await c.event(agentLine(/^Hello! Welcome to the demo line\./), 15_000)
  const res = await s.a.request('POST', `${C}/${created.call_uuid}/control`, {
    token: s.owner.token,
    body: { action: 'transfer', target: 'sip:desk@example.com' },
  })
  t.same(expectStatus(res, 202, 'transfer'), { receivers: 1 })
  t.equal((await c.closed).code, 1000)
  const tail = c.events.slice(-3).map((e) => e.type)
  t.same(tail, ['transfer', 'status', 'ended'])
  t.match(
    c.events.find((e) => e.type === 'transfer'),
    { target: 'sip:desk@example.com' },
  )
  t.match(c.events.at(-1), { reason: 'transfer' })
  let detail
  for (let i = 0; i < 100; i++) {
    detail = expectStatus(await s.a.request('GET', `${C}/${created.call_uuid}`, { token: s.owner.token }), 200, 'detail')
    if (detail.status !== 'active') break
    await new Promise((r) => setTimeout(r, 50))
  }
  t.match(detail, { status: 'completed', disposition: 'transfer', transient: true })
})

t.test('never connected: failed not_connected once the token expires; its token is refused after', { timeout: 30_000 }, async (t) => {
  const s = await callScene(t)
  const id = await s.agent()
  await s.storeDeepgram()
  const created = expectStatus(await s.a.request('POST', C, { token: s.owner.token, body: { channel: 'web', workflow_uuid: id } }), 201, 'create')
  ;(s.a.clock as ManualClock).advance(301_000)
  const detail = expectStatus(await s.a.request('GET', `${C}/${created.call_uuid}`, { token: s.owner.token }), 200, 'detail')
  t.match(detail, { status: 'failed', error_code: 'not_connected', disposition: 'not_connected' })
  const endedAt = Date.parse(detail.ended_at)
  const expiresAt = Date.parse(created.expires_at)
  t.ok(endedAt >= expiresAt && endedAt < expiresAt + 1000, `ended when its token expired (${detail.ended_at}, token ${created.expires_at})`)
  const c = await s.connect(created.ws_url)
  t.match(await c.closed, { code: CloseCode.tokenExpired })
})

t.test('web calls count against the live-call cap; chat sessions do not', { skip, timeout: 60_000 }, async (t) => {
  const s = await callScene(t, { OZAN_MAX_LIVE_CALLS_PER_ORG: '1' })
  await s.storeDeepgram()
  const id = await s.agent()
  const first = expectStatus(await s.a.request('POST', C, { token: s.owner.token, body: { channel: 'web', workflow_uuid: id } }), 201, 'first')
  const c = await s.connect(first.ws_url)
  c.keepBinaries = false
  await c.event((e) => e.type === 'hello', 5000)
  const second = await s.a.request('POST', C, { token: s.owner.token, body: { channel: 'web', workflow_uuid: id } })
  t.match(second, { status: 429, body: { error: { code: 'concurrency_limit' } } })
  expectStatus(await s.a.request('POST', C, { token: s.owner.token, body: { channel: 'chat', workflow_uuid: id } }), 201, 'a chat call still starts')
  c.ws.send(JSON.stringify({ type: 'stop' }))
  await c.closed
  await c.until(() => s.a.services.webCalls.liveCalls.count(s.owner.organizationId) === 0, 5000)
  expectStatus(await s.a.request('POST', C, { token: s.owner.token, body: { channel: 'web', workflow_uuid: id } }), 201, 'room again')
})

t.test('mute: caller audio counts as silence until unmuted', { skip, timeout: 90_000 }, async (t) => {
  const s = await callScene(t)
  await s.storeDeepgram()
  const id = await s.agent()
  const created = expectStatus(await s.a.request('POST', C, { token: s.owner.token, body: { channel: 'web', workflow_uuid: id } }), 201, 'create')
  const c = await s.connect(created.ws_url)
  c.keepBinaries = false
  const mic = new Mic(c)
  t.teardown(() => mic.stop())
  await c.event(agentLine(/What is your name\?$/), 15_000)
  await c.event((e) => e.type === 'status' && e['status'] === 'listening', 10_000)
  const alice = await speak('my name is Alice', 'en')
  c.ws.send(JSON.stringify({ type: 'mute', muted: true }))
  s.dg.script('My name is Alice.')
  await mic.say(alice)
  await new Promise((r) => setTimeout(r, 1500))
  t.notOk(
    c.events.some((e) => e.type === 'transcript' && e['role'] === 'user'),
    'nothing heard while muted',
  )
  c.ws.send(JSON.stringify({ type: 'mute', muted: false }))
  await mic.say(alice)
  t.equal((await c.event((e) => e.type === 'transcript' && e['role'] === 'user' && e['final'] === true, 10_000))['text'], 'My name is Alice.')
  c.ws.send(JSON.stringify({ type: 'stop' }))
  await c.closed
})
