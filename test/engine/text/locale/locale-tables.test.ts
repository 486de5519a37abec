import t from 'tap'
import {
  checkTurkishNationalId,
  formatPhone,
  localeOf,
  normalizeForSpeech,
  spellCurrency,
  spellDate,
  spellInteger,
  spellOrdinal,
  type Locale,
} from '../../../../engine/text/locale/index.js'
import { EN_CURRENCY, EN_DATES, EN_NORMALIZE, EN_NUMBERS, EN_ORDINALS, EN_PHONES } from './en-table.js'
import { TR_CURRENCY, TR_DATES, TR_NORMALIZE, TR_NUMBERS, TR_ORDINALS, TR_PHONES } from './tr-table.js'

const TABLES = {
  tr: { numbers: TR_NUMBERS, ordinals: TR_ORDINALS, currency: TR_CURRENCY, dates: TR_DATES, normalize: TR_NORMALIZE, phones: TR_PHONES },
  en: { numbers: EN_NUMBERS, ordinals: EN_ORDINALS, currency: EN_CURRENCY, dates: EN_DATES, normalize: EN_NORMALIZE, phones: EN_PHONES },
}

for (const [locale, table] of Object.entries(TABLES) as [Locale, (typeof TABLES)['tr']][]) {
  t.test(`${locale}: the table holds at least 200 cases`, async (t) => {
    const n = Object.values(table).reduce((sum, rows) => sum + rows.length, 0)
    t.ok(n >= 200, `${n} cases`)
  })
  t.test(`${locale}: integers are spelled`, async (t) => {
    for (const [n, words] of table.numbers) t.equal(spellInteger(n, locale), words, String(n))
  })
  t.test(`${locale}: ordinals are spelled`, async (t) => {
    for (const [n, words] of table.ordinals) t.equal(spellOrdinal(n, locale), words, String(n))
  })
  t.test(`${locale}: amounts are rounded to the minor unit and spelled with the currency's names`, async (t) => {
    for (const [amount, code, words, rounded] of table.currency) t.same(spellCurrency(amount, code, locale), { text: words, rounded }, `${amount} ${code}`)
  })
  t.test(`${locale}: dates are spelled with month names in the locale's order`, async (t) => {
    for (const [y, m, d, words, written] of table.dates) {
      const got = spellDate(y, m, d, locale)
      t.equal(got.text, words, `${y}-${m}-${d}`)
      t.equal(got.written, written)
    }
  })
  t.test(`${locale}: normalize rewrites numbers, money, dates, times, percentages, ordinals and phones`, async (t) => {
    for (const [text, spoken] of table.normalize) t.equal(normalizeForSpeech(text, locale), spoken, text)
  })
  t.test(`${locale}: phone numbers are formatted with their type`, async (t) => {
    for (const [input, e164, national, type] of table.phones) {
      const got = formatPhone(input, locale)
      t.equal(got?.e164, e164, input)
      t.equal(got?.national, national, input)
      t.equal(got?.type, type, input)
      t.equal(got?.valid, true, input)
    }
  })
}

t.test('integers beyond ±(10^18 − 1) and unsafe numbers are refused, not misspelled', async (t) => {
  t.throws(() => spellInteger(10n ** 18n, 'en'), RangeError)
  t.throws(() => spellInteger(2 ** 53, 'tr'), RangeError)
  t.throws(() => spellInteger(1.5, 'tr'), RangeError)
  t.throws(() => spellOrdinal(-1, 'en'), RangeError)
})

t.test('currency refuses unknown codes and amounts past 10^15', async (t) => {
  t.throws(() => spellCurrency(1, 'XYZ', 'en'), RangeError)
  t.throws(() => spellCurrency(1e16, 'USD', 'en'), RangeError)
  t.throws(() => spellCurrency(Number.NaN, 'USD', 'en'), RangeError)
})

t.test('dates that do not exist are refused', async (t) => {
  t.throws(() => spellDate(2025, 2, 29, 'en'), RangeError, 'not a leap year')
  t.throws(() => spellDate(1900, 2, 29, 'tr'), RangeError, 'century, not a leap year')
  t.doesNotThrow(() => spellDate(2000, 2, 29, 'tr'), '400-year leap year')
  t.throws(() => spellDate(2025, 4, 31, 'en'), RangeError)
  t.throws(() => spellDate(2025, 13, 1, 'en'), RangeError)
  t.throws(() => spellDate(0, 1, 1, 'en'), RangeError)
  t.equal(spellDate(2026, 11, 27, 'tr').weekday, 'Cuma')
  t.equal(spellDate(1923, 10, 29, 'en').weekday, 'Monday')
  t.equal(spellDate(50, 3, 1, 'en').iso, '0050-03-01')
})

t.test('a text with no phone number in it is null; a short one is not valid', async (t) => {
  t.equal(formatPhone('hello', 'en'), null)
  t.equal(formatPhone('1'.repeat(65), 'en'), null)
  t.equal(formatPhone('0532 123', 'tr')?.valid ?? false, false)
  t.equal(formatPhone('0532 123 45 67', 'tr')?.spoken, 'sıfır beş yüz otuz iki, yüz yirmi üç, kırk beş, altmış yedi')
  t.equal(formatPhone('(212) 555-0123', 'en')?.international, '+1 212 555 0123')
})

t.test('Turkish identity numbers: 11 digits, first not 0, both check digits', async (t) => {
  // Check digits worked by hand: d10 = (odd·7 − even) mod 10, d11 = sum of the first ten mod 10.
  for (const id of ['10000000146', '11111111110', '12345678950', '19090909018']) t.same(checkTurkishNationalId(id), { wellFormed: true, valid: true }, id)
  for (const id of ['10000000147', '10000000156', '12345678951', '19090909098', '11111111111'])
    t.same(checkTurkishNationalId(id), { wellFormed: true, valid: false }, id)
  for (const id of ['01234567890', '1234567890', '123456789012', '1234567890a', '', ' 10000000146', '١٠٠٠٠٠٠٠١٤٦'])
    t.same(checkTurkishNationalId(id), { wellFormed: false, valid: false }, JSON.stringify(id))
})

t.test('language tags map to the helpers locale by their primary subtag', async (t) => {
  t.equal(localeOf('tr'), 'tr')
  t.equal(localeOf('tr-TR'), 'tr')
  t.equal(localeOf('TR'), 'tr')
  t.equal(localeOf('en-US'), 'en')
  t.equal(localeOf('en_GB'), 'en')
  t.equal(localeOf('de-DE'), null)
  t.equal(localeOf(''), null)
  t.equal(localeOf('tr--x'), null)
})

t.test('Turkish suffixes are folded with Turkish casing (İ → i, I → ı)', async (t) => {
  t.equal(normalizeForSpeech("5'İN", 'tr'), 'beşin')
  t.equal(normalizeForSpeech("6'NIN", 'tr'), 'altının')
})

t.test('text without digits comes back as the same string', async (t) => {
  const s = 'Nasıl yardımcı olabilirim?'
  t.equal(normalizeForSpeech(s, 'tr'), s)
})
