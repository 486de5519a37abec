import t from 'tap'
import { speak, skipWithoutEspeak } from '../../../helpers/speech.js'
import type { Event } from '../../server/helpers.js'
import { Mic, startCallServer } from './fixture.js'

// Fails (does not skip) when CI=true and espeak-ng is missing.
const skip = await skipWithoutEspeak()

const transcript = (role: string, turn: string) => (e: Event) => e.type === 'transcript' && e['role'] === role && e['final'] === true && e['turn_id'] === turn
const statuses = (events: Event[]) => events.filter((e) => e.type === 'status').map((e) => e['status'])
const HOURS = 'Nice to meet you. We are open every day from nine in the morning until six in the evening, and on Saturdays we close at noon.'

t.test('a web call: greeting, two turns, a barge-in, stop', { skip, timeout: 90_000 }, async (t) => {
  const s = await startCallServer(t)
  const [name, yes, no] = await Promise.all([speak('my name is Alice', 'en'), speak('yes please', 'en'), speak('no thank you, please stop', 'en')])
  const c = await s.connect()
  c.keepBinaries = false
  const mic = new Mic(c)
  t.teardown(() => mic.stop())

  // Greeting: static lines through the cache, audio as binary frames.
  const greeting = await c.event(transcript('agent', 'turn-0'), 15_000)
  t.equal(greeting['text'], 'Hello! Welcome to the demo line. What is your name?')
  t.equal(greeting['interrupted'], false)
  t.ok(c.binaryBytes >= 16_000 * 2, 'at least a second of greeting audio arrived')
  t.equal(c.binaryBytes % 640, 0, 'audio comes in whole 20 ms frames')
  await c.event((e) => e.type === 'status' && e['status'] === 'listening' && c.events.indexOf(e) > c.events.indexOf(greeting))
  t.same(statuses(c.events).slice(0, 3), ['connecting', 'speaking', 'listening'])

  // Turn 1.
  t.equal(s.tts.prewarms.length, 0, 'no prewarm before the caller speaks')
  s.dg.script('My name is Alice.')
  const before1 = c.binaryBytes
  const spoke = performance.now()
  await mic.say(name)
  const user1 = await c.event(transcript('user', 'turn-1'), 10_000)
  t.equal(user1['text'], 'My name is Alice.')
  // The engine finalized 200 ms into the pause, before the STT's own endpointing (300 ms of silence) could.
  t.match(s.dg.sessions[0]!.utterances[0], { text: 'My name is Alice.', endedBy: 'finalize' }, 'finalized early by the engine')
  const agent1 = await c.event(transcript('agent', 'turn-1'), 30_000)
  t.equal(agent1['text'], `${HOURS} Shall I repeat the opening hours?`)
  // The caller's speech had the TTS open its connection before the reply's first request.
  const reply1 = s.tts.synthesized.find((x) => x.at > spoke)
  t.ok(reply1, 'the reply was synthesized')
  t.ok(
    s.tts.prewarms.some((at) => at > spoke && at < reply1!.at),
    'prewarmed while the caller spoke',
  )
  t.ok(c.binaryBytes - before1 > 5 * 32_000, 'the reply was heard as audio')
  const m1 = await c.event((e) => e.type === 'metrics' && e['turn_id'] === 'turn-1')
  for (const k of ['endpointing_ms', 'stt_ms', 'llm_first_token_ms', 'tts_first_byte_ms', 'engine_ms', 'voice_to_voice_ms']) {
    t.type(m1[k], 'number', `metrics.${k}`)
  }
  t.ok((m1['voice_to_voice_ms'] as number) < 3000, `voice to voice ${m1['voice_to_voice_ms']} ms`)
  t.ok((m1['voice_to_voice_ms'] as number) >= (m1['engine_ms'] as number))
  await c.event((e) => e.type === 'status' && e['status'] === 'listening' && c.events.indexOf(e) > c.events.indexOf(agent1))

  // Turn 2, barged in: the caller speaks about a second into the reply.
  s.dg.script('Yes please.')
  await mic.say(yes)
  await c.event(transcript('user', 'turn-2'), 10_000)
  await c.event((e) => e.type === 'status' && e['status'] === 'speaking' && c.events.indexOf(e) > c.events.indexOf(agent1), 10_000)
  await new Promise((r) => setTimeout(r, 1500))
  s.dg.script('No thank you, please stop.')
  const bytesAtBargeIn = c.binaryBytes
  const saying = mic.say(no)
  const cut = await c.event(transcript('agent', 'turn-2'), 10_000)
  const bytesAtCut = c.binaryBytes
  t.equal(cut['interrupted'], true)
  // VAD confirms speech after minSpeechMs (250 ms) of it; the playout pauses on that window.
  t.ok(bytesAtCut - bytesAtBargeIn <= 640 * 30, `agent audio paused within 600 ms of the caller's onset (${(bytesAtCut - bytesAtBargeIn) / 640} frames)`)
  const heard = cut['text'] as string
  t.ok(heard.length > 0 && HOURS.startsWith(heard) && heard.length < HOURS.length, `heard a prefix: "${heard}"`)
  t.ok(
    c.events.some((e) => e.type === 'clear'),
    'clear event sent',
  )
  await saying
  const user3 = await c.event(transcript('user', 'turn-3'), 10_000)
  t.equal(user3['text'], 'No thank you, please stop.')
  t.ok(c.binaryBytes - bytesAtCut <= 640 * 3, `audio stopped at the barge-in (${c.binaryBytes - bytesAtCut} bytes after)`)
  const agent3 = await c.event(transcript('agent', 'turn-3'), 15_000)
  t.equal(agent3['text'], 'Alright. Is there anything else?')
  const m2 = await c.event((e) => e.type === 'metrics' && e['turn_id'] === 'turn-2')
  t.type(m2['voice_to_voice_ms'], 'number')

  // Stop.
  await c.event((e) => e.type === 'status' && e['status'] === 'listening' && c.events.indexOf(e) > c.events.indexOf(agent3))
  c.ws.send(JSON.stringify({ type: 'stop' }))
  const closed = await c.closed
  t.equal(closed.code, 1000)
  t.match(c.events.at(-1), { type: 'ended', reason: 'client_stop' })
  const rec = s.sessions[0]!.recorder
  t.equal(rec.endReason, 'client_hangup')
  t.match(
    rec.transcripts.map((x) => [x.role, x.interrupted]),
    [
      ['agent', false],
      ['user', false],
      ['agent', false],
      ['user', false],
      ['agent', true],
      ['user', false],
      ['agent', false],
    ],
  )
  t.equal(rec.turns.length, 3)
  t.ok(rec.events.some((e) => e.kind === 'barge_in_pause'))
  t.ok(rec.events.some((e) => e.kind === 'barge_in_interrupt'))
  t.comment(`metrics: ${JSON.stringify(rec.turns)}`)
  t.comment(`events: ${rec.events.map((e) => e.kind).join(' ')}`)
})

t.test('silence: the agent asks once, then ends the call with idle_timeout', { skip, timeout: 30_000 }, async (t) => {
  const s = await startCallServer(t, { limits: { silenceTimeoutMs: 1500 } })
  const c = await s.connect()
  c.keepBinaries = false
  const mic = new Mic(c)
  t.teardown(() => mic.stop())
  await c.event(transcript('agent', 'turn-0'), 15_000)
  const prompt = await c.event((e) => e.type === 'transcript' && e['role'] === 'agent' && e['text'] === 'Are you still there?', 10_000)
  t.ok(prompt)
  const closed = await c.closed
  t.equal(closed.code, 1000)
  t.match(c.events.at(-1), { type: 'ended', reason: 'idle_timeout' })
  t.equal(s.sessions[0]!.recorder.endReason, 'idle_timeout')
})

t.test('max duration ends the call', { skip, timeout: 30_000 }, async (t) => {
  const s = await startCallServer(t, { limits: { maxDurationMs: 1000 } })
  const c = await s.connect()
  const mic = new Mic(c)
  t.teardown(() => mic.stop())
  const closed = await c.closed
  t.equal(closed.code, 1000)
  t.match(c.events.at(-1), { type: 'ended', reason: 'max_duration' })
  t.equal(s.sessions[0]!.recorder.endReason, 'max_duration')
})

t.test('a socket that drops aborts the call (recorded as dropped)', { skip, timeout: 30_000 }, async (t) => {
  const s = await startCallServer(t)
  const c = await s.connect()
  await c.event((e) => e.type === 'status' && e['status'] === 'speaking', 10_000)
  c.ws.terminate()
  const { session, recorder } = s.sessions[0]!
  const deadline = Date.now() + 5000
  while (!session.signal.aborted && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
  t.equal(session.signal.aborted, true)
  t.equal(recorder.endReason, 'dropped')
})

t.test('a provider failure (STT key refused) is an error event, then ended: error and close 1000', { skip, timeout: 30_000 }, async (t) => {
  const s = await startCallServer(t)
  s.dg.fail({ kind: 'reject', status: 401 })
  const c = await s.connect()
  const closed = await c.closed
  t.equal(closed.code, 1000)
  t.match(
    c.events.find((e) => e.type === 'error'),
    { code: 'stt_auth' },
  )
  t.match(c.events.at(-1), { type: 'ended', reason: 'error' })
  t.equal(s.sessions[0]!.recorder.endReason, 'error')
})
