import type { Locale } from './locales.js'
import { spellInteger } from './numbers.js'

/** A currency's spoken names. Turkish nouns stay singular after a number ("beş lira"). */
interface Currency {
  /** Digits of the minor unit (ISO 4217): 2 for kuruş and cents, 0 for yen. */
  minorDigits: number
  en: { one: string; many: string; minorOne?: string; minorMany?: string }
  tr: { major: string; minor?: string }
}

/** TDK writes "avro" for the euro and "sterlin" for the pound. */
export const CURRENCIES: Readonly<Record<string, Currency>> = {
  TRY: { minorDigits: 2, en: { one: 'Turkish lira', many: 'Turkish lira', minorOne: 'kuruş', minorMany: 'kuruş' }, tr: { major: 'lira', minor: 'kuruş' } },
  USD: { minorDigits: 2, en: { one: 'dollar', many: 'dollars', minorOne: 'cent', minorMany: 'cents' }, tr: { major: 'dolar', minor: 'sent' } },
  EUR: { minorDigits: 2, en: { one: 'euro', many: 'euros', minorOne: 'cent', minorMany: 'cents' }, tr: { major: 'avro', minor: 'sent' } },
  GBP: { minorDigits: 2, en: { one: 'pound', many: 'pounds', minorOne: 'penny', minorMany: 'pence' }, tr: { major: 'sterlin', minor: 'peni' } },
  JPY: { minorDigits: 0, en: { one: 'yen', many: 'yen' }, tr: { major: 'yen' } },
}

export const CURRENCY_CODES = Object.keys(CURRENCIES)

/** Amounts up to this many major units (in magnitude) are spelled. */
export const MAX_CURRENCY_AMOUNT = 1e15

export interface MinorUnits {
  negative: boolean
  major: bigint
  minor: bigint
}

/**
 * Rounds a decimal string half away from zero to `digits` places, in decimal (not binary): 1.005
 * rounds to 1.01 as a person expects, where Math.round(1.005 * 100) gives 100.
 */
export function roundDecimal(decimal: string, digits: number): MinorUnits {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(decimal)
  if (!m) throw new RangeError(`not a plain decimal: ${decimal}`)
  const frac = (m[3] ?? '').padEnd(digits + 1, '0')
  let units = BigInt(m[2]! + frac.slice(0, digits))
  if (frac.charCodeAt(digits) >= 53 /* '5' */) units += 1n
  const scale = 10n ** BigInt(digits)
  return { negative: m[1] === '-' && units !== 0n, major: units / scale, minor: units % scale }
}

/** A finite number as a plain decimal string (no exponent) for |n| ≤ MAX_CURRENCY_AMOUNT. */
export function plainDecimal(n: number): string {
  if (!Number.isFinite(n) || Math.abs(n) > MAX_CURRENCY_AMOUNT) throw new RangeError(`amount out of range: ${n}`)
  const s = String(n)
  if (!s.includes('e')) return s
  // Tiny amounts (1e-7) print with an exponent; 20 places is more than any minor unit needs.
  return n.toFixed(20).replace(/\.?0+$/, '')
}

/** The rounded amount as the API echoes it: "1250.50", "-3.00", "500". */
export function formatMinor(units: MinorUnits, digits: number): string {
  const sign = units.negative ? '-' : ''
  return digits === 0 ? `${sign}${units.major}` : `${sign}${units.major}.${String(units.minor).padStart(digits, '0')}`
}

/** Words for an amount already rounded to the currency's minor unit. */
export function spellMinorUnits(units: MinorUnits, code: string, locale: Locale): string {
  const c = CURRENCIES[code]
  if (!c) throw new RangeError(`unknown currency: ${code}`)
  const sign = units.negative ? (locale === 'tr' ? 'eksi ' : 'minus ') : ''
  const parts: string[] = []
  if (locale === 'tr') {
    if (units.major > 0n || units.minor === 0n) parts.push(`${spellInteger(units.major, 'tr')} ${c.tr.major}`)
    if (units.minor > 0n) parts.push(`${spellInteger(units.minor, 'tr')} ${c.tr.minor}`)
    return sign + parts.join(' ')
  }
  if (units.major > 0n || units.minor === 0n) parts.push(`${spellInteger(units.major, 'en')} ${units.major === 1n ? c.en.one : c.en.many}`)
  if (units.minor > 0n) parts.push(`${spellInteger(units.minor, 'en')} ${units.minor === 1n ? c.en.minorOne : c.en.minorMany}`)
  return sign + parts.join(' and ')
}

/** 1250.5 TRY → "bin iki yüz elli lira elli kuruş" / "one thousand two hundred fifty Turkish lira and fifty kuruş". */
export function spellCurrency(amount: number, code: string, locale: Locale): { text: string; rounded: string } {
  const c = CURRENCIES[code]
  if (!c) throw new RangeError(`unknown currency: ${code}`)
  const units = roundDecimal(plainDecimal(amount), c.minorDigits)
  return { text: spellMinorUnits(units, code, locale), rounded: formatMinor(units, c.minorDigits) }
}
