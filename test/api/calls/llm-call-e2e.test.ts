import t from 'tap'
import { startOpenAiStandIn, startSpeechStandIn } from '../../../engine/pipeline/providers/stand-ins/index.js'
import { startSlackStandIn } from '../../../api/integrations/stand-ins/index.js'
import type { DomainEvent } from '../../../core/index.js'
import { skipWithoutEspeak, speak } from '../../helpers/speech.js'
import { expectStatus } from '../../helpers/tenancy-fixtures.js'
import { Mic } from '../../engine/pipeline/call/fixture.js'
import type { Event } from '../../engine/server/helpers.js'
import { W, callScene } from './fixtures.js'

// The whole product path of a voice call with an LLM agent, every provider a local stand-in that
// speaks its real protocol: Deepgram live (WebSocket) for STT, OpenAI chat completions (SSE) for
// the LLM, OpenAI speech for TTS, Slack for the tool. The engine runs on uWebSockets.js. Greeting,
// a turn with a tool call (function.called), a turn cut by a barge-in, a third turn, end by control.

const KEY = 'sk-llm-call-e2e-4410'
const skip = await skipWithoutEspeak()
const final = (role: string, turn: string) => (e: Event) => e.type === 'transcript' && e['role'] === role && e['final'] === true && e['turn_id'] === turn
const HOURS = 'We open at nine in the morning and close at six in the evening on weekdays, and on Saturdays we open at ten and close at two in the afternoon.'

const AGENT = {
  definition: {
    nodes: [
      { id: 'start', type: 'start', data: { first_message: { mode: 'static', text: 'Hello, this is the front desk.' } } },
      {
        id: 'chat',
        type: 'conversation',
        data: { prompt: 'You answer callers of a repair shop. Tell the team on Slack when asked.', tools: [{ integration: 'slack', action: 'post_message' }] },
      },
      { id: 'bye', type: 'end', data: { message: 'Goodbye.' } },
    ],
    edges: [
      { id: 'a', source: 'start', target: 'chat' },
      { id: 'b', source: 'chat', target: 'bye', condition: { kind: 'intent', description: 'The caller says goodbye' } },
    ],
  },
  config: { language: 'en-US', stt: { provider: 'deepgram' }, tts: { provider: 'openai' } },
}

t.test('an LLM voice agent over uWS: tool call, barge-in, end by control; recorded with its latency', { skip, timeout: 120_000 }, async (t) => {
  const speech = await startSpeechStandIn({ openaiKey: KEY, msPerChar: 60 })
  const llm = await startOpenAiStandIn({ apiKey: KEY, tokensPerSecond: 200, mount: [{ prefix: '/v1/audio/speech', handler: speech.handler }] })
  const slack = await startSlackStandIn({ botToken: 'xoxb-e2e' })
  t.teardown(() => Promise.all([speech.close(), llm.close(), slack.close()]))
  const s = await callScene(t, { OZAN_OPENAI_API_KEY: KEY, OZAN_OPENAI_BASE_URL: llm.url, OZAN_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8' }, 'uws')
  t.equal(s.engine.kind, 'uws', 'the uWebSockets.js transport runs')
  const seen: DomainEvent[] = []
  t.teardown(s.a.services.bus.subscribe((e) => void seen.push(e)))
  await s.storeDeepgram()
  expectStatus(
    await s.a.request('PUT', '/api/v1/credentials', {
      token: s.owner.token,
      body: { provider: 'slack', fields: { bot_token: 'xoxb-e2e', base_url: slack.url } },
    }),
    200,
    'slack credential',
  )
  const id = expectStatus(await s.a.request('POST', W, { token: s.owner.token, body: { name: 'Repair shop', ...AGENT } }), 201, 'agent').id as string
  expectStatus(await s.a.request('POST', `${W}/${id}/publish`, { token: s.owner.token }), 200, 'publish')
  const [late, hours, wait, thanks] = await Promise.all([
    speak('please tell the team I am running late', 'en'),
    speak('when are you open', 'en'),
    speak('hold on I only need Saturday', 'en'),
    speak('thank you', 'en'),
  ])

  const created = expectStatus(await s.a.request('POST', '/api/v1/calls', { token: s.owner.token, body: { channel: 'web', workflow_uuid: id } }), 201, 'create')
  const call = created.call_uuid as string
  const c = await s.connect(created.ws_url)
  c.keepBinaries = false
  const mic = new Mic(c)
  t.teardown(() => mic.stop())
  t.equal((await c.event(final('agent', 'turn-0'), 15_000))['text'], 'Hello, this is the front desk.')
  await c.event((e) => e.type === 'status' && e['status'] === 'listening', 10_000)

  // Turn 1: the model calls the Slack tool, then answers.
  s.dg.script('Please tell the team I am running late.')
  // Replies are keyed by the words: the engine also speculates on partial transcripts, and those
  // requests (dropped when the final says more) must not take a reply meant for the turn.
  const late1 = 'Please tell the team I am running late.'
  llm.script(
    { forUser: late1, toolCalls: [{ name: 'slack__post_message', arguments: { channel: '#general', text: 'The caller is running late.' }, fragments: 3 }] },
    { forUser: late1, text: ['Done, ', 'I told the team.'] },
  )
  await mic.say(late)
  t.equal((await c.event(final('user', 'turn-1'), 10_000))['text'], 'Please tell the team I am running late.')
  t.equal((await c.event(final('agent', 'turn-1'), 20_000))['text'], 'Done, I told the team.')
  t.match(slack.messages, [{ text: 'The caller is running late.' }], 'the tool really ran')
  const m1 = await c.event((e) => e.type === 'metrics' && e['turn_id'] === 'turn-1', 5000)
  for (const k of ['endpointing_ms', 'stt_ms', 'llm_first_token_ms', 'tts_first_byte_ms', 'engine_ms', 'voice_to_voice_ms'])
    t.type(m1[k], 'number', `metrics.${k}`)
  await c.event((e) => e.type === 'status' && e['status'] === 'listening' && c.events.indexOf(e) > c.events.indexOf(m1), 10_000)

  // Turn 2: a long answer, cut by the caller a second in.
  s.dg.script('When are you open?')
  llm.script({ forUser: 'When are you open?', text: HOURS.split(/(?<= )/) })
  await mic.say(hours)
  await c.event(final('user', 'turn-2'), 10_000)
  await c.event((e) => e.type === 'status' && e['status'] === 'speaking' && c.events.indexOf(e) > c.events.indexOf(m1), 15_000)
  await new Promise((r) => setTimeout(r, 1200))
  s.dg.script('Hold on, I only need Saturday.')
  llm.script({ forUser: 'Hold on, I only need Saturday.', text: ['On Saturdays ', 'we are open from ten to two.'] })
  await mic.say(wait)
  const cut = await c.event(final('agent', 'turn-2'), 10_000)
  t.equal(cut['interrupted'], true)
  t.ok(HOURS.startsWith(String(cut['text'])) && String(cut['text']).length < HOURS.length, `only the heard words: "${cut['text']}"`)
  t.type((await c.event((e) => e.type === 'metrics' && e['turn_id'] === 'turn-2', 5000))['barge_in_stop_ms'], 'number', 'the barge-in stop is measured')
  t.equal((await c.event(final('agent', 'turn-3'), 20_000))['text'], 'On Saturdays we are open from ten to two.')
  const lastUserTurn = llm.requests
    .at(-1)!
    .messages.filter((m) => m.role === 'user')
    .at(-1)
  t.match(lastUserTurn, { content: /Saturday/ }, 'the model heard the interruption')
  const history = llm.requests
    .at(-1)!
    .messages.filter((m) => m.role === 'assistant' && typeof m.content === 'string')
    .map((m) => m.content as string)
  t.ok(
    history.some((h) => h === cut['text']),
    `the model’s history holds only what the caller heard of the cut reply: ${JSON.stringify(history)}`,
  )

  // End by control, after the caller's thanks is answered.
  await c.event((e) => e.type === 'status' && e['status'] === 'listening' && c.events.indexOf(e) > c.events.indexOf(cut), 15_000)
  s.dg.script('Thank you.')
  llm.script({ forUser: 'Thank you.', text: ['You are welcome.'] })
  await mic.say(thanks)
  await c.event(final('agent', 'turn-4'), 20_000)
  const ended = await s.a.request('POST', `/api/v1/calls/${call}/control`, { token: s.owner.token, body: { action: 'end' } })
  t.same(expectStatus(ended, 202, 'end'), { receivers: 1 })
  t.equal((await c.closed).code, 1000)
  t.match(c.events.at(-1), { type: 'ended', reason: 'ended_by_api' })

  await c.until(() => seen.some((e) => e.type === 'session.completed'), 5000)
  const called = seen.filter((e) => e.type === 'function.called')
  t.match(called, [
    {
      data: {
        session_uuid: call,
        workflow_uuid: id,
        integration: 'slack',
        action: 'post_message',
        input: { channel: '#general', text: 'The caller is running late.' },
      },
    },
  ])
  const report = seen.find((e) => e.type === 'session.completed')!.data as { latency: { turns: Record<string, unknown>[] }; disposition: string }
  t.equal(report.disposition, 'ended_by_api')
  t.ok(report.latency.turns.length >= 4)
  t.type(report.latency.turns[0]!['llm_first_token_ms'], 'number', 'the report breaks each turn down')
  const detail = expectStatus(await s.a.request('GET', `/api/v1/calls/${call}`, { token: s.owner.token }), 200, 'detail')
  t.match(detail, { status: 'completed', disposition: 'ended_by_api', channel: 'web' })
  t.ok(
    detail.events.some((e: { kind: string }) => e.kind === 'tool_call'),
    'the tool call is in the events',
  )
  t.ok(detail.transcript.some((l: { interrupted: boolean }) => l.interrupted))
})
