import t from 'tap'
import { FINALIZE_AFTER_MS, TICK_MS } from '../../../../engine/pipeline/call/index.js'
import { SilenceStrategy } from '../../../../engine/turn-taking/index.js'
import { answered, drive, greeted } from './drive.js'

t.test('the call greets first and listens meanwhile', async (t) => {
  const d = drive()
  t.same(d.send({ type: 'call_start', info: { stt: 'deepgram' } }), ['record call_started', 'listen', 'start_reply turn-0 greeting'])
  t.equal(d.controller.nextWakeAt, TICK_MS, 'time is ticked every frame')
  t.same(d.send({ type: 'reply_text', replyId: 'turn-0', at: 5 }), [], 'the first text only times the reply')
  t.same(d.send({ type: 'reply_playing', replyId: 'turn-0', at: 10 }), ['emit status speaking'])
  t.same(d.send({ type: 'reply_heard', replyId: 'turn-0', heard: 'Hello! How can I help?', interrupted: false, gaps: null }), [
    "emit final agent 'Hello! How can I help?'",
    "record agent 'Hello! How can I help?'",
    'emit status listening',
  ])
  t.notOk(
    d.log.some((l) => l.startsWith('emit metrics')),
    'the greeting answers nobody: no turn metrics',
  )
})

t.test('two turns: each answer starts on the end of turn and is recorded as heard, with metrics', async (t) => {
  const d = drive()
  greeted(d)
  d.at(1000)
  t.same(d.send({ type: 'speech_start', at: 1000, edgeAt: 990 }), ['prewarm', 'record speech_start'])
  d.at(2000)
  t.same(d.send({ type: 'speech_end', at: 2000, edgeAt: 1950 }), ['record speech_end', 'finalize_transcript'])
  d.at(2100)
  d.strategy.decide({ type: 'end_of_turn', text: 'what  are your hours ', at: 2100, waitedMs: 100 })
  t.same(d.send({ type: 'transcript', text: 'what are your hours', final: true, at: 2100 }), [
    "emit final user 'what are your hours'",
    "record user 'what are your hours'",
    'emit status thinking',
    "start_reply turn-1 answer 'what are your hours'",
  ])
  d.at(2400)
  d.send({ type: 'reply_text', replyId: 'turn-1', at: 2400 })
  d.send({ type: 'reply_audio', replyId: 'turn-1', ms: 80 })
  t.same(d.send({ type: 'reply_playing', replyId: 'turn-1', at: 2500 }), ['emit status speaking'])
  t.same(d.send({ type: 'reply_heard', replyId: 'turn-1', heard: 'Nine to five.', interrupted: false, gaps: null }), [
    "emit final agent 'Nine to five.'",
    "record agent 'Nine to five.'",
    'emit metrics turn-1',
    'record metrics turn-1',
    'emit status listening',
  ])
  d.at(4000)
  answered(d, 'thanks')
  t.ok(d.log.includes("start_reply turn-2 answer 'thanks'"), 'the second turn is turn-2')
})

t.test('metrics count from the edges the audio path placed', async (t) => {
  const d = drive()
  greeted(d)
  const metrics: unknown[] = []
  d.send({ type: 'speech_start', at: 1000, edgeAt: 990 })
  d.at(2000)
  d.send({ type: 'speech_end', at: 2000, edgeAt: 1950 })
  d.at(2050)
  d.send({ type: 'transcript', text: 'hi', final: true, at: 2050 })
  d.at(2300)
  d.strategy.decide({ type: 'end_of_turn', text: 'hi', at: 2300, waitedMs: 300 })
  d.send({ type: 'tick', at: 2300 })
  d.send({ type: 'reply_text', replyId: 'turn-1', at: 2500 })
  d.send({ type: 'reply_audio', replyId: 'turn-1', ms: 90 })
  d.send({ type: 'reply_playing', replyId: 'turn-1', at: 2700 })
  const step = d.controller.handle({ type: 'reply_heard', replyId: 'turn-1', heard: 'Hi.', interrupted: false, gaps: null }, 3000)
  for (const c of step.commands) if (c.type === 'record' && c.entry.type === 'metrics') metrics.push(c.entry.metrics)
  t.same(metrics, [
    {
      turnId: 'turn-1',
      endpointingMs: 350,
      sttMs: 100,
      llmFirstTokenMs: 200,
      ttsFirstByteMs: 90,
      engineMs: 400,
      voiceToVoiceMs: 750,
      bargeInStopMs: null,
      interrupted: false,
    },
  ])
})

t.test('a barge-in pauses at once, interrupts on words, and records only what was heard', async (t) => {
  const d = drive()
  greeted(d)
  answered(d, 'tell me everything')
  d.at(3000)
  t.same(d.send({ type: 'speech_start', at: 3000, edgeAt: 2990, heardAt: 2995 }), ['prewarm', 'record speech_start', 'record barge_in_pause', 'pause_playout'])
  d.at(3300)
  const cut = d.send({ type: 'transcript', text: 'wait stop', final: false, at: 3300 })
  t.same(cut, ["emit partial user 'wait stop'", 'record barge_in_interrupt', 'clear_caller_audio', 'interrupt_reply turn-1', 'emit status listening'])
  // The generation adapter reports what was heard while it carries out interrupt_reply.
  const heard = d.controller.handle({ type: 'reply_heard', replyId: 'turn-1', heard: 'Well, first', interrupted: true, gaps: null }, 3300)
  const lines = heard.commands.map((c) => (c.type === 'record' && c.entry.type === 'metrics' ? c.entry.metrics : c))
  t.match(lines, [
    { type: 'emit', event: { type: 'transcript', role: 'agent', text: 'Well, first', interrupted: true } },
    { type: 'record', entry: { type: 'transcript', role: 'agent', text: 'Well, first', interrupted: true } },
    { type: 'emit', event: { type: 'metrics', turnId: 'turn-1', metrics: { bargeInStopMs: 5 } } },
    { turnId: 'turn-1', interrupted: true, bargeInStopMs: 5 },
  ])
  t.same(d.send({ type: 'reply_playing', replyId: 'turn-1', at: 3310 }), [], 'a cut reply reporting on its way out counts for nothing')
})

t.test('a barge-in that ends the turn: the cut line is recorded before the caller words', async (t) => {
  const d = drive()
  greeted(d)
  answered(d, 'tell me everything')
  d.send({ type: 'speech_start', at: d.now, edgeAt: d.now })
  d.at(d.now + 100)
  d.strategy.decide({ type: 'end_of_turn', text: 'no thanks', at: d.now, waitedMs: 0 })
  const lines = d.send({ type: 'speech_end', at: d.now, edgeAt: d.now })
  t.same(lines.slice(lines.indexOf('record speech_end')), [
    'record speech_end',
    'finalize_transcript',
    'clear_caller_audio',
    'interrupt_reply turn-1',
    'emit status listening',
    "emit final user 'no thanks'",
    "record user 'no thanks'",
    'emit status thinking',
    "start_reply turn-2 answer 'no thanks'",
  ])
})

t.test('a backchannel over the agent is ignored: playout resumes and no turn starts', async (t) => {
  const d = drive()
  greeted(d)
  answered(d, 'tell me a story')
  const start = d.now
  d.send({ type: 'speech_start', at: start, edgeAt: start })
  d.at(start + 300)
  d.send({ type: 'speech_end', at: start + 300, edgeAt: start + 300 })
  d.strategy.decide({ type: 'end_of_turn', text: 'uh-huh', at: start + 310, waitedMs: 0 })
  const lines = d.send({ type: 'transcript', text: 'uh-huh', final: true, at: start + 310 })
  t.same(lines, ['record barge_in_resume', 'resume_playout', 'record backchannel'])
  t.notOk(
    d.log.some((l) => l.startsWith('interrupt_reply') || l.includes('turn-2')),
    'the reply goes on',
  )
  t.same(
    d.send({ type: 'reply_heard', replyId: 'turn-1', heard: 'Once upon a time.', interrupted: false, gaps: null })[0],
    "emit final agent 'Once upon a time.'",
  )
})

t.test('a false interruption (a cough, no words) resumes the reply after the wait', async (t) => {
  const d = drive()
  greeted(d)
  answered(d, 'go on')
  const start = d.now
  t.ok(d.send({ type: 'speech_start', at: start, edgeAt: start }).includes('pause_playout'))
  d.at(start + 120)
  d.send({ type: 'speech_end', at: start + 120, edgeAt: start + 120 })
  t.notOk(d.at(start + 900).includes('resume_playout'), 'not before 800 ms of silence')
  t.same(d.at(start + 960), ['record barge_in_resume', 'resume_playout'])
  t.notOk(d.log.some((l) => l.startsWith('interrupt_reply')))
})

t.test('speculation: kept when the turn ends on the same words, dropped when the caller goes on', async (t) => {
  const d = drive()
  greeted(d)
  d.strategy.decide({ type: 'preempt', text: 'book a table', at: 1000 })
  t.same(d.send({ type: 'speech_pause', at: 1000, edgeAt: 990 }), ['prewarm', "preempt 'book a table'", 'record preempt'])
  d.strategy.decide({ type: 'end_of_turn', text: 'book a table', at: 1300, waitedMs: 300 })
  const kept = d.send({ type: 'tick', at: 1300 })
  t.ok(kept.includes('record preempt_used'))
  t.ok(kept.includes("start_reply turn-1 answer 'book a table' (preempted)"))
  t.notOk(kept.includes('drop_preempt'))

  const e = drive()
  greeted(e)
  e.strategy.decide({ type: 'preempt', text: 'book a', at: 1000 })
  e.send({ type: 'speech_pause', at: 1000 })
  e.strategy.decide({ type: 'cancel_preempt', at: 1100 })
  t.same(e.send({ type: 'speech_resume', at: 1100 }), ['drop_preempt', 'prewarm', 'record cancel_preempt'])
  e.strategy.decide({ type: 'preempt', text: 'book a table', at: 1500 })
  e.send({ type: 'speech_pause', at: 1500 })
  e.strategy.decide({ type: 'end_of_turn', text: 'book a table for two', at: 1900, waitedMs: 300 })
  const dropped = e.send({ type: 'tick', at: 1900 })
  t.ok(dropped.includes('drop_preempt'), 'a speculation on other words is dropped')
  t.ok(dropped.includes("start_reply turn-1 answer 'book a table for two'"))
})

t.test('no speculation while the agent is busy', async (t) => {
  const d = drive()
  d.send({ type: 'call_start' })
  d.strategy.decide({ type: 'preempt', text: 'hi', at: 100 })
  t.same(d.send({ type: 'speech_pause', at: 100 }), ['prewarm'], 'the greeting holds the runtime')
})

t.test('words added before the reply is heard: one answer to everything said', async (t) => {
  const d = drive()
  greeted(d)
  d.strategy.decide({ type: 'end_of_turn', text: 'I want', at: 1000, waitedMs: 300 })
  d.send({ type: 'tick', at: 1000 })
  d.strategy.decide({ type: 'end_of_turn', text: 'a pizza', at: 1500, waitedMs: 300 })
  t.same(d.send({ type: 'tick', at: 1500 }), [
    'cancel_reply turn-1',
    "emit final user 'I want a pizza'",
    "record user 'I want a pizza'",
    "start_reply turn-1 answer 'I want a pizza'",
  ])
})

t.test('control say: queued behind the reply, or cutting it with interrupt', async (t) => {
  const d = drive()
  greeted(d)
  answered(d, 'hours?')
  t.same(d.send({ type: 'say', text: 'One moment.', interrupt: false }), ['record control'], 'waits for the reply')
  const after = d.send({ type: 'reply_heard', replyId: 'turn-1', heard: 'Nine to five.', interrupted: false, gaps: null })
  t.ok(after.includes("start_reply say-1 line 'One moment.'"), 'then speaks')

  const e = drive()
  greeted(e)
  answered(e, 'hours?')
  t.same(e.send({ type: 'say', text: 'Sorry, we are closing.', interrupt: true }), [
    'record control',
    'clear_caller_audio',
    'interrupt_reply turn-1',
    'emit status listening',
    "start_reply say-1 line 'Sorry, we are closing.'",
  ])

  const f = drive()
  greeted(f)
  f.strategy.decide({ type: 'end_of_turn', text: 'hours?', at: 0, waitedMs: 0 })
  f.send({ type: 'tick', at: 0 })
  t.same(f.send({ type: 'say', text: 'Hold on.', interrupt: true }).slice(0, 2), ['record control', 'cancel_reply turn-1'], 'a reply not heard yet is dropped')
})

t.test('control transfer and end', async (t) => {
  const d = drive()
  greeted(d)
  t.same(d.send({ type: 'transfer', target: '+15550100' }), ['record control', 'emit transfer +15550100', 'end_call transfer (transfer)'])
  t.equal(d.controller.nextWakeAt, null, 'an ended call needs no time')
  t.same(d.send({ type: 'say', text: 'late', interrupt: false }), [], 'nothing after the end')

  const e = drive()
  greeted(e)
  answered(e, 'bye')
  t.same(e.send({ type: 'end', immediately: false }), ['record control'], 'waits for the agent to finish')
  t.same(e.send({ type: 'reply_heard', replyId: 'turn-1', heard: 'Goodbye.', interrupted: false, gaps: null }).at(-1), 'end_call ended_by_api (ended_by_api)')

  const f = drive()
  greeted(f)
  answered(f, 'bye')
  t.same(f.send({ type: 'end', immediately: true }), ['record control', 'end_call ended_by_api (ended_by_api)'])
})

t.test('the workflow ends the call once its last reply is heard', async (t) => {
  const d = drive()
  greeted(d)
  answered(d, 'that is all')
  t.same(d.send({ type: 'reply_ends_call', replyId: 'turn-1', disposition: 'completed' }), ['record runtime_end'])
  t.same(d.send({ type: 'reply_heard', replyId: 'turn-1', heard: 'Goodbye.', interrupted: false, gaps: null }).at(-1), 'end_call agent_ended (agent_ended)')
})

t.test('silence: the agent asks once, then ends the call', async (t) => {
  const d = drive({ limits: { maxDurationMs: 600_000, silenceTimeoutMs: 5_000 } })
  greeted(d)
  const prompt = d.at(5_100)
  t.ok(prompt.includes('record still_there'))
  t.ok(prompt.includes("start_reply prompt-0 line 'Are you still there?'"))
  d.send({ type: 'reply_playing', replyId: 'prompt-0', at: d.now })
  d.send({ type: 'reply_heard', replyId: 'prompt-0', heard: 'Are you still there?', interrupted: false, gaps: null })
  t.notOk(
    d.at(10_000).some((l) => l.startsWith('end_call')),
    'silence counts again from the prompt',
  )
  t.ok(d.at(10_200).includes('end_call idle_timeout (idle_timeout)'))
})

t.test('a muted caller is not silent', async (t) => {
  const d = drive({ limits: { maxDurationMs: 600_000, silenceTimeoutMs: 1_000 } })
  greeted(d)
  t.same(d.send({ type: 'mute', muted: true }), ['mute_input true', 'record mute'])
  t.notOk(d.at(5_000).some((l) => l.includes('still_there')))
})

t.test('max duration ends the call, whatever is going on', async (t) => {
  const d = drive({ limits: { maxDurationMs: 3_000, silenceTimeoutMs: 60_000 } })
  greeted(d)
  answered(d, 'talk forever')
  t.same(d.at(3_000).at(-1), 'end_call max_duration (max_duration)')
  t.equal(d.controller.callStatus, 'ended')
})

t.test('every failure category ends the call with its code; a workflow warning does not', async (t) => {
  for (const category of ['stt', 'tts', 'llm', 'vad', 'transport', 'engine'] as const) {
    const d = drive()
    greeted(d)
    const code = `${category}_failed`
    t.same(
      d.send({ type: 'failure', category, code, message: `${category} broke`, retryable: category === 'stt' }),
      [`emit error ${code}`, 'record error', 'end_call error (error)'],
      category,
    )
  }
  const d = drive()
  greeted(d)
  answered(d, 'look it up')
  t.same(d.send({ type: 'reply_warning', replyId: 'turn-1', code: 'upstream_timeout', message: 'slow' }), [
    'emit error upstream_timeout',
    'record runtime_error',
  ])
  t.not(d.controller.callStatus, 'ended')
})

t.test('the caller leaving: hang-up, dropped line, protocol breach', async (t) => {
  const cases = [
    [{ type: 'caller_left', how: 'hangup' }, ['end_call client_stop (client_hangup)']],
    [{ type: 'caller_left', how: 'dropped', code: 1006, reason: '' }, ['record socket_closed', 'end_call client_stop (dropped)']],
    [{ type: 'caller_left', how: 'protocol_error', code: 4400, reason: 'protocol' }, ['record socket_closed', 'end_call protocol_error (protocol_error)']],
    [{ type: 'shutdown' }, ['end_call server_shutdown (server_shutdown)']],
  ] as const
  for (const [frame, expected] of cases) {
    const d = drive()
    greeted(d)
    t.same(d.send(frame), expected, JSON.stringify(frame))
  }
  const never = drive()
  t.same(never.send({ type: 'caller_left', how: 'dropped' }), ['end_call client_stop (dropped)'], 'gone before the start')
  t.same(never.send({ type: 'say', text: 'x', interrupt: false }), [])
})

t.test('a streaming STT is told to finalize 200 ms into a pause, and not again at its end', async (t) => {
  const d = drive()
  greeted(d)
  d.send({ type: 'speech_start', at: 1000 })
  d.at(2000)
  d.send({ type: 'speech_pause', at: 2000, edgeAt: 1990 })
  t.equal(d.controller.nextWakeAt, Math.min(1990 + FINALIZE_AFTER_MS, d.controller.nextWakeAt ?? Infinity))
  t.ok(d.at(1990 + FINALIZE_AFTER_MS).includes('finalize_transcript'))
  t.notOk(d.send({ type: 'speech_end', at: 2300, edgeAt: 1990 }).includes('finalize_transcript'))
  const e = drive({ streamingStt: false })
  greeted(e)
  e.send({ type: 'speech_pause', at: 2000, edgeAt: 1990 })
  t.notOk(e.at(2500).includes('finalize_transcript'), 'a request-per-utterance STT finalizes at the end only')
})

t.test('with a real strategy: the end of turn comes from silence, at the instant it is due', async (t) => {
  const d = drive({ strategy: new SilenceStrategy({ silenceMs: 300, preemptive: false }) })
  greeted(d)
  d.send({ type: 'speech_start', at: 1000 })
  d.send({ type: 'transcript', text: 'hello there', final: false, at: 1400 })
  d.at(1500)
  d.send({ type: 'speech_end', at: 1500, edgeAt: 1500 })
  d.send({ type: 'transcript', text: 'hello there', final: true, at: 1550 })
  const ended = d.at(2000)
  t.ok(ended.includes("start_reply turn-1 answer 'hello there'"))
})
