// Key presses reach the graph as turns (issue #21 item 6): digits gather until `#` or a pause, a
// press cuts the agent, and the entry is answered like words.
import t from 'tap'
import { DTMF_INTER_DIGIT_MS, DtmfEntry, MAX_DTMF_DIGITS } from '../../../../engine/pipeline/call/dtmf-entry.js'
import { drive, greeted } from './drive.js'

t.test('digits gather until # (not part of the entry) or a pause', async (t) => {
  const e = new DtmfEntry()
  t.equal(e.press('4', 0), null)
  t.equal(e.dueAt, DTMF_INTER_DIGIT_MS)
  t.equal(e.press('7', 500), null)
  t.equal(e.dueAt, 500 + DTMF_INTER_DIGIT_MS, 'each key restarts the pause')
  t.equal(e.press('#', 900), '47', '# ends the entry')
  t.equal(e.dueAt, null)
  t.equal(e.press('1', 1000), null)
  t.equal(e.due(1000 + DTMF_INTER_DIGIT_MS - 1), null)
  t.equal(e.due(1000 + DTMF_INTER_DIGIT_MS), '1', 'a pause ends it too')
  t.equal(e.press('#', 5000), '#', '# alone is an entry of its own (e.g. "press # to repeat")')
  t.equal(e.press('12#9', 6000), '12', 'a web client may send several keys at once')
  t.equal(e.due(6000 + DTMF_INTER_DIGIT_MS), '9')
  t.equal(e.press('x-', 9000), null, 'what is not a key is ignored')
  t.equal(e.dueAt, null)
  t.equal(e.press('1'.repeat(100), 10_000), null)
  t.equal(e.press('#', 10_001)?.length, MAX_DTMF_DIGITS, 'a stuck key does not grow the entry past its bound')
})

t.test('a press cuts the agent; the entry is a user turn the graph answers', async (t) => {
  const d = drive()
  greeted(d)
  d.at(1000)
  d.send({ type: 'say', text: 'Press 1 for sales, 2 for support.', interrupt: false })
  d.send({ type: 'reply_playing', replyId: 'say-1', at: 1000 })
  d.at(1200)
  const cut = d.send({ type: 'dtmf', digits: '2' })
  t.ok(cut.includes('interrupt_reply say-1'), 'the key cut the agent at once', { cut })
  t.ok(cut.includes('record dtmf'), 'the press is recorded')
  t.notOk(
    cut.some((l) => l.startsWith('start_reply')),
    'no answer yet: more keys may come',
  )
  t.equal(d.controller.nextWakeAt !== null && d.controller.nextWakeAt <= 1200 + DTMF_INTER_DIGIT_MS, true, 'the controller wakes for the pause')
  const answered = d.at(1200 + DTMF_INTER_DIGIT_MS)
  t.ok(answered.includes("record user '2'"), 'the entry is in the transcript', { answered })
  t.ok(answered.includes("start_reply turn-1 answer '2'"), 'and answered as the caller’s turn')
  d.send({ type: 'reply_playing', replyId: 'turn-1', at: 3300 })
  d.send({ type: 'reply_heard', replyId: 'turn-1', heard: 'Support it is. Your customer number?', interrupted: false, gaps: null })
  const hash = d.send({ type: 'dtmf', digits: '4711#' })
  t.ok(hash.includes("start_reply turn-2 answer '4711'"), '# answers at once', { hash })
})
