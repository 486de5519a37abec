/**
 * Deterministic extraction of a collected value from what the caller said (text or a final STT
 * transcript), in English and Turkish. Returns null when the utterance does not hold a value of
 * the type; the runtime then reprompts (or asks the LLM, when one is configured).
 */
import { fold } from '../text/index.js'

export type CollectType = 'number' | 'date' | 'yes_no' | 'choice' | 'email' | 'phone' | 'text'

const YES = [
  'yes',
  'yeah',
  'yep',
  'yup',
  'sure',
  'of course',
  'correct',
  'right',
  'absolutely',
  'affirmative',
  'ok',
  'okay',
  'evet',
  'olur',
  'tabii',
  'tabi',
  'tabii ki',
  'elbette',
  'dogru',
  'aynen',
  'tamam',
  'kesinlikle',
  'peki',
]
const NO = ['no', 'nope', 'nah', 'not really', 'negative', 'never', 'incorrect', 'wrong', 'hayir', 'yok', 'olmaz', 'istemiyorum', 'degil', 'yanlis', 'hic']

function yesNo(text: string): boolean | null {
  const t = ` ${fold(text)} `
  const has = (words: string[]) => words.some((w) => t.includes(` ${w} `))
  const yes = has(YES)
  const no = has(NO)
  return yes === no ? null : yes
}

const UNITS: Record<string, number> = {
  zero: 0,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
  sifir: 0,
  bir: 1,
  iki: 2,
  uc: 3,
  dort: 4,
  bes: 5,
  alti: 6,
  yedi: 7,
  sekiz: 8,
  dokuz: 9,
  on: 10,
  yirmi: 20,
  otuz: 30,
  kirk: 40,
  elli: 50,
  altmis: 60,
  yetmis: 70,
  seksen: 80,
  doksan: 90,
}
const SCALES: Record<string, number> = { hundred: 100, yuz: 100, thousand: 1000, bin: 1000, million: 1_000_000, milyon: 1_000_000 }

/** Spelled-out numbers ("two thousand five hundred", "iki bin beş yüz"); null if none. */
function wordsToNumber(text: string): number | null {
  let total = 0
  let current = 0
  let seen = false
  const words = fold(text).split(' ')
  for (const [i, w] of words.entries()) {
    if (w === 'and' || w === 've') continue
    // Turkish "on" (ten) is also English "on": a number only beside another number word or alone.
    const next = words[i + 1] ?? ''
    if (w === 'on' && !seen && words.length > 1 && !(next in UNITS || next in SCALES)) continue
    if (w in UNITS) {
      current += UNITS[w]!
      seen = true
    } else if (w in SCALES) {
      const scale = SCALES[w]!
      // "yüz" and "bin" alone mean one hundred / one thousand in Turkish.
      current = (current || 1) * scale
      if (scale >= 1000) {
        total += current
        current = 0
      }
      seen = true
    } else if (seen) break
  }
  return seen ? total + current : null
}

function number(text: string): number | null {
  // Digits first: "1.500,50" (tr) and "1,500.50" (en) both read as 1500.5.
  const m = /-?\d[\d.,]*/.exec(text)
  if (m) {
    let s = m[0].replace(/[.,]$/, '')
    const lastComma = s.lastIndexOf(',')
    const lastDot = s.lastIndexOf('.')
    if (lastComma > lastDot) s = s.replace(/\./g, '').replace(',', '.')
    else if (lastDot > lastComma && (s.match(/\./g) ?? []).length > 1) s = s.replace(/\./g, '')
    else s = s.replace(/,/g, '')
    // A lone "1.500" is Turkish thousands, not one and a half, when exactly three digits follow.
    if (/^\d{1,3}\.\d{3}$/.test(m[0])) s = m[0].replace('.', '')
    const n = Number(s)
    if (Number.isFinite(n)) return n
  }
  return wordsToNumber(text)
}

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/

function email(text: string): string | null {
  // Spoken forms: "jane dot doe at example dot com".
  const spoken = text.replace(/\s+(?:at|et)\s+/gi, '@').replace(/\s+(?:dot|nokta)\s+/gi, '.')
  const m = EMAIL.exec(text) ?? EMAIL.exec(spoken.replace(/\s+/g, ''))
  return m ? m[0].toLowerCase() : null
}

/** Digits with an optional leading +; 7–15 digits (E.164 bounds). */
function phone(text: string): string | null {
  const digits = text.replace(/[^\d+]/g, '')
  const plus = digits.startsWith('+')
  const only = digits.replace(/\D/g, '')
  if (only.length < 7 || only.length > 15) return null
  return plus ? `+${only}` : only
}

const MONTHS: Record<string, number> = {
  january: 1,
  february: 2,
  march: 3,
  april: 4,
  may: 5,
  june: 6,
  july: 7,
  august: 8,
  september: 9,
  october: 10,
  november: 11,
  december: 12,
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  sept: 9,
  oct: 10,
  nov: 11,
  dec: 12,
  ocak: 1,
  subat: 2,
  mart: 3,
  nisan: 4,
  mayis: 5,
  haziran: 6,
  temmuz: 7,
  agustos: 8,
  eylul: 9,
  ekim: 10,
  kasim: 11,
  aralik: 12,
}

const pad = (n: number) => String(n).padStart(2, '0')

function isoDate(y: number, m: number, d: number): string | null {
  const date = new Date(Date.UTC(y, m - 1, d))
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) return null
  return `${y}-${pad(m)}-${pad(d)}`
}

/** A calendar date as YYYY-MM-DD; relative words are resolved against `today` (UTC). */
function date(text: string, today: Date): string | null {
  const t = fold(text)
  const base = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate())
  const offset = (days: number) => new Date(base + days * 86_400_000).toISOString().slice(0, 10)
  if (/\b(today|bugun)\b/.test(t)) return offset(0)
  if (/\b(day after tomorrow|obur gun|yarindan sonra)\b/.test(t)) return offset(2)
  if (/\b(tomorrow|yarin)\b/.test(t)) return offset(1)
  let m = /\b(\d{4})-(\d{1,2})-(\d{1,2})\b/.exec(t)
  if (m) return isoDate(+m[1]!, +m[2]!, +m[3]!)
  // Day first, as both Turkish and most European usage write it: 25.12.2026, 25/12/2026.
  m = /\b(\d{1,2})[./](\d{1,2})[./](\d{4})\b/.exec(t)
  if (m) return isoDate(+m[3]!, +m[2]!, +m[1]!)
  const words = t.split(' ')
  const mi = words.findIndex((w) => w in MONTHS)
  if (mi >= 0) {
    const month = MONTHS[words[mi]!]!
    const near = [words[mi - 1], words[mi + 1]].map((w) => (w ? parseInt(w, 10) : NaN)).find((n) => n >= 1 && n <= 31)
    const year = words.map((w) => parseInt(w, 10)).find((n) => n >= 1900 && n <= 2200)
    if (near) {
      let y = year ?? today.getUTCFullYear()
      // "March 3" said in December means next year's.
      if (year === undefined && Date.UTC(y, month - 1, near) < base) y += 1
      return isoDate(y, month, near)
    }
  }
  return null
}

const ORDINALS: Record<string, number> = {
  first: 1,
  second: 2,
  third: 3,
  fourth: 4,
  fifth: 5,
  birinci: 1,
  ikinci: 2,
  ucuncu: 3,
  dorduncu: 4,
  besinci: 5,
}

function choice(text: string, choices: readonly string[]): string | null {
  // Dots fold away too, so a spoken "9 a.m." matches the choice "9 AM".
  const norm = (s: string) => fold(s).replace(/\./g, '')
  const t = ` ${norm(text)} `
  // The longest choice mentioned wins, so "premium plus" beats "premium".
  const hits = choices.filter((c) => t.includes(` ${norm(c)} `)).sort((a, b) => b.length - a.length)
  if (hits.length) return hits[0]!
  const n = /^\s*(\d{1,2})\s*$/.exec(text)?.[1] ?? Object.entries(ORDINALS).find(([w]) => t.includes(` ${w} `))?.[1]
  const index = n === undefined ? NaN : Number(n) - 1
  return choices[index] ?? null
}

export interface ExtractOptions {
  choices?: readonly string[]
  today?: Date
}

/** The value of `type` in `utterance`, or null. */
export function extractValue(type: CollectType, utterance: string, o: ExtractOptions = {}): string | number | boolean | null {
  const text = utterance.trim()
  if (!text) return null
  switch (type) {
    case 'number':
      return number(text)
    case 'yes_no':
      return yesNo(text)
    case 'email':
      return email(text)
    case 'phone':
      return phone(text)
    case 'date':
      return date(text, o.today ?? new Date())
    case 'choice':
      return choice(text, o.choices ?? [])
    case 'text':
      return text.slice(0, 2000)
  }
}
