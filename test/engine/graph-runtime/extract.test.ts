import t from 'tap'
import { extractValue } from '../../../engine/graph-runtime/extract.js'

const today = new Date('2026-11-22T10:00:00Z')

t.test('numbers: digits in English and Turkish notation, and spelled out', async (t) => {
  const cases: [string, number | null][] = [
    ['42', 42],
    ['about 1,500.50 dollars', 1500.5],
    ['1.500 lira', 1500],
    ['1.500,75', 1500.75],
    ['-3 degrees', -3],
    ['two thousand five hundred', 2500],
    ['twenty one', 21],
    ['iki bin beş yüz', 2500],
    ['yüz elli', 150],
    ['on beş', 15],
    ['on', 10],
    ['pay on delivery, two hundred', 200],
    ['no idea', null],
  ]
  for (const [said, want] of cases) t.equal(extractValue('number', said), want, said)
})

t.test('yes/no in both languages; a mixed or empty answer is no value', async (t) => {
  const cases: [string, boolean | null][] = [
    ['Yes please', true],
    ['yeah sure', true],
    ['EVET', true],
    ['tabii ki', true],
    ['no thanks', false],
    ['hayır, istemiyorum', false],
    ['maybe', null],
    ['yes and no', null],
    ['   ', null],
  ]
  for (const [said, want] of cases) t.equal(extractValue('yes_no', said), want, said)
})

t.test('email: written and spoken forms, lower-cased', async (t) => {
  t.equal(extractValue('email', 'it is Jane.Doe@Example.com thanks'), 'jane.doe@example.com')
  t.equal(extractValue('email', 'jane dot doe at example dot com'), 'jane.doe@example.com')
  t.equal(extractValue('email', 'ali nokta veli et ornek nokta com'), 'ali.veli@ornek.com')
  t.equal(extractValue('email', 'no address'), null)
})

t.test('phone: 7 to 15 digits, leading + kept', async (t) => {
  t.equal(extractValue('phone', '+90 (555) 111-22-33'), '+905551112233')
  t.equal(extractValue('phone', '0555 111 22 33'), '05551112233')
  t.equal(extractValue('phone', '123'), null)
  t.equal(extractValue('phone', '1234567890123456'), null)
})

t.test('dates: ISO, day-first, month names (en/tr), relative words; impossible dates refused', async (t) => {
  const cases: [string, string | null][] = [
    ['2026-12-01', '2026-12-01'],
    ['25.12.2026', '2026-12-25'],
    ['25/12/2026', '2026-12-25'],
    ['today', '2026-11-22'],
    ['tomorrow please', '2026-11-23'],
    ['yarın', '2026-11-23'],
    ['yarından sonra', '2026-11-24'],
    ['December 5', '2026-12-05'],
    ['March 3', '2027-03-03'],
    ['3 Mart 2027', '2027-03-03'],
    ['31.02.2026', null],
    ['sometime soon', null],
  ]
  for (const [said, want] of cases) t.equal(extractValue('date', said, { today }), want, said)
})

t.test('choice: the longest choice mentioned, or a number or ordinal', async (t) => {
  const plans = ['basic', 'premium', 'premium plus']
  t.equal(extractValue('choice', 'I want the Premium Plus plan', { choices: plans }), 'premium plus')
  t.equal(extractValue('choice', 'basic is fine', { choices: plans }), 'basic')
  t.equal(extractValue('choice', '2', { choices: plans }), 'premium')
  t.equal(extractValue('choice', 'the third one', { choices: plans }), 'premium plus')
  t.equal(extractValue('choice', 'ikinci', { choices: plans }), 'premium')
  t.equal(extractValue('choice', 'Çok iyi', { choices: ['çok iyi', 'iyi', 'kötü'] }), 'çok iyi')
  t.equal(extractValue('choice', 'none of them', { choices: plans }), null)
  t.equal(extractValue('choice', '9', { choices: plans }), null)
})

t.test('text: the whole utterance, trimmed and bounded', async (t) => {
  t.equal(extractValue('text', '  The service was quick.  '), 'The service was quick.')
  t.equal((extractValue('text', 'x'.repeat(5000)) as string).length, 2000)
  t.equal(extractValue('text', '   '), null)
})
