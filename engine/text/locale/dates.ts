import type { Locale } from './locales.js'
import { spellInteger, spellOrdinal } from './numbers.js'

export const MONTHS: Record<Locale, readonly string[]> = {
  en: ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'],
  tr: ['Ocak', 'Şubat', 'Mart', 'Nisan', 'Mayıs', 'Haziran', 'Temmuz', 'Ağustos', 'Eylül', 'Ekim', 'Kasım', 'Aralık'],
}

const WEEKDAYS: Record<Locale, readonly string[]> = {
  en: ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'],
  tr: ['Pazar', 'Pazartesi', 'Salı', 'Çarşamba', 'Perşembe', 'Cuma', 'Cumartesi'],
}

export const MIN_YEAR = 1
export const MAX_YEAR = 9999

/** Whether y-m-d is a day of the proleptic Gregorian calendar (Feb 29 only in leap years). */
export function isValidDate(year: number, month: number, day: number): boolean {
  if (![year, month, day].every(Number.isInteger) || year < MIN_YEAR || year > MAX_YEAR || month < 1 || month > 12 || day < 1) return false
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!
  return day <= days
}

/**
 * An English year as people say it: 1999 "nineteen ninety-nine", 2026 "twenty twenty-six", 1900
 * "nineteen hundred", 1905 "nineteen oh five"; 2000–2009 and years below 1000 as cardinals
 * ("two thousand five"). Turkish reads every year as a cardinal.
 */
export function spellYear(year: number, locale: Locale): string {
  if (locale === 'tr' || year < 1000 || (year >= 2000 && year <= 2009) || year % 1000 === 0) return spellInteger(year, locale)
  const hi = Math.floor(year / 100)
  const lo = year % 100
  if (lo === 0) return `${spellInteger(hi, 'en')} hundred`
  return `${spellInteger(hi, 'en')} ${lo < 10 ? `oh ${spellInteger(lo, 'en')}` : spellInteger(lo, 'en')}`
}

export interface SpelledDate {
  /** Words to speak: "November twenty-seventh, twenty twenty-six" / "yirmi yedi Kasım iki bin yirmi altı". */
  text: string
  /** The date written in the locale's order: "November 27, 2026" / "27 Kasım 2026". */
  written: string
  weekday: string
  iso: string
}

/** Month names and the locale's order: English month–day–year, Turkish day–month–year. */
export function spellDate(year: number, month: number, day: number, locale: Locale): SpelledDate {
  if (!isValidDate(year, month, day)) throw new RangeError(`not a date: ${year}-${month}-${day}`)
  const name = MONTHS[locale][month - 1]!
  const weekday = WEEKDAYS[locale][dayOfWeek(year, month, day)]!
  const iso = `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`
  if (locale === 'tr') {
    return { text: `${spellInteger(day, 'tr')} ${name} ${spellYear(year, 'tr')}`, written: `${day} ${name} ${year}`, weekday, iso }
  }
  return { text: `${name} ${spellOrdinal(day, 'en')}, ${spellYear(year, 'en')}`, written: `${name} ${day}, ${year}`, weekday, iso }
}

/** 0 = Sunday. Date.UTC maps years 0–99 to 1900–1999, so the year is set separately. */
function dayOfWeek(year: number, month: number, day: number): number {
  const d = new Date(Date.UTC(2000, month - 1, day))
  d.setUTCFullYear(year)
  return d.getUTCDay()
}
