import t from 'tap'
import { PhraseChunker, type PhraseChunkerOptions } from '../../../engine/pipeline/phrase-chunker.js'

const chunk = (text: string, options?: Partial<PhraseChunkerOptions>) => {
  const c = new PhraseChunker(options)
  return [...c.push(text), ...c.flush()]
}

// Each row: the reply as the LLM streams it, and the phrases TTS must receive.
const TABLE: Array<[string, string, string[]]> = [
  ['sentence ends', 'Hello there. How are you? Great!', ['Hello there.', 'How are you?', 'Great!']],
  ['first clause early', 'Sure thing, I can book that for you, and then we are done.', ['Sure thing, I can book that for you,', 'and then we are done.']],
  ['a short first clause waits for 3 words', 'Sure, I can help you with that.', ['Sure, I can help you with that.']],
  [
    'only the first phrase splits at commas',
    'Yes I can help, of course. Later, we can talk, if you like.',
    ['Yes I can help,', 'of course.', 'Later, we can talk, if you like.'],
  ],
  ['en decimals', 'The price is 3.5 dollars. Thanks.', ['The price is 3.5 dollars.', 'Thanks.']],
  ['tr decimals', 'Fiyat 3,5 lira olacak. Teşekkürler.', ['Fiyat 3,5 lira olacak.', 'Teşekkürler.']],
  ['en thousands', 'It costs 1,500 dollars in total. Okay?', ['It costs 1,500 dollars in total.', 'Okay?']],
  ['tr thousands', 'Toplam 1.500 lira tutuyor. Tamam mı?', ['Toplam 1.500 lira tutuyor.', 'Tamam mı?']],
  ['times', 'See you at 10:30 tomorrow. Bye.', ['See you at 10:30 tomorrow.', 'Bye.']],
  ['dates', 'Randevunuz 22.11.2026 tarihinde. Görüşmek üzere.', ['Randevunuz 22.11.2026 tarihinde.', 'Görüşmek üzere.']],
  ['date at a sentence end', 'Your visit is on 22.11.2026. See you then.', ['Your visit is on 22.11.2026.', 'See you then.']],
  ['tr ordinals', 'Ofisimiz 3. katta bulunuyor. Asansör var.', ['Ofisimiz 3. katta bulunuyor.', 'Asansör var.']],
  [
    'en abbreviations',
    'Dr. Smith and Mrs. Jones met Prof. Lee on St. Mark street. Done.',
    ['Dr. Smith and Mrs. Jones met Prof. Lee on St. Mark street.', 'Done.'],
  ],
  ['e.g. and i.e.', 'Hi. Bring fruit, e.g. Apples, i.e. Red ones. Thanks.', ['Hi.', 'Bring fruit, e.g. Apples, i.e. Red ones.', 'Thanks.']],
  ['vs. and etc.', 'Ok. It is cats vs. Dogs, etc. Anyway, fine.', ['Ok.', 'It is cats vs. Dogs, etc. Anyway, fine.']],
  [
    'tr abbreviations',
    'Doç. Dr. Ayşe Yılmaz ve Av. Mehmet Bey geldi. Sn. Kaya da. Bkz. Ek A, vb. Şeyler.',
    ['Doç. Dr. Ayşe Yılmaz ve Av. Mehmet Bey geldi.', 'Sn. Kaya da.', 'Bkz. Ek A, vb. Şeyler.'],
  ],
  ['initials', 'J. R. R. Tolkien wrote it. George W. Bush read it.', ['J. R. R. Tolkien wrote it.', 'George W. Bush read it.']],
  ['dotted initials', 'I live in the U.S. Army base. Yes.', ['I live in the U.S. Army base.', 'Yes.']],
  ['urls', 'Visit https://example.com/a.b?x=1. Then log in.', ['Visit https://example.com/a.b?x=1.', 'Then log in.']],
  ['emails', 'Write to jane.doe@example.com. We reply fast.', ['Write to jane.doe@example.com.', 'We reply fast.']],
  [
    'ellipsis inside a sentence',
    'Well... let me think. Well... I think so. Hmm… Okay then.',
    ['Well... let me think.', 'Well... I think so.', 'Hmm…', 'Okay then.'],
  ],
  ['period before a lowercase word', 'Version 2. is out. Nice.', ['Version 2. is out.', 'Nice.']],
  ['period before a digit', 'In 2020. 2021 was better. Yes.', ['In 2020. 2021 was better.', 'Yes.']],
  ['"No." is not an abbreviation', 'The answer is no. Sorry. Room No. 5 is free.', ['The answer is no.', 'Sorry.', 'Room No. 5 is free.']],
  ['?! runs and closing quotes', 'Really?! He said "no." Then (quietly.) Left.', ['Really?!', 'He said "no."', 'Then (quietly.)', 'Left.']],
  [
    'markdown is stripped',
    '**Hello!** Here are `code` and ## things:\n- one item\n- two items\n\n## Next\n1. First\n2. Second',
    ['Hello!', 'Here are code and ## things:', 'one item', 'two items', 'Next', '1. First', '2. Second'],
  ],
  ['links read as their label', 'See [the docs](https://x.io/a.b). Done.', ['See the docs.', 'Done.']],
  [
    'long later phrases split at commas',
    `Hi. Word ${'word '.repeat(30)}and more, then the rest.`,
    ['Hi.', `Word ${'word '.repeat(30)}and more,`, 'then the rest.'],
  ],
  ['em dash and spaced dashes', 'We can do it now — or later. Fine – good.', ['We can do it now —', 'or later.', 'Fine – good.']],
  ['unspaced dashes stay', 'The e-mail covers 2020–2021 data, so yes. Ok.', ['The e-mail covers 2020–2021 data,', 'so yes.', 'Ok.']],
  ['time with a colon clause', 'Your slots today are: 10:30, 11:00 and 14:45. Pick one.', ['Your slots today are:', '10:30, 11:00 and 14:45.', 'Pick one.']],
  ['empty and symbol-only phrases are dropped', '  ** **  \n\n Hello.  ', ['Hello.']],
  ['no terminal at the end', 'Merhaba, size nasıl yardımcı olabilirim', ['Merhaba, size nasıl yardımcı olabilirim']],
  ['tr question', 'Randevunuzu yarına alayım mı? Saat kaçta uygun olur?', ['Randevunuzu yarına alayım mı?', 'Saat kaçta uygun olur?']],
]

t.test('phrases from one push', async (t) => {
  for (const [name, text, phrases] of TABLE) t.same(chunk(text), phrases, name)
})

t.test('every split point gives the same phrases as one push', async (t) => {
  for (const [name, text] of TABLE) {
    const whole = chunk(text)
    let bad = 0
    for (let i = 0; i <= text.length; i++) {
      const c = new PhraseChunker()
      const got = [...c.push(text.slice(0, i)), ...c.push(text.slice(i)), ...c.flush()]
      if (JSON.stringify(got) !== JSON.stringify(whole)) {
        if (!bad++) t.same(got, whole, `${name}: split at ${i}`)
      }
    }
    if (!bad) t.pass(name)
  }
})

t.test('character-by-character and random deltas give the same phrases', async (t) => {
  let seed = 7
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
  for (const [name, text] of TABLE) {
    const whole = chunk(text)
    const c = new PhraseChunker()
    const one = [...[...text].flatMap((ch) => c.push(ch)), ...c.flush()]
    t.same(one, whole, `${name}: one character at a time`)
    for (let round = 0; round < 20; round++) {
      const r = new PhraseChunker()
      const got: string[] = []
      for (let i = 0; i < text.length; ) {
        const n = 1 + Math.floor(rand() * 8)
        got.push(...r.push(text.slice(i, i + n)))
        i += n
      }
      got.push(...r.flush())
      if (JSON.stringify(got) !== JSON.stringify(whole)) {
        t.same(got, whole, `${name}: random split round ${round}`)
        break
      }
    }
  }
})

t.test('a phrase is released as soon as it is decidable, an ambiguous tail is held', async (t) => {
  const c = new PhraseChunker()
  t.same(c.push('It costs 3'), [])
  t.same(c.push('.'), [], 'a trailing period could still be a decimal point')
  t.same(c.push('5 dollars.'), [])
  t.same(c.push(' Anything'), ['It costs 3.5 dollars.'], 'the next sentence starting settles it')
  t.same(c.push(' else?'), [])
  t.same(c.push(' '), ['Anything else?'], 'whitespace after ? is enough')
  t.same(c.flush(), [])
})

t.test('the first clause is spoken before the sentence ends', async (t) => {
  const c = new PhraseChunker()
  t.same(c.push('Of course I can,'), [])
  t.same(c.push(' let me'), ['Of course I can,'])
  t.same(c.push(' check, one moment'), [], 'later commas wait for the sentence end')
  t.same(c.flush(), ['let me check, one moment'])
})

t.test('flush readies the chunker for the next reply; reset drops the rest', async (t) => {
  const c = new PhraseChunker()
  t.same(c.push('Yes I can, sure. Ok, fine then'), ['Yes I can,', 'sure.'])
  t.same(c.flush(), ['Ok, fine then'])
  t.same(c.push('Next reply here, with a comma '), ['Next reply here,'], 'the next reply gets an early first clause again')
  c.reset()
  t.same(c.flush(), [])
})

t.test('options are validated and honoured', async (t) => {
  t.throws(() => new PhraseChunker({ minFirstWords: -1 }), RangeError)
  t.same(chunk('Sure, go ahead.', { minFirstWords: 1 }), ['Sure,', 'go ahead.'])
  t.same(chunk('Hi. One, two, three.', { maxPhraseChars: 2 }), ['Hi.', 'One,', 'two,', 'three.'])
})
