import { z } from 'zod'
import { CURRENCY_CODES, LOCALES, MAX_CURRENCY_AMOUNT, MAX_PHONE_CHARS, MAX_YEAR, MIN_YEAR, localeOf } from '../../engine/text/locale/index.js'

/** Normalize reads at most this many characters (a URL much longer than that is refused by proxies anyway). */
export const MAX_NORMALIZE_CHARS = 5000

const LOCALE_LIST = LOCALES.map((l) => `'${l}'`).join(', ')

/** `en`, `tr`, or a tag whose language is one of them (`tr-TR`, `en-GB`), any case. */
const LocaleParam = z
  .string()
  .max(35)
  .default('en')
  .refine((tag) => localeOf(tag) !== null, {
    message: `Input should be ${LOCALES.map((l) => `'${l}'`).join(' or ')} (or a tag such as 'tr-TR')`,
    params: { type: 'enum', ctx: { expected: LOCALE_LIST } },
  })
  .describe(`One of ${LOCALE_LIST}; a language tag such as \`tr-TR\` or \`en-GB\` is read by its language.`)

/** A query integer: digits with an optional sign, nothing else (not "1e3", not "0x10", not ""). */
function queryInt(min: number, max: number) {
  return z.preprocess((v, ctx) => {
    if (typeof v !== 'string') return v
    if (/^[+-]?\d{1,20}$/.test(v)) return Number(v)
    ctx.addIssue({
      code: 'custom',
      message: 'Input should be a valid integer, unable to parse string as an integer',
      params: { type: 'int_parsing' },
      input: v,
    })
    return z.NEVER
  }, z.int().min(min).max(max))
}

/** A query decimal: "1250", "-3.5", ".5" is not one (as JSON would not have it either). */
function queryNumber(min: number, max: number) {
  return z.preprocess((v, ctx) => {
    if (typeof v !== 'string') return v
    if (/^[+-]?\d{1,16}(?:\.\d{1,20})?$/.test(v)) return Number(v)
    ctx.addIssue({ code: 'custom', message: 'Input should be a valid number, unable to parse string as a number', params: { type: 'float_parsing' }, input: v })
    return z.NEVER
  }, z.number().min(min).max(max))
}

export const SpellNumberQuery = z.object({
  value: queryInt(-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER).describe('The integer to spell, |value| ≤ 2^53 − 1.'),
  locale: LocaleParam,
})

export const SpellCurrencyQuery = z.object({
  amount: queryNumber(-MAX_CURRENCY_AMOUNT, MAX_CURRENCY_AMOUNT).describe(
    'The amount in major units (1250.5 = 1,250 lira 50 kuruş), rounded half away from zero to the minor unit.',
  ),
  locale: LocaleParam,
  code: z
    .string()
    .max(3)
    .default('TRY')
    // ASCII upper-casing: a currency code is ASCII, and a Turkish locale must not make "try" "TRY" differently.
    .transform((c) => (/^[a-z]{3}$/.test(c) ? c.replace(/[a-z]/g, (ch) => String.fromCharCode(ch.charCodeAt(0) - 32)) : c))
    .pipe(z.enum(CURRENCY_CODES as [string, ...string[]]))
    .describe(`ISO 4217 code, one of ${CURRENCY_CODES.join(', ')} (any case).`),
})

export const SpellDateQuery = z.object({
  year: queryInt(MIN_YEAR, MAX_YEAR),
  month: queryInt(1, 12),
  day: queryInt(1, 31).describe('Checked against the month (and leap years).'),
  locale: LocaleParam,
})

export const NormalizeQuery = z.object({
  text: z.string().max(MAX_NORMALIZE_CHARS).describe(`At most ${MAX_NORMALIZE_CHARS} characters.`),
  locale: LocaleParam,
})

export const FormatPhoneQuery = z.object({
  phone: z.string().min(1).max(MAX_PHONE_CHARS).describe('With a + and country code, or national (TR for `tr`, US for `en`).'),
  locale: LocaleParam,
})

export const NationalIdQuery = z.object({
  value: z.string().max(64).describe('The 11-digit Turkish identity number (T.C. Kimlik No).'),
})

export const LocaleList = z.array(z.enum(LOCALES))

export const SpelledNumber = z
  .object({
    value: z.string(),
    locale: z.string(),
    text: z.string(),
    ordinal: z.string().optional().describe('Absent for a negative value.'),
  })
  .meta({ id: 'SpelledNumber' })

export const SpelledCurrency = z
  .object({ amount: z.string(), rounded: z.string(), code: z.string(), locale: z.string(), text: z.string() })
  .meta({ id: 'SpelledCurrency' })

export const SpelledDate = z
  .object({ date: z.string(), locale: z.string(), text: z.string(), written: z.string(), weekday: z.string() })
  .meta({ id: 'SpelledDate' })

export const NormalizedText = z.object({ locale: z.string(), normalized: z.string() }).meta({ id: 'NormalizedText' })

export const FormattedPhone = z
  .object({
    phone: z.string(),
    locale: z.string(),
    e164: z.string(),
    national: z.string(),
    international: z.string(),
    country: z.string(),
    type: z.string(),
    valid: z.enum(['true', 'false']),
    spoken: z.string(),
  })
  .meta({ id: 'FormattedPhone' })

export const NationalIdResult = z.object({ valid: z.boolean(), well_formed: z.boolean() }).meta({ id: 'NationalIdResult' })
