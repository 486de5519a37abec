import t from 'tap'
import { TextAdaptiveStrategy, textCue, type TextCue } from '../../../engine/turn-taking/index.js'
import { drive, ends, final, speech } from './drive.js'

const CUES: Array<[string, TextCue]> = [
  // complete
  ['Is the clinic open today?', 'complete'],
  ['That is all.', 'complete'],
  ['Harika!', 'complete'],
  ['"Really?"', 'complete'],
  ['Klinik bugün açık mı', 'complete'],
  ['YARIN GELEBİLİR MİSİNİZ', 'complete'],
  ['bu doğru mu', 'complete'],
  ['Ödeme yaptınız mı', 'complete'],
  ['geldi mü', 'complete'],
  ['hazır mıyız', 'complete'],
  ['So?', 'complete'],
  // incomplete: conjunctions and fillers, en and tr, any case or diacritics
  ['I want to book a table and', 'incomplete'],
  ['I would like it but', 'incomplete'],
  ['Because', 'incomplete'],
  ['um', 'incomplete'],
  ['Ummm', 'incomplete'],
  ['Well,', 'incomplete'],
  ['it is like', 'incomplete'],
  ['I was thinking, you know', 'incomplete'],
  ['Randevu almak istiyorum ve', 'incomplete'],
  ['Yarın gelirim ama', 'incomplete'],
  ['ÇÜNKÜ', 'incomplete'],
  ['cunku', 'incomplete'],
  ['yani', 'incomplete'],
  ['Şey', 'incomplete'],
  ['eeee', 'incomplete'],
  ['pazartesi ya da', 'incomplete'],
  ['Ahmet ile', 'incomplete'],
  ['Um.', 'incomplete'],
  ['and then, uh.', 'incomplete'],
  ['My name is Ayşe,', 'incomplete'],
  ['Let me think...', 'incomplete'],
  ['Hmm…', 'incomplete'],
  // neutral
  ['my name is Ayşe', 'neutral'],
  ['adım Mehmet', 'neutral'],
  ['mi', 'neutral'],
  ['', 'neutral'],
]

t.test('text cues (tr and en)', async (t) => {
  for (const [text, cue] of CUES) t.equal(textCue(text), cue, JSON.stringify(text))
})

const endAt = (text: string, options = {}) =>
  ends(drive(new TextAdaptiveStrategy({ preemptive: false, ...options }), [...speech(0, 1000), final(text, 900)], 5000))[0]

t.test('waits shorter after a complete sentence or question, 300 ms when neutral, longer after a conjunction', async (t) => {
  t.match(endAt('Is it open today?'), { at: 1180, waitedMs: 180 })
  t.match(endAt('Bugün açık mısınız'), { at: 1180 })
  t.match(endAt('Thanks, that is all.'), { at: 1180 })
  t.match(endAt('my name is Ayşe'), { at: 1300, waitedMs: 300 })
  t.match(endAt('I want to book and'), { at: 1600, waitedMs: 600 })
  t.match(endAt('Yarın gelirim çünkü'), { at: 1600 })
  t.match(endAt('um'), { at: 1600 })
})

t.test('factors and the cap are configurable; the cap bounds the longer wait', async (t) => {
  t.match(endAt('and', { silenceMs: 500 }), { waitedMs: 1000 })
  t.match(endAt('and', { silenceMs: 800 }), { waitedMs: 1200 }, 'capped at maxSilenceMs (1200)')
  t.match(endAt('and', { silenceMs: 800, maxSilenceMs: 2000 }), { waitedMs: 1600 })
  t.match(endAt('Done?', { completeFactor: 0.5 }), { waitedMs: 160 }, 'rounded up to the next 20 ms tick')
  t.match(endAt('ve', { incompleteFactor: 3, maxSilenceMs: 5000 }), { waitedMs: 900 })
  t.throws(() => new TextAdaptiveStrategy({ completeFactor: -1 }), RangeError)
})

t.test('the wait follows the latest words: a trailing "and" then more words', async (t) => {
  const script = [...speech(0, 1000), final('I want pizza and', 1000), ...speech(1400, 2000), final('pasta.', 2000)]
  t.same(ends(drive(new TextAdaptiveStrategy({ preemptive: false }), script, 4000)), [
    { type: 'end_of_turn', at: 2180, text: 'I want pizza and pasta.', waitedMs: 180 },
  ])
})
