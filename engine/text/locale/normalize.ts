import { spellMinorUnits, roundDecimal, CURRENCIES } from './currency.js'
import { isValidDate, spellDate, spellYear } from './dates.js'
import type { Locale } from './locales.js'
import { spellDecimal, spellDigits, spellInteger, spellOrdinal } from './numbers.js'
import { phoneGroups, speakPhoneGroups } from './phone.js'

/**
 * Text rewritten for a TTS voice: numbers, money, percentages, dates, times, ordinals and phone
 * numbers written inline become the words a person would say, in the locale's conventions
 * (Turkish: "1.250,50", "27.11.2026", "%25", "3. kat"; English: "1,250.50", "11/27/2026", "25%",
 * "3rd"). Everything else is left as it is. One regular expression per locale scans the text once,
 * alternatives in priority order (a phone number before a date, a date before a plain number), so
 * a phrase costs a few microseconds (bench/text-normalize.ts).
 */

const NUM: Record<Locale, string> = {
  // Dots group thousands only in groups of exactly three ("1.250"); otherwise a dot is read as a
  // decimal point too, because models writing Turkish often write "3.5".
  tr: String.raw`(?:\d{1,3}(?:\.\d{3})+(?:,\d+)?(?![.,]?\d)|\d+(?:[,.]\d+)?)`,
  en: String.raw`(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![.,]?\d)|\d+(?:\.\d+)?)`,
}

// A token starts and ends at a word edge: "5G", "mp3", "A4" are left alone.
const START = String.raw`(?<![\p{L}\p{N}_])`
const END = String.raw`(?![\p{L}\p{N}_])`
// Turkish writes case endings after an apostrophe: "5'te", "%25'i", "14:30'da".
const SUFFIX = String.raw`(?:['’](?<SFX>\p{L}{1,12}))?`
// Turkish also writes a time with a dot ("saat 14.30"); only after "saat" is that not a decimal.
const TIME_DOT: Record<Locale, string> = { tr: String.raw`(?<=(?<!\p{L})(?:[Ss]aat|SAAT)\s{1,3}\d{1,2})\.`, en: '(?!)' }
const YEAR_WORDS = '(?:[Ii]n|[Ss]ince|[Uu]ntil|[Bb]y|[Dd]uring|[Bb]efore|[Aa]fter|[Yy]ear|[Cc]lass of)'
const SYMBOLS = '₺$€£'
const CODES = 'TRY|USD|EUR|GBP|TL|tl|Tl'

function pattern(locale: Locale): RegExp {
  const n = NUM[locale]
  const alternatives = [
    // Phone numbers: international with separators; Turkish and US national forms; a bare run.
    String.raw`(?<phone>\+\d{1,3}(?:[ -]\(?\d{1,4}\)?){2,5}|\(?0?\d{3}\)?[ -]\d{3}[ -]\d{2}[ -]\d{2}|\(\d{3}\) ?\d{3}-\d{4}|\d{3}-\d{3}-\d{4})${END}`,
    String.raw`(?<phoneRun>\+\d{10,14}|0\d{10})${END}`,
    String.raw`(?<date>(?<da>\d{1,2})(?<sep>[./])(?<db>\d{1,2})\k<sep>(?<dy>\d{4})|(?<iy>\d{4})-(?<im>\d{2})-(?<id>\d{2}))${END}`,
    // "p.m." keeps its last dot where it also ends the sentence, so the sentence keeps its period.
    String.raw`(?<time>(?<hh>[01]?\d|2[0-3])(?::|${TIME_DOT[locale]})(?<mi>[0-5]\d)(?::(?<ss>[0-5]\d))?)(?![\p{N}:])(?:\s?(?<ampm>[AaPp]\.?[Mm](?:\.(?=\s+\p{Ll}|[,;:!?]))?)(?!\p{L}))?${SUFFIX.replace('SFX', 'tsfx')}${END}`,
    String.raw`(?<cur1>[${SYMBOLS}]\s?|(?:TRY|USD|EUR|GBP)\s?)(?<money1>${n})${END}`,
    String.raw`(?<money2>${n})\s?(?<cur2>[${SYMBOLS}]|(?:${CODES})(?![\p{L}\p{N}'’]))`,
    String.raw`%\s?(?<pct1>${n})${SUFFIX.replace('SFX', 'psfx')}${END}|(?<pct2>${n})\s?%`,
    locale === 'tr'
      ? String.raw`(?<ord>\d{1,15})(?:\.(?=\s+\p{Ll})|['’]?(?:inci|ıncı|uncu|üncü|nci|ncı|ncu|ncü)${END})`
      : String.raw`(?<ord>\d{1,15})(?:st|nd|rd|th)${END}`,
    // English says a year in pairs ("in 1999" → "in nineteen ninety-nine"); a bare four-digit number
    // is taken as a year only after a word that introduces one, so "1999 votes" stays a cardinal.
    locale === 'en' ? String.raw`(?<=(?<!\p{L})${YEAR_WORDS}\s)(?<year>1[1-9]\d\d|20\d\d)(?![.,]?\d)${END}` : '(?!)',
    String.raw`(?<neg>(?<![\p{L}\p{N}-])-)?(?<num>${n})${SUFFIX.replace('SFX', 'nsfx')}${END}`,
  ]
  return new RegExp(`${START}(?:${alternatives.join('|')})`, 'gu')
}

const PATTERNS: Record<Locale, RegExp> = { en: pattern('en'), tr: pattern('tr') }

const SYMBOL_CODE: Record<string, string> = { '₺': 'TRY', $: 'USD', '€': 'EUR', '£': 'GBP', TL: 'TRY', tl: 'TRY', Tl: 'TRY' }
const PERCENT: Record<Locale, (words: string) => string> = { en: (w) => `${w} percent`, tr: (w) => `yüzde ${w}` }

/** A number as written in the locale, split into sign-less integer and fraction digits. */
function parts(written: string, locale: Locale): { int: string; frac: string } {
  const [group, decimal] = locale === 'tr' ? ['.', ','] : [',', '.']
  let s = written
  if (s.includes(decimal)) {
    const at = s.indexOf(decimal)
    return { int: s.slice(0, at).split(group).join(''), frac: s.slice(at + 1) }
  }
  // Turkish "3.5" (no comma, not groups of three) is a decimal point.
  if (locale === 'tr' && s.includes('.') && !/^\d{1,3}(?:\.\d{3})+$/.test(s)) {
    const at = s.indexOf('.')
    return { int: s.slice(0, at), frac: s.slice(at + 1) }
  }
  s = s.split(group).join('')
  return { int: s, frac: '' }
}

/** Digits past what reads as an amount (card numbers, ids) and zero-led runs ("007") are read one by one. */
function numberWords(written: string, negative: boolean, locale: Locale): string {
  const { int, frac } = parts(written, locale)
  if (frac === '' && (int.length > 15 || (int.length > 1 && int.startsWith('0')))) return spellDigits(int, locale)
  if (int.length > 15) return spellDigits(int + frac, locale)
  return spellDecimal(negative, int, frac, locale)
}

function withSuffix(words: string, suffix: string | undefined): string {
  // The ending was written to fit the spoken number ("5'te" → "beşte"); folded with Turkish rules, "İ" → "i".
  return suffix === undefined ? words : words + suffix.toLocaleLowerCase('tr')
}

function timeWords(g: Record<string, string | undefined>, locale: Locale): string {
  const h = Number(g.hh)
  const m = Number(g.mi)
  const hour = spellInteger(h, locale)
  let words: string
  if (locale === 'tr') words = m === 0 && g.ss === undefined ? hour : `${hour} ${m < 10 ? `sıfır ${spellInteger(m, 'tr')}` : spellInteger(m, 'tr')}`
  else if (m === 0 && g.ss === undefined) words = g.ampm || (h >= 1 && h <= 12) ? (g.ampm ? hour : `${hour} o'clock`) : `${hour} hundred`
  else words = `${hour} ${m < 10 ? `oh ${spellInteger(m, 'en')}` : spellInteger(m, 'en')}`
  if (g.ss !== undefined) words += ` ${spellInteger(Number(g.ss), locale)}`
  if (g.ampm) words += ` ${g.ampm.replace(/\./g, '').toUpperCase()}`
  return withSuffix(words, g.tsfx)
}

function dateWords(g: Record<string, string | undefined>, match: string, locale: Locale): string {
  let y: number
  let mo: number
  let d: number
  if (g.iy !== undefined) [y, mo, d] = [Number(g.iy), Number(g.im), Number(g.id)]
  else {
    // Day first, except English with slashes (11/27/2026).
    const monthFirst = locale === 'en' && g.sep === '/'
    ;[y, mo, d] = [Number(g.dy), Number(monthFirst ? g.da : g.db), Number(monthFirst ? g.db : g.da)]
  }
  if (!isValidDate(y, mo, d)) return match.replace(/\d+/g, (digits) => numberWords(digits, false, locale))
  return spellDate(y, mo, d, locale).text
}

function moneyWords(written: string, currency: string, locale: Locale): string {
  const code = SYMBOL_CODE[currency.trim()] ?? currency.trim()
  const { int, frac } = parts(written, locale)
  if (int.length > 15) return `${numberWords(written, false, locale)} ${currency}`
  return spellMinorUnits(roundDecimal(frac ? `${int}.${frac}` : int, CURRENCIES[code]!.minorDigits), code, locale)
}

function phoneWords(written: string, locale: Locale): string {
  const groups = written.split(/[^\d+]+/).filter(Boolean)
  const digits = groups.join('').replace('+', '').length
  return digits >= 7 && digits <= 15 ? speakPhoneGroups(groups, locale) : groups.map((x) => spellDigits(x, locale)).join(', ')
}

/** `text` with numbers, money, dates, times, percentages, ordinals and phone numbers spelled out. */
export function normalizeForSpeech(text: string, locale: Locale): string {
  // Most phrases hold no digit at all: skip the scan.
  if (!/\d/.test(text)) return text
  return text.replace(PATTERNS[locale], (match: string, ...rest: unknown[]) => {
    const g = rest.at(-1) as Record<string, string | undefined>
    if (g.phone !== undefined) return phoneWords(g.phone, locale)
    if (g.phoneRun !== undefined) {
      const groups = phoneGroups(g.phoneRun, locale)
      return groups ? speakPhoneGroups(groups, locale) : spellDigits(g.phoneRun, locale)
    }
    if (g.date !== undefined) return dateWords(g, match, locale)
    if (g.time !== undefined) return timeWords(g, locale)
    if (g.money1 !== undefined) return moneyWords(g.money1, g.cur1!, locale)
    if (g.money2 !== undefined) return moneyWords(g.money2, g.cur2!, locale)
    if (g.pct1 !== undefined) return withSuffix(PERCENT[locale](numberWords(g.pct1, false, locale)), g.psfx)
    if (g.pct2 !== undefined) return PERCENT[locale](numberWords(g.pct2, false, locale))
    if (g.year !== undefined) return spellYear(Number(g.year), locale)
    if (g.ord !== undefined) return g.ord.length > 15 ? match : spellOrdinal(BigInt(g.ord), locale)
    return withSuffix(numberWords(g.num!, g.neg !== undefined, locale), g.nsfx)
  })
}
