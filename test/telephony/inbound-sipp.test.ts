// Inbound phone calls against SIPp as the carrier's caller (issue #21 items 4 and 8): an INVITE to
// a number reaches its agent (100, 180, 200 with SDP), the caller's RTP (an espeak-ng utterance
// from a pcap) flows through the same pipeline as web calls, BYE ends it, and the call is listed
// with channel phone. Refusals: unknown number 404, a stranger 403, a digest challenge answered,
// the live-call cap 486 (recorded as refused), CANCEL while ringing 487.
import t from 'tap'
import { startImpairingRelay } from '../helpers/impairing-relay.js'
import { runSipp, skipWithoutSipp } from '../helpers/sipp.js'
import { skipWithoutEspeak } from '../helpers/speech.js'
import { expectStatus } from '../helpers/tenancy-fixtures.js'
import { cancelScenario, callerScenario, refusedScenario, sessionTimerCallerScenario, shortSessionTimerScenario } from './fixtures/scenarios.js'
import { ManualTimers } from './registration/fixtures.js'
import { dtmfPcap, phoneScene, speechPcap } from './scene.js'

const skip = (await skipWithoutSipp()) || (await skipWithoutEspeak())

t.test('a caller reaches the number’s agent, is heard, hangs up; the call is recorded as a phone call', { skip }, async (t) => {
  const s = await phoneScene(t)
  const line = await s.line()
  s.dg.script('Alice')
  const events: string[] = []
  s.a.services.bus.subscribe((e) => events.push(e.type))
  const run = await runSipp({
    scenario: callerScenario({ waitMs: 4000, listenMs: 4000 }),
    target: s.target,
    args: ['-s', line.number.slice(1)],
    files: { 'speech.pcap': await speechPcap('My name is Alice') },
  })
  t.equal(run.code, 0, 'SIPp completed the call', { diagnostic: true, output: run.output })
  const [call] = await s.finishedCalls(1)
  t.ok(call, 'the call is listed')
  t.match(call, { channel: 'phone', status: 'completed', workflow_uuid: line.workflowId })
  const detail = expectStatus(await s.a.request('GET', `/api/v1/calls/${call!.id ?? call!.call_uuid}`, { token: s.owner.token }), 200, 'call detail')
  const said = detail.transcript.map((l: { role: string; text: string }) => `${l.role}: ${l.text}`)
  t.ok(
    said.some((l: string) => l === 'user: Alice'),
    'the caller’s words reached the transcript (through RTP, VAD and STT)',
    { said },
  )
  t.ok(
    said.some((l: string) => l.startsWith('assistant: Hello! Welcome')),
    'the agent greeted',
    { said },
  )
  t.ok(events.includes('session.started') && events.includes('session.completed'), 'session.started and session.completed published')
  t.equal(s.telephony.pendingInvites, 0, 'the INVITE is forgotten once its 200 is acknowledged (not 32 s later)')
})

t.test('digest: a source outside the trunk’s addresses is challenged (401) and let in with the trunk’s credentials', { skip }, async (t) => {
  const s = await phoneScene(t)
  const line = await s.line({ trunk: { allowed_sources: [], host: '93.184.216.34', username: 'carrier-user', password: 'carrier-secret-1' } })
  const run = await runSipp({
    scenario: callerScenario({ waitMs: 500, listenMs: 200, digest: true }),
    target: s.target,
    args: ['-s', line.number.slice(1), '-au', 'carrier-user', '-ap', 'carrier-secret-1', '-auth_uri', `${line.number.slice(1)}@${s.target}`],
    files: { 'speech.pcap': await speechPcap('Hi') },
  })
  t.equal(run.code, 0, 'challenged, answered, connected', { diagnostic: true, output: run.output })
  const wrong = await runSipp({
    scenario: callerScenario({ waitMs: 100, listenMs: 100, digest: true }),
    target: s.target,
    args: ['-s', line.number.slice(1), '-au', 'carrier-user', '-ap', 'wrong-password', '-auth_uri', `${line.number.slice(1)}@${s.target}`],
    files: { 'speech.pcap': await speechPcap('Hi') },
    timeoutS: 5,
  })
  t.not(wrong.code, 0, 'a wrong password does not connect')
  t.match(wrong.output, /403/, 'it is refused 403')
})

t.test('refusals: unknown number 404, a stranger 403, a number without agent 480', { skip }, async (t) => {
  const s = await phoneScene(t)
  const unknown = await runSipp({ scenario: refusedScenario(404), target: s.target, args: ['-s', '15550100000'] })
  t.equal(unknown.code, 0, 'unknown number → 404', { diagnostic: true, output: unknown.output })
  const closed = await s.line({ trunk: { allowed_sources: [], host: '93.184.216.34' } })
  const stranger = await runSipp({ scenario: refusedScenario(403), target: s.target, args: ['-s', closed.number.slice(1)] })
  t.equal(stranger.code, 0, 'not an allowed source and the trunk has no credentials → 403', { diagnostic: true, output: stranger.output })
  const open = await s.line({ publish: false })
  const unpublished = await runSipp({ scenario: refusedScenario(480), target: s.target, args: ['-s', open.number.slice(1)] })
  t.equal(unpublished.code, 0, 'an agent without a published version → 480', { diagnostic: true, output: unpublished.output })
  t.equal(s.telephony.pendingInvites, 0, 'refused INVITEs are forgotten with their final answer')
})

t.test('over the organization’s live-call cap: 486, and the call is recorded as refused', { skip }, async (t) => {
  const s = await phoneScene(t, { OZAN_MAX_LIVE_CALLS_PER_ORG: '1' })
  const line = await s.line()
  const release = s.a.services.webCalls.liveCalls.acquire(s.owner.organizationId)
  t.ok(release, 'a web call holds the one slot')
  const run = await runSipp({ scenario: refusedScenario(486), target: s.target, args: ['-s', line.number.slice(1)] })
  release?.()
  t.equal(run.code, 0, '486 Busy Here', { diagnostic: true, output: run.output })
  const [call] = await s.finishedCalls(1)
  t.match(call, { channel: 'phone', status: 'failed' })
})

t.test('a CANCEL while it rings ends the INVITE with 487; no call starts', { skip }, async (t) => {
  const s = await phoneScene(t, { OZAN_SIP_ANSWER_DELAY_MS: '3000' })
  const line = await s.line()
  const run = await runSipp({ scenario: cancelScenario(), target: s.target, args: ['-s', line.number.slice(1)] })
  t.equal(run.code, 0, '180, CANCEL 200, INVITE 487', { diagnostic: true, output: run.output })
  await new Promise((r) => setTimeout(r, 3200))
  const page = expectStatus(await s.a.request('GET', '/api/v1/calls?channel=calls', { token: s.owner.token }), 200, 'calls')
  t.equal(page.total, 0, 'nothing was recorded: the call never started')
})

t.test('key presses (RFC 4733) reach the graph: "5#" is the caller’s turn', { skip }, async (t) => {
  const s = await phoneScene(t)
  const line = await s.line()
  const run = await runSipp({
    scenario: callerScenario({ waitMs: 4000, listenMs: 2500 }),
    target: s.target,
    args: ['-s', line.number.slice(1)],
    files: { 'speech.pcap': dtmfPcap('5#') },
  })
  t.equal(run.code, 0, 'SIPp completed the call', { diagnostic: true, output: run.output })
  const [call] = await s.finishedCalls(1)
  const detail = expectStatus(await s.a.request('GET', `/api/v1/calls/${call!.call_uuid}`, { token: s.owner.token }), 200, 'call detail')
  const said = detail.transcript.map((l: { role: string; text: string }) => `${l.role}: ${l.text}`)
  t.ok(said.includes('user: 5'), 'the entry is the caller’s turn', { said })
  t.ok(
    said.some((l: string) => l.startsWith('assistant: Thank you')),
    'the collect node took it and the graph went on',
    { said },
  )
  t.equal(detail.events.filter((e: { kind: string }) => e.kind === 'dtmf').length, 2, 'each key recorded once')
})

t.test('a caller sending 30 ms packets (ptime 30, not the 20 we ask for) is heard: the halves are regrouped', { skip }, async (t) => {
  const s = await phoneScene(t)
  const line = await s.line()
  s.dg.script('Alice')
  const run = await runSipp({
    scenario: callerScenario({ waitMs: 4000, listenMs: 4000 }),
    target: s.target,
    args: ['-s', line.number.slice(1)],
    files: { 'speech.pcap': await speechPcap('My name is Alice', 30) },
  })
  t.equal(run.code, 0, 'SIPp completed the call', { diagnostic: true, output: run.output })
  const [call] = await s.finishedCalls(1)
  const detail = expectStatus(await s.a.request('GET', `/api/v1/calls/${call!.call_uuid}`, { token: s.owner.token }), 200, 'detail')
  const said = detail.transcript.map((l: { role: string; text: string }) => `${l.role}: ${l.text}`)
  t.ok(said.includes('user: Alice'), 'the caller was heard', { said })
})

t.test('impairment: 5 % loss and up to 40 ms jitter between caller and engine, the call completes and is heard', { skip }, async (t) => {
  const s = await phoneScene(t)
  const line = await s.line()
  const [host, port] = s.target.split(':')
  const relay = await startImpairingRelay({ target: { host: host!, port: Number(port) }, lossRate: 0.05, jitterMs: 40, seed: 21 })
  t.teardown(() => relay.close())
  s.dg.script('Alice')
  const run = await runSipp({
    scenario: callerScenario({ waitMs: 4000, listenMs: 4000 }),
    target: `127.0.0.1:${relay.sipPort}`,
    args: ['-s', line.number.slice(1)],
    files: { 'speech.pcap': await speechPcap('My name is Alice') },
  })
  t.equal(run.code, 0, 'SIPp completed the call through the impaired network', { diagnostic: true, output: run.output })
  t.ok(
    relay.stats.dropped > 0 && relay.stats.forwarded > 10 * relay.stats.dropped,
    `packets lost on the way (${relay.stats.dropped} of ${relay.stats.dropped + relay.stats.forwarded})`,
  )
  const [call] = await s.finishedCalls(1)
  t.match(call, { channel: 'phone', status: 'completed' })
  const detail = expectStatus(await s.a.request('GET', `/api/v1/calls/${call!.call_uuid}`, { token: s.owner.token }), 200, 'detail')
  const said = detail.transcript.map((l: { role: string; text: string }) => `${l.role}: ${l.text}`)
  t.ok(said.includes('user: Alice'), 'the caller was heard through the loss and jitter', { said })
  t.ok(
    said.some((l: string) => l.startsWith('assistant: Thank you')),
    'and the conversation went on',
    { said },
  )
})

t.test('session timers (RFC 4028): the interval the caller asks is answered, refreshed by our re-INVITE; too short is 422', { skip }, async (t) => {
  const timers = new ManualTimers()
  const s = await phoneScene(t, {}, { timers })
  const line = await s.line()
  const running = runSipp({ scenario: sessionTimerCallerScenario(90), target: s.target, args: ['-s', line.number.slice(1)] })
  for (let i = 0; i < 200 && timers.pending === 0; i++) await new Promise((r) => setTimeout(r, 25))
  t.equal(timers.pending, 1, 'the answered call runs a session timer')
  t.equal(timers.fireNext(), 45_000, 'the refresh is due at half the interval (we refresh: refresher=uas)')
  const run = await running
  t.equal(run.code, 0, 'Session-Expires in the 200; our re-INVITE answered and ACKed; BYE', { diagnostic: true, output: run.output })
  const short = await runSipp({ scenario: shortSessionTimerScenario(), target: s.target, args: ['-s', line.number.slice(1)] })
  t.equal(short.code, 0, '422 Session Interval Too Small with Min-SE: 90', { diagnostic: true, output: short.output })
})

t.test('the agent presses keys: a dtmf node’s "1#" reaches the caller as RFC 4733 events after its line', { skip }, async (t) => {
  const s = await phoneScene(t)
  const line = await s.line({
    definition: {
      variables: [{ name: 'x', type: 'string' }],
      nodes: [
        { id: 'start', type: 'start', data: { first_message: { mode: 'static', text: 'Pressing one.' } } },
        { id: 'keys', type: 'dtmf', data: { digits: '1#' } },
        { id: 'chat', type: 'collect', data: { variable: 'x', value_type: 'text', prompt: 'Done.' } },
        { id: 'end', type: 'end' },
      ],
      edges: [
        { id: 'e1', source: 'start', target: 'keys' },
        { id: 'e2', source: 'keys', target: 'chat' },
        { id: 'e3', source: 'chat', target: 'end' },
      ],
    },
  })
  const [host, port] = s.target.split(':')
  // Each event's end packets (E bit), once per event: RFC 4733 §2.5.1.4 sends the end three times.
  const ended = new Map<number, number>()
  let voiceBeforeKeys = 0
  const relay = await startImpairingRelay({
    target: { host: host!, port: Number(port) },
    lossRate: 0,
    jitterMs: 0,
    seed: 1,
    onEngineRtp: (b) => {
      const pt = b[1]! & 0x7f
      if (pt === 0 && ended.size === 0) voiceBeforeKeys++
      if (pt !== 101 || b.length < 16 || !(b[13]! & 0x80)) return
      const timestamp = b.readUInt32BE(4)
      if (!ended.has(timestamp)) ended.set(timestamp, b[12]!)
    },
  })
  t.teardown(() => relay.close())
  const run = await runSipp({
    scenario: callerScenario({ waitMs: 5000, listenMs: 500 }),
    target: `127.0.0.1:${relay.sipPort}`,
    args: ['-s', line.number.slice(1)],
    files: { 'speech.pcap': await speechPcap('OK') },
  })
  t.equal(run.code, 0, 'SIPp completed the call', { diagnostic: true, output: run.output })
  t.same([...ended.values()], [1, 11], 'the keys 1 and # (events 1 and 11), in order, each once')
  t.ok(voiceBeforeKeys > 10, `the line before them was heard first (${voiceBeforeKeys} voice packets)`)
  const [call] = await s.finishedCalls(1)
  const detail = expectStatus(await s.a.request('GET', `/api/v1/calls/${call!.call_uuid}`, { token: s.owner.token }), 200, 'detail')
  const pressed = detail.events.filter((e: { kind: string }) => e.kind === 'agent_dtmf')
  t.equal(pressed.length, 1, 'the key presses are in the call’s events', { pressed })
  t.match(JSON.stringify(pressed), /"digits":"1#"/)
})
