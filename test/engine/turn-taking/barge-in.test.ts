import t from 'tap'
import { BargeIn, type BargeInEvent, type BargeInOptions } from '../../../engine/turn-taking/index.js'
import { drive, final, partial, speech } from './drive.js'

const speaking = (at = 0): BargeInEvent => ({ type: 'agent_speaking', speaking: true, at })
const run = (script: BargeInEvent[], options: Partial<BargeInOptions> = {}, untilMs = 4000) => drive(new BargeIn(options), [speaking(), ...script], untilMs)

t.test('user speech pauses the agent in the same frame; words past minSpeechMs confirm the interrupt', async (t) => {
  const b = new BargeIn()
  t.same(b.handle(speaking(0)), [])
  t.same(b.handle({ type: 'speech_start', at: 1000 }), [{ type: 'pause', at: 1000 }], 'decided on the VAD event itself')
  t.same(b.handle(partial('wait', 1100)), [], 'one word, but only 100 ms of speech')
  t.same(b.handle({ type: 'tick', at: 1240 }), [])
  t.same(b.handle({ type: 'tick', at: 1260 }), [{ type: 'interrupt', at: 1260, reason: 'words' }])
  t.same(b.handle({ type: 'tick', at: 1280 }), [], 'decided once')
  t.same(b.handle({ type: 'speech_start', at: 1300 }), [], 'the agent is no longer speaking')
})

t.test('backchannels do not interrupt: the agent resumes as soon as the STT confirms one', async (t) => {
  for (const word of ['uh-huh', 'yeah', 'okay', 'evet', 'hı hı', 'tamam', 'mm-hmm', 'anladım']) {
    const out = run([...speech(1000, 1400), partial(word, 1200), final(word, 1450)])
    t.same(
      out,
      [
        { type: 'pause', at: 1000 },
        { type: 'resume', at: 1450, reason: 'backchannel' },
      ],
      word,
    )
  }
})

t.test('a backchannel followed by real words interrupts', async (t) => {
  const out = run([...speech(1000, 2000), partial('yeah', 1200), partial('yeah but wait', 1500)])
  t.same(out, [
    { type: 'pause', at: 1000 },
    { type: 'interrupt', at: 1500, reason: 'words' },
  ])
})

t.test('backchannelsInterrupt lets them interrupt; a custom list and lang are honoured', async (t) => {
  t.match(run([...speech(1000, 1400), final('yeah', 1300)], { backchannelsInterrupt: true }), [{ type: 'pause' }, { type: 'interrupt', at: 1300 }])
  t.match(run([...speech(1000, 1400), final('harika', 1300)], { backchannels: ['harika'] }), [{ type: 'pause' }, { type: 'resume', reason: 'backchannel' }])
  t.match(run([...speech(1000, 1400), final('tamam', 1300)], { lang: 'en-US' }), [{ type: 'pause' }, { type: 'interrupt' }])
})

t.test('a false interruption (noise, no words) resumes after falseInterruptionMs of silence', async (t) => {
  t.same(run(speech(1000, 1150)), [
    { type: 'pause', at: 1000 },
    { type: 'resume', at: 1960, reason: 'no_words' },
  ])
  t.same(
    run(speech(1000, 1600)),
    [
      { type: 'pause', at: 1000 },
      { type: 'resume', at: 2400, reason: 'no_words' },
    ],
    'long noise too',
  )
  t.same(run(speech(1000, 1150), { falseInterruptionMs: 300 }), [
    { type: 'pause', at: 1000 },
    { type: 'resume', at: 1460, reason: 'no_words' },
  ])
})

t.test('minSpeechMs: short speech with words does not interrupt', async (t) => {
  t.same(run([...speech(1000, 1150), final('stop', 1300)]), [
    { type: 'pause', at: 1000 },
    { type: 'resume', at: 1960, reason: 'too_short' },
  ])
  t.match(run([...speech(1000, 1150), final('stop', 1300)], { minSpeechMs: 100 }), [{ type: 'pause' }, { type: 'interrupt', at: 1300 }])
  t.match(run([...speech(1000, 1600), final('stop', 1300)], { minSpeechMs: 500 }), [{ type: 'pause' }, { type: 'interrupt', at: 1500 }])
})

t.test('minWords: too few words resume; enough words interrupt', async (t) => {
  t.same(run([...speech(1000, 1500), final('wait', 1400)], { minWords: 2 }), [
    { type: 'pause', at: 1000 },
    { type: 'resume', at: 2300, reason: 'too_few_words' },
  ])
  t.match(run([...speech(1000, 1500), final('wait please', 1400)], { minWords: 2 }), [{ type: 'pause' }, { type: 'interrupt', at: 1400 }])
  t.match(
    run([...speech(1000, 1500), final('wait', 1300), final('please', 1450)], { minWords: 2 }),
    [{ type: 'pause' }, { type: 'interrupt', at: 1450 }],
    'words add up across finals',
  )
})

t.test('minWords 0: VAD alone interrupts after minSpeechMs, without waiting for words', async (t) => {
  t.same(run(speech(1000, 2000), { minWords: 0 }), [
    { type: 'pause', at: 1000 },
    { type: 'interrupt', at: 1260, reason: 'speech' },
  ])
  t.same(run(speech(1000, 1100), { minWords: 0 }), [
    { type: 'pause', at: 1000 },
    { type: 'resume', at: 1900, reason: 'no_words' },
  ])
})

t.test('speech time adds up across VAD segments of one interruption', async (t) => {
  const script = [...speech(1000, 1150), ...speech(1300, 1420), final('stop it', 1500)]
  t.same(
    run(script),
    [
      { type: 'pause', at: 1000 },
      { type: 'interrupt', at: 1500, reason: 'words' },
    ],
    '150 + 120 ms ≥ 250 ms',
  )
})

t.test('nothing happens while the agent is silent; the agent stopping drops a pending pause', async (t) => {
  t.same(drive(new BargeIn(), [...speech(1000, 1500), final('hello there', 1400)], 3000), [])
  const out = run([...speech(1000, 1100), { type: 'agent_speaking', speaking: false, at: 1200 }])
  t.same(out, [{ type: 'pause', at: 1000 }])
})

t.test('agent_speaking is edge-triggered; the user already talking when the agent starts is barge-in', async (t) => {
  const b = new BargeIn()
  b.handle(speaking(0))
  t.same(b.handle({ type: 'speech_start', at: 100 }), [{ type: 'pause', at: 100 }])
  t.same(b.handle(speaking(150)), [], 'repeating true keeps the pending pause')
  t.same(b.handle(final('hold on', 400)), [{ type: 'interrupt', at: 400, reason: 'words' }])
  const c = new BargeIn()
  c.handle({ type: 'speech_start', at: 0 })
  t.same(c.handle(speaking(500)), [{ type: 'pause', at: 500 }])
})

t.test('after resume or interrupt, new speech pauses again once the agent speaks', async (t) => {
  const out = run([...speech(1000, 1100), ...speech(2500, 3000), final('no wait', 2800)])
  t.same(out, [
    { type: 'pause', at: 1000 },
    { type: 'resume', at: 1900, reason: 'no_words' },
    { type: 'pause', at: 2500 },
    { type: 'interrupt', at: 2800, reason: 'words' },
  ])
  const b = new BargeIn()
  b.handle(speaking(0))
  b.handle({ type: 'speech_start', at: 10 })
  b.handle(final('stop now', 300))
  b.handle({ type: 'speech_end', at: 400 })
  b.handle({ type: 'agent_speaking', speaking: false, at: 420 })
  b.handle(speaking(2000))
  t.same(b.handle({ type: 'speech_start', at: 2100 }), [{ type: 'pause', at: 2100 }])
})

t.test('pauseOnSpeech false: only interrupt is emitted', async (t) => {
  t.same(run([...speech(1000, 1500), final('stop', 1400)], { pauseOnSpeech: false }), [{ type: 'interrupt', at: 1400, reason: 'words' }])
  t.same(run(speech(1000, 1100), { pauseOnSpeech: false }), [])
})

t.test('invalid options are refused', async (t) => {
  t.throws(() => new BargeIn({ minSpeechMs: -5 }), RangeError)
  t.throws(() => new BargeIn({ falseInterruptionMs: Infinity }), RangeError)
})
