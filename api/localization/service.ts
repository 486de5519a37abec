import {
  checkTurkishNationalId,
  formatPhone,
  isValidDate,
  localeOf,
  normalizeForSpeech,
  spellCurrency,
  spellDate,
  spellInteger,
  spellOrdinal,
  LOCALES,
  type Locale,
} from '../../engine/text/locale/index.js'
import { ValidationError } from '../http/validation.js'

/**
 * The localization helpers on the wire: the pure core (engine/text/locale) answered as the spec's
 * string-to-string objects. No state, no database: every answer follows from the query alone.
 */

/** The schema has already refused what localeOf cannot read. */
const localeFrom = (tag: string): Locale => localeOf(tag) ?? 'en'

export const listLocales = (): string[] => [...LOCALES]

export function spellNumber(q: { value: number; locale: string }) {
  const locale = localeFrom(q.locale)
  return {
    value: String(q.value),
    locale,
    text: spellInteger(q.value, locale),
    ...(q.value >= 0 ? { ordinal: spellOrdinal(q.value, locale) } : {}),
  }
}

export function spellAmount(q: { amount: number; code: string; locale: string }) {
  const locale = localeFrom(q.locale)
  const { text, rounded } = spellCurrency(q.amount, q.code, locale)
  return { amount: String(q.amount), rounded, code: q.code, locale, text }
}

export function spellCalendarDate(q: { year: number; month: number; day: number; locale: string }) {
  const locale = localeFrom(q.locale)
  if (!isValidDate(q.year, q.month, q.day))
    throw new ValidationError([
      { type: 'value_error', loc: ['query', 'day'], msg: `Value error, day is out of range for month ${q.month} of ${q.year}`, input: String(q.day) },
    ])
  const d = spellDate(q.year, q.month, q.day, locale)
  return { date: d.iso, locale, text: d.text, written: d.written, weekday: d.weekday }
}

export function normalizeText(q: { text: string; locale: string }) {
  const locale = localeFrom(q.locale)
  return { locale, normalized: normalizeForSpeech(q.text, locale) }
}

export function formatPhoneNumber(q: { phone: string; locale: string }) {
  const locale = localeFrom(q.locale)
  const p = formatPhone(q.phone, locale)
  // Text with no number in it at all is bad input; a number that parses but cannot exist is answered valid: "false".
  if (!p) throw new ValidationError([{ type: 'value_error', loc: ['query', 'phone'], msg: 'Value error, not a phone number', input: q.phone }])
  return { phone: q.phone, locale, ...p, valid: p.valid ? ('true' as const) : ('false' as const) }
}

export function validateNationalId(q: { value: string }) {
  const r = checkTurkishNationalId(q.value)
  return { valid: r.valid, well_formed: r.wellFormed }
}
