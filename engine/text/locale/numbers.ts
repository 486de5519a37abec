import { toCardinal as enCardinal, toOrdinal as enOrdinal } from 'n2words/en-US'
import { toCardinal as trCardinal } from 'n2words/tr-TR'
import type { Locale } from './locales.js'

/**
 * Number words. Cardinals come from n2words (BigInt-safe, Turkish "bin" not "bir bin", "iki yüz"
 * spaced as TDK writes it); our layer adds bounds, Turkish ordinals (n2words glues them:
 * "yirmibirinci"; TDK writes "yirmi birinci"), decimals read the way each language reads them,
 * and digit-by-digit reading.
 */

/** |n| ≤ 10^18 − 1: the largest whose words both languages have (kentilyon / quintillion). */
export const MAX_SPELLED = 10n ** 18n - 1n

const DIGITS: Record<Locale, readonly string[]> = {
  en: ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'],
  tr: ['sıfır', 'bir', 'iki', 'üç', 'dört', 'beş', 'altı', 'yedi', 'sekiz', 'dokuz'],
}

const MINUS: Record<Locale, string> = { en: 'minus', tr: 'eksi' }
const POINT: Record<Locale, string> = { en: 'point', tr: 'virgül' }

function checked(n: bigint | number): bigint {
  if (typeof n === 'number' && !Number.isSafeInteger(n)) throw new RangeError(`not a safe integer: ${n}`)
  const v = BigInt(n)
  if (v > MAX_SPELLED || v < -MAX_SPELLED) throw new RangeError(`beyond ±${MAX_SPELLED}`)
  return v
}

/** "1234" → "one thousand two hundred thirty-four" / "bin iki yüz otuz dört". */
export function spellInteger(n: bigint | number, locale: Locale): string {
  const v = checked(n)
  return locale === 'tr' ? trCardinal(v) : enCardinal(v)
}

// The Turkish ordinal suffix -(I)ncI follows the last word's last vowel (vowel harmony); only
// "dört" changes its stem (t → d before a vowel). Every number word ends in one of these.
const TR_ORDINAL_LAST: Record<string, string> = {
  sıfır: 'sıfırıncı',
  bir: 'birinci',
  iki: 'ikinci',
  üç: 'üçüncü',
  dört: 'dördüncü',
  beş: 'beşinci',
  altı: 'altıncı',
  yedi: 'yedinci',
  sekiz: 'sekizinci',
  dokuz: 'dokuzuncu',
  on: 'onuncu',
  yirmi: 'yirminci',
  otuz: 'otuzuncu',
  kırk: 'kırkıncı',
  elli: 'ellinci',
  altmış: 'altmışıncı',
  yetmiş: 'yetmişinci',
  seksen: 'sekseninci',
  doksan: 'doksanıncı',
  yüz: 'yüzüncü',
  bin: 'bininci',
  milyon: 'milyonuncu',
  milyar: 'milyarıncı',
  trilyon: 'trilyonuncu',
  katrilyon: 'katrilyonuncu',
  kentilyon: 'kentilyonuncu',
}

/** 21 → "twenty-first" / "yirmi birinci". Ordinals are for n ≥ 0. */
export function spellOrdinal(n: bigint | number, locale: Locale): string {
  const v = checked(n)
  if (v < 0n) throw new RangeError('an ordinal needs a number ≥ 0')
  if (locale === 'en') return v === 0n ? 'zeroth' : enOrdinal(v)
  const words = trCardinal(v).split(' ')
  const last = words.pop()!
  return [...words, TR_ORDINAL_LAST[last] ?? `${last}inci`].join(' ')
}

/** Each digit by itself: "007" → "zero zero seven". */
export function spellDigits(digits: string, locale: Locale): string {
  const out: string[] = []
  for (const d of digits) if (d >= '0' && d <= '9') out.push(DIGITS[locale][d.charCodeAt(0) - 48]!)
  return out.join(' ')
}

/**
 * A decimal given as its integer and fraction digits ("3", "05"). English reads the fraction digit
 * by digit ("three point zero five"); Turkish reads it as a number, its leading zeros one by one
 * ("üç virgül sıfır beş", "üç virgül on dört").
 */
export function spellDecimal(negative: boolean, intDigits: string, fracDigits: string, locale: Locale): string {
  const whole = spellInteger(BigInt(intDigits), locale)
  const sign = negative ? `${MINUS[locale]} ` : ''
  if (fracDigits === '') return sign + whole
  let frac: string
  if (locale === 'en') frac = spellDigits(fracDigits, locale)
  else {
    const zeros = /^0*/.exec(fracDigits)![0].length
    const rest = fracDigits.slice(zeros)
    frac = [spellDigits(fracDigits.slice(0, zeros), locale), rest && spellInteger(BigInt(rest), locale)].filter(Boolean).join(' ')
  }
  return `${sign}${whole} ${POINT[locale]} ${frac}`
}

export { DIGITS }
