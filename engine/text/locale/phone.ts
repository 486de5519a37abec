import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max'
import type { Locale } from './locales.js'
import { spellDigits, spellInteger } from './numbers.js'

/**
 * Phone numbers through libphonenumber-js (Google's libphonenumber metadata, kept in step with it;
 * the "max" metadata because only it tells a number's type). Our layer picks the default region
 * from the locale and reads the number aloud in its digit groups.
 */

/** Where a number written without a country code is assumed to be. */
export const DEFAULT_REGION: Record<Locale, CountryCode> = { en: 'US', tr: 'TR' }

/** Longer input is not a phone number (E.164 has at most 15 digits; this leaves room for spacing). */
export const MAX_PHONE_CHARS = 64

export interface FormattedPhone {
  e164: string
  national: string
  international: string
  /** ISO 3166 region, or '' when the number belongs to no single region (+800 …). */
  country: string
  /** libphonenumber's type in lower case (mobile, fixed_line, toll_free …), '' when unknown. */
  type: string
  valid: boolean
  /** The national form read aloud, group by group. */
  spoken: string
}

/** Null when the text holds no phone number at all (too short, letters, no country). */
export function formatPhone(phone: string, locale: Locale): FormattedPhone | null {
  if (phone.length > MAX_PHONE_CHARS) return null
  const parsed = parsePhoneNumberFromString(phone, DEFAULT_REGION[locale])
  if (!parsed) return null
  const national = parsed.formatNational()
  return {
    e164: parsed.number,
    national,
    international: parsed.formatInternational(),
    country: parsed.country ?? '',
    type: parsed.getType()?.toLowerCase() ?? '',
    valid: parsed.isValid(),
    spoken: speakPhoneGroups(national.split(/[^\d+]+/).filter(Boolean), locale),
  }
}

const PLUS: Record<Locale, string> = { en: 'plus', tr: 'artı' }

/**
 * Digit groups read as people read them: English digit by digit ("five five five"); Turkish each
 * group as a number ("beş yüz otuz iki", "kırk beş"), its leading zeros one by one ("sıfır beş").
 * Groups are separated by commas, which TTS voices as short pauses.
 */
export function speakPhoneGroups(groups: readonly string[], locale: Locale): string {
  return groups
    .map((g) => {
      const plus = g.startsWith('+') ? `${PLUS[locale]} ` : ''
      const digits = g.replace(/\D/g, '')
      if (locale === 'en') return plus + spellDigits(digits, 'en')
      const zeros = /^0*/.exec(digits)![0].length
      const rest = digits.slice(zeros)
      // Past three digits a group is read in pairs ("7946" → "yetmiş dokuz kırk altı"), a leading triple if odd.
      const parts = rest.length <= 3 ? [rest] : (rest.match(rest.length % 2 ? /^\d{3}|\d{2}/g : /\d{2}/g) ?? [])
      const words = parts.filter(Boolean).map((p) => (p.startsWith('0') ? spellDigits(p, 'tr') : spellInteger(BigInt(p), 'tr')))
      return plus + [spellDigits(digits.slice(0, zeros), 'tr'), ...words].filter(Boolean).join(' ')
    })
    .join(', ')
}

/** A run of digits written without spaces ("05321234567", "+905321234567") split as its region groups it, or null. */
export function phoneGroups(digits: string, locale: Locale): string[] | null {
  const parsed = parsePhoneNumberFromString(digits, DEFAULT_REGION[locale])
  if (!parsed?.isValid()) return null
  const national = parsed.formatNational()
  const written = digits.startsWith('+') ? parsed.formatInternational() : national
  return written.split(/[^\d+]+/).filter(Boolean)
}
