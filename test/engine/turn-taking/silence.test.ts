import t from 'tap'
import { SilenceStrategy } from '../../../engine/turn-taking/index.js'
import { drive, ends, final, partial, speech } from './drive.js'

t.test('the turn ends 300 ms after speech stops by default, once a final is in', async (t) => {
  const s = new SilenceStrategy({ preemptive: false })
  const out = drive(s, [...speech(100, 1000), final('I need an appointment', 900)], 3000)
  t.same(out, [{ type: 'end_of_turn', at: 1300, text: 'I need an appointment', waitedMs: 300 }])
})

t.test('silenceMs is configurable', async (t) => {
  const out = drive(new SilenceStrategy({ silenceMs: 800, preemptive: false }), [...speech(0, 1000), final('hello', 1100)], 3000)
  t.match(ends(out), [{ at: 1800, waitedMs: 800 }])
})

t.test('a pause shorter than the silence does not end the turn', async (t) => {
  const script = [...speech(0, 1000), final('I want to book', 1050), ...speech(1200, 2000), final('for Friday', 2050)]
  const out = drive(new SilenceStrategy({ preemptive: false }), script, 4000)
  t.same(out, [{ type: 'end_of_turn', at: 2300, text: 'I want to book for Friday', waitedMs: 300 }])
})

t.test('finals that arrive after the silence end the turn at once', async (t) => {
  const out = drive(new SilenceStrategy({ preemptive: false }), [...speech(0, 1000), final('yes please', 1450)], 3000)
  t.same(out, [{ type: 'end_of_turn', at: 1450, text: 'yes please', waitedMs: 450 }])
})

t.test('STT lag: words after the last final are waited for up to maxWaitForFinalMs, then the partial is used', async (t) => {
  const lag = [...speech(0, 1000), final('my number is', 800), partial('five five five', 1100)]
  const out = drive(new SilenceStrategy({ preemptive: false }), lag, 4000)
  t.same(out, [{ type: 'end_of_turn', at: 2500, text: 'my number is five five five', waitedMs: 1500 }])
  const quick = drive(new SilenceStrategy({ preemptive: false }), [...lag, final('five five five', 1700)], 4000)
  t.same(ends(quick), [{ type: 'end_of_turn', at: 1700, text: 'my number is five five five', waitedMs: 700 }], 'the final wins when it comes in time')
  const short = drive(new SilenceStrategy({ preemptive: false, maxWaitForFinalMs: 600 }), lag, 4000)
  t.match(ends(short), [{ at: 1600, waitedMs: 600 }])
})

t.test('STT lag with only partials (no final yet) ends on the partial after maxWaitForFinalMs', async (t) => {
  const out = drive(new SilenceStrategy({ preemptive: false }), [...speech(0, 1000), partial('hello', 500), partial('hello there', 900)], 4000)
  t.same(out, [{ type: 'end_of_turn', at: 2500, text: 'hello there', waitedMs: 1500 }])
})

t.test('speech with no words (noise) never ends a turn; a late final still does', async (t) => {
  const s = new SilenceStrategy({ preemptive: false })
  t.same(drive(s, speech(0, 400), 5000), [])
  t.same(s.handle(final('sorry', 5010)), [{ type: 'end_of_turn', at: 5010, text: 'sorry', waitedMs: 4610 }])
})

t.test('a final without any VAD speech starts the silence clock itself', async (t) => {
  const out = drive(new SilenceStrategy({ preemptive: false }), [final('quiet words', 1000)], 3000)
  t.same(out, [{ type: 'end_of_turn', at: 1300, text: 'quiet words', waitedMs: 300 }])
})

t.test('empty transcripts and extra whitespace are ignored', async (t) => {
  const out = drive(new SilenceStrategy({ preemptive: false }), [...speech(0, 1000), final('  ', 900), final(' two   words ', 950)], 3000)
  t.same(ends(out), [{ type: 'end_of_turn', at: 1300, text: 'two words', waitedMs: 300 }])
})

t.test('after an end of turn the next turn starts clean; reset forgets the turn', async (t) => {
  const s = new SilenceStrategy({ preemptive: false })
  const out = drive(s, [...speech(0, 500), final('one', 450), ...speech(1000, 1500), final('two', 1450)], 3000)
  t.same(
    ends(out).map((d) => d.text),
    ['one', 'two'],
  )
  s.handle({ type: 'speech_end', at: 4000 })
  s.handle(final('stale', 4010))
  s.reset()
  t.same(s.handle({ type: 'tick', at: 9000 }), [])
})

t.test('invalid options are refused', async (t) => {
  t.throws(() => new SilenceStrategy({ silenceMs: -1 }), RangeError)
  t.throws(() => new SilenceStrategy({ maxWaitForFinalMs: Number.NaN }), RangeError)
})
