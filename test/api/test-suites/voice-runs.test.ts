import t, { type Test } from 'tap'
import { runVoiceCasesOn } from '../../../api/test-suites/index.js'
import { startEngine } from '../../../api/index.js'
import { createLogger, loadConfig } from '../../../core/index.js'
import { startDeepgramStandIn, startOpenAiStandIn } from '../../../engine/pipeline/providers/stand-ins/index.js'
import { startTestApp } from '../../helpers/app.js'
import { expectStatus, newOwner } from '../../helpers/tenancy-fixtures.js'
import { BOOKED, BOOKING_GRAPH, finished, KEY, S, W } from './suite-fixtures.js'

// Voice runs: the case runs through the real call engine as a call. The caller's lines are spoken
// by the agent's own TTS (espeak here) and streamed in real time; the engine's VAD and the Deepgram
// stand-in hear them (the stand-in recognizes no words: it transcribes each stretch of speech as
// the next line of its script, here the case's own lines), the graph runs, and the agent answers
// through espeak and playout. What is measured (latency, barge-in) is the engine's own.

const VOICE_CONFIG = { language: 'en-US', stt: { provider: 'deepgram' }, tts: { provider: 'espeak' } }

async function voiceScene(t: Test) {
  // Unscripted speech (the agent's, transcribed after the call) is heard as "agent speech".
  const dg = await startDeepgramStandIn({ apiKey: 'dg-key', finalLatencyMs: 100, fallback: () => 'agent speech' })
  t.teardown(() => dg.close())
  const llm = await startOpenAiStandIn({ apiKey: KEY })
  t.teardown(() => llm.close())
  const a = await startTestApp({
    env: { OZAN_ENGINE_SOCKET: 'ws', OZAN_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8', OZAN_OPENAI_API_KEY: KEY, OZAN_OPENAI_BASE_URL: llm.url },
  })
  const engine = await startEngine({
    services: a.services,
    config: loadConfig({ OZAN_ENGINE_SOCKET: 'ws' }),
    logger: createLogger('silent'),
    host: '127.0.0.1',
    port: 0,
  })
  t.teardown(async () => {
    await engine.close()
    await a.close()
  })
  runVoiceCasesOn(engine, a.services)
  const owner = await newOwner(a)
  const body = { provider: 'deepgram', fields: { api_key: 'dg-key', base_url: dg.url.replace(/^ws/, 'http') } }
  expectStatus(await a.request('PUT', '/api/v1/credentials', { token: owner.token, body }), 200, 'store deepgram credential')
  const wf = expectStatus(
    await a.request('POST', W, { token: owner.token, body: { name: 'Voice', definition: BOOKING_GRAPH, config: VOICE_CONFIG } }),
    201,
    'agent',
  ).id
  expectStatus(await a.request('POST', `${W}/${wf}/publish`, { token: owner.token }), 200, 'publish')
  return { a, dg, llm, owner, wf, engine }
}

t.test('a scripted case over voice: heard, answered, measured, judged', async (t) => {
  const { a, dg, owner, wf } = await voiceScene(t)
  dg.script('Ayşe')
  const body = {
    name: 'Voice booking',
    workflow_uuid: wf,
    cases: [
      {
        name: 'books by voice',
        caller: { type: 'scripted', turns: ['Ayşe'] },
        tool_results: BOOKED,
        assertions: [
          { type: 'path', nodes: ['start', 'ask', 'book', 'bye'], match: 'exact' },
          { type: 'variable', name: 'name', equals: 'Ayşe' },
          { type: 'said', text: 'you are booked for Monday' },
          { type: 'tool_called', integration: 'calcom', action: 'create_booking', arguments: { name: 'Ayşe' } },
          { type: 'ended', disposition: 'booked' },
          { type: 'latency', max_response_ms: 8000 },
        ],
      },
    ],
  }
  const suite = expectStatus(await a.request('POST', S, { token: owner.token, body }), 201, 'suite').id
  const started = expectStatus(await a.request('POST', `${S}/${suite}/runs`, { token: owner.token, body: { mode: 'voice' } }), 202, 'voice run')
  t.equal(started.mode, 'voice')
  const run = await finished(a, owner, suite, started.id)
  const c = run.cases[0]!
  t.equal(c.status, 'passed', c.reason ?? '')
  t.match(c.transcript, [
    { role: 'agent', text: 'Hello! Who is calling? May I have your name?' },
    { role: 'caller', text: 'Ayşe' },
    { role: 'agent', text: 'Thanks Ayşe, you are booked for Monday.' },
  ])
  t.ok(
    c.transcript.every((l) => typeof l.at_ms === 'number'),
    'each line is timed on the call',
  )
  const turn = c.voice!.turns[0]!
  t.match(turn, { turn: 1, caller_text: 'Ayşe', heard: 'Ayşe', barge_in: false })
  t.ok(turn.response_ms !== null && turn.response_ms > 0 && turn.response_ms < 8000, `response in ${turn.response_ms} ms`)
  t.equal(c.voice!.response_ms_max, turn.response_ms)
  t.same(c.ended, { ended: true, disposition: 'booked', by: 'agent' })
  // The agent's audio is transcribed per answer after the call (the stand-in hears each stretch of
  // its speech, sentence by sentence, as "agent speech").
  t.match(c.voice!.agent_heard, [
    { after_turn: 0, text: /^agent speech( agent speech)*$/ },
    { after_turn: 1, text: /^agent speech( agent speech)*$/ },
  ])
  t.equal(dg.sessions.length, 3, 'three live transcriptions: the call, then one per agent answer')
  t.equal(a.services.webCalls.liveCalls.count(owner.organizationId), 0, "the case's call slot is given back")
})

t.test('a voice case over the live-call cap is refused as any call is: the case errs with concurrency_limit', async (t) => {
  const { a, owner, wf } = await voiceScene(t)
  const live = a.services.webCalls.liveCalls
  const held: Array<() => void> = []
  for (let release = live.acquire(owner.organizationId); release; release = live.acquire(owner.organizationId)) {
    held.push(release)
    if (held.length > 10_000) throw new Error('no cap')
  }
  t.teardown(() => {
    for (const r of held) r()
  })
  const body = { name: 'Full', workflow_uuid: wf, cases: [{ name: 'x', caller: { type: 'scripted', turns: ['Ayşe'] } }] }
  const suite = expectStatus(await a.request('POST', S, { token: owner.token, body }), 201, 'suite').id
  const started = expectStatus(await a.request('POST', `${S}/${suite}/runs`, { token: owner.token, body: { mode: 'voice' } }), 202, 'voice run')
  const c = (await finished(a, owner, suite, started.id)).cases[0]!
  t.match(c, { status: 'error', error_code: 'concurrency_limit', reason: /live calls are at its cap/ })
  t.equal(live.count(owner.organizationId), held.length, 'no slot taken or given back by the refused case')
})

t.test('a caller who talks over the agent: the barge-in is measured, and the agent’s line kept as far as it was heard', async (t) => {
  const { a, dg, owner, wf } = await voiceScene(t)
  dg.script('Ayşe Yılmaz speaking')
  const body = {
    name: 'Barge-in',
    workflow_uuid: wf,
    cases: [
      {
        name: 'talks over the greeting',
        caller: { type: 'scripted', turns: [{ text: 'Ayşe Yılmaz speaking', interrupt_after_ms: 700 }] },
        tool_results: BOOKED,
        assertions: [{ type: 'ended', disposition: 'booked' }],
      },
    ],
  }
  const suite = expectStatus(await a.request('POST', S, { token: owner.token, body }), 201, 'suite').id
  const started = expectStatus(await a.request('POST', `${S}/${suite}/runs`, { token: owner.token, body: { mode: 'voice' } }), 202, 'voice run')
  const c = (await finished(a, owner, suite, started.id)).cases[0]!
  t.equal(c.status, 'passed', c.reason ?? '')
  t.match(c.voice, { barge_ins: 1, turns: [{ turn: 1, caller_text: 'Ayşe Yılmaz speaking', heard: 'Ayşe Yılmaz speaking', barge_in: true }] })
  const opening = c.transcript[0]!
  t.equal(opening.role, 'agent')
  t.ok(opening.text.length < 'Hello! Who is calling? May I have your name?'.length, `the greeting was cut where the caller came in: “${opening.text}”`)
  t.match(c.variables, { name: 'Ayşe Yılmaz speaking' })
})

t.test('a voice run on a server with no call engine is refused', async (t) => {
  const a = await startTestApp()
  t.teardown(() => a.close())
  const owner = await newOwner(a)
  const wf = expectStatus(await a.request('POST', W, { token: owner.token, body: { name: 'V', definition: BOOKING_GRAPH } }), 201, 'agent').id
  const body = { name: 'S', workflow_uuid: wf, use_draft: true, cases: [{ name: 'x', caller: { type: 'scripted', turns: ['hi'] } }] }
  const suite = expectStatus(await a.request('POST', S, { token: owner.token, body }), 201, 'suite').id
  const res = await a.request('POST', `${S}/${suite}/runs`, { token: owner.token, body: { mode: 'voice' } })
  t.equal(res.status, 409)
  t.equal(res.body.error.code, 'voice_unavailable')
})

t.test('a simulated caller over voice: the LLM says the lines, the engine hears them, a rubric judges the call', async (t) => {
  const { a, dg, llm, owner, wf } = await voiceScene(t)
  dg.script('Ayşe')
  llm.fallback((last) => {
    if (last.startsWith('Criteria:')) return { text: '{"pass": true, "reason": "The agent booked the caller."}' }
    if (last.includes('May I have your name?')) return { text: 'Ayşe' }
    return last.includes('booked') ? { text: '[END]' } : null
  })
  const body = {
    name: 'Simulated voice',
    workflow_uuid: wf,
    cases: [
      {
        name: 'simulated',
        caller: { type: 'simulated', persona: 'Ayşe, brief.', goal: 'Book Monday.', max_turns: 3 },
        tool_results: BOOKED,
        assertions: [
          { type: 'variable', name: 'name', equals: 'Ayşe' },
          { type: 'rubric', criteria: 'The agent books the caller.' },
          { type: 'latency', max_response_ms: 1 },
        ],
      },
    ],
  }
  const suite = expectStatus(await a.request('POST', S, { token: owner.token, body }), 201, 'suite').id
  const started = expectStatus(await a.request('POST', `${S}/${suite}/runs`, { token: owner.token, body: { mode: 'voice' } }), 202, 'voice run')
  const c = (await finished(a, owner, suite, started.id)).cases[0]!
  t.equal(c.status, 'failed', 'the 1 ms latency bound fails, and nothing else')
  t.match(c.assertions, [
    { type: 'variable', status: 'passed' },
    { type: 'rubric', status: 'passed', reason: 'Judge: The agent booked the caller.' },
    { type: 'latency', status: 'failed', reason: /Responses over 1 ms: turn 1: \d+ ms/ },
  ])
  t.match(c.voice, { turns: [{ caller_text: 'Ayşe', heard: 'Ayşe', barge_in: false }] })
  const simulator = llm.requests.find((r) => String(r.messages[0]?.content).includes('Book Monday.'))
  t.ok(simulator, 'the simulator was asked')
  t.match(
    simulator?.messages.at(-1),
    { role: 'user', content: 'Hello! Who is calling? May I have your name?' },
    'with the agent’s line as the call recorded it',
  )
})
