import t from 'tap'
import { answered, drive, greeted } from './drive.js'

// A workflow's actions on the line (live-control.ts): keys from dtmf nodes and a transfer node's
// transfer are carried out once the reply that holds them is over, heard or cut.

const step = (replyId: string, name: string, data: Record<string, unknown>) => ({ type: 'reply_step' as const, replyId, name, data: { kind: name, ...data } })
const heard = (replyId: string, text: string, interrupted = false) => ({ type: 'reply_heard' as const, replyId, heard: text, interrupted, gaps: null })

t.test('keys a dtmf node pressed go out after the words before them are heard', async (t) => {
  const d = drive()
  greeted(d)
  answered(d, 'connect me to billing')
  t.same(d.send(step('turn-1', 'agent_dtmf', { digits: '1' })), ['record agent_dtmf'], 'recorded as the workflow steps, not sent while the agent talks')
  d.send(step('turn-1', 'agent_dtmf', { digits: '2#' }))
  const after = d.send(heard('turn-1', 'One moment.'))
  t.ok(after.includes('emit send_dtmf 12#'), 'sent once, in order, when the reply is over')
  t.equal(after.at(-1), 'emit status listening')
  t.notOk(d.send(heard('turn-1', 'One moment.')).includes('emit send_dtmf 12#'), 'never twice')
})

t.test('a barge-in does not lose the keys: the workflow has moved on', async (t) => {
  const d = drive()
  greeted(d)
  answered(d, 'press one for me')
  d.send(step('turn-1', 'agent_dtmf', { digits: '1' }))
  d.strategy.decide({ type: 'end_of_turn', text: 'wait', at: d.now, waitedMs: 300 })
  d.send({ type: 'transcript', text: 'wait', final: true, at: d.now })
  t.ok(d.send(heard('turn-1', 'Pressing', true)).includes('emit send_dtmf 1'), 'the cut reply still presses its keys')
})

t.test('a workflow transfer: made once the message is heard; success ends the call', async (t) => {
  const d = drive({ transferWaits: true })
  greeted(d)
  answered(d, 'a human please')
  d.send(step('turn-1', 'transfer', { target: '+15550100', mode: 'cold' }))
  d.send({ type: 'reply_ends_call', replyId: 'turn-1', disposition: 'transferred' })
  const out = d.send(heard('turn-1', 'Transferring you now.'))
  t.ok(out.includes('emit transfer +15550100'))
  t.notOk(
    out.some((l) => l.startsWith('end_call')),
    'a phone line waits to hear how it went',
  )
  d.strategy.decide({ type: 'end_of_turn', text: 'hello?', at: d.now, waitedMs: 300 })
  const ignored = d.send({ type: 'transcript', text: 'hello?', final: true, at: d.now })
  t.ok(ignored.includes('record turn_ignored'), 'the workflow has ended: a caller turn is not answered meanwhile')
  t.notOk(ignored.some((l) => l.startsWith('start_reply')))
  t.same(d.send({ type: 'transfer_result', ok: true }), ['record transfer_result', 'end_call transfer (transfer)'])
})

t.test('a failed workflow transfer: the agent says so, then the workflow goes on by its failure edge', async (t) => {
  const d = drive({ transferWaits: true })
  greeted(d)
  answered(d, 'a human please')
  d.send(step('turn-1', 'transfer', { target: 'sip:desk@pbx.example.com', mode: 'cold' }))
  d.send({ type: 'reply_ends_call', replyId: 'turn-1', disposition: 'transferred' })
  d.send(heard('turn-1', 'Transferring you now.'))
  const failed = d.send({ type: 'transfer_result', ok: false, reason: 'declined' })
  t.ok(failed.includes("start_reply say-1 line 'Sorry, I could not transfer the call.'"))
  d.send({ type: 'reply_playing', replyId: 'say-1', at: d.now })
  const resumed = d.send(heard('say-1', 'Sorry, I could not transfer the call.'))
  t.ok(resumed.includes('start_reply transfer-failed-2 transfer_failed'), 'the workflow resumes after the line')
  d.send({ type: 'reply_playing', replyId: 'transfer-failed-2', at: d.now })
  t.equal(d.send(heard('transfer-failed-2', 'Can I take a number?')).at(-1), 'emit status listening', 'and the call goes on')
  answered(d, 'yes', 'turn-2')
  t.ok(d.log.includes("start_reply turn-2 answer 'yes'"), 'caller turns are answered again')
})

t.test('a browser carries no transfer out: a workflow transfer ends the call as control transfer does', async (t) => {
  const d = drive()
  greeted(d)
  answered(d, 'a human please')
  d.send(step('turn-1', 'transfer', { target: '+15550100', mode: 'cold' }))
  d.send({ type: 'reply_ends_call', replyId: 'turn-1', disposition: 'transferred' })
  t.same(d.send(heard('turn-1', 'Transferring you now.')).slice(-2), ['emit transfer +15550100', 'end_call transfer (transfer)'])
})

t.test('words over the transfer message cut it, the transfer still goes out, and the words are not answered', async (t) => {
  const d = drive({ transferWaits: true })
  greeted(d)
  answered(d, 'a human please')
  d.send(step('turn-1', 'transfer', { target: '+15550100', mode: 'cold' }))
  d.send({ type: 'reply_ends_call', replyId: 'turn-1', disposition: 'transferred' })
  d.strategy.decide({ type: 'end_of_turn', text: 'wait one second', at: d.now, waitedMs: 300 })
  const out = d.send({ type: 'transcript', text: 'wait one second', final: true, at: d.now })
  t.ok(out.includes('interrupt_reply turn-1'), 'the message is cut')
  // The cut reply reports what was heard while the interrupt command runs (reply-generator.ts).
  const heardOut = d.send(heard('turn-1', 'Transferring', true))
  t.ok(heardOut.includes('emit transfer +15550100'), 'the workflow had moved on: the transfer goes out')
  d.strategy.decide({ type: 'end_of_turn', text: 'hello', at: d.now, waitedMs: 300 })
  const later = d.send({ type: 'transcript', text: 'hello', final: true, at: d.now })
  t.ok(later.includes('record turn_ignored'))
  t.notOk(
    d.log.some((l) => l.startsWith('start_reply turn-2')),
    'no answer is asked of the ended workflow',
  )
})
