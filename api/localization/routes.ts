import { defineRoute } from '../http/route.js'
import {
  FormatPhoneQuery,
  FormattedPhone,
  LocaleList,
  NationalIdQuery,
  NationalIdResult,
  NormalizedText,
  NormalizeQuery,
  SpellCurrencyQuery,
  SpellDateQuery,
  SpelledCurrency,
  SpelledDate,
  SpelledNumber,
  SpellNumberQuery,
} from './schema.js'
import { formatPhoneNumber, listLocales, normalizeText, spellAmount, spellCalendarDate, spellNumber, validateNationalId } from './service.js'

const tag = 'Localization'
const BASE = '/api/v1/localization'

/**
 * Helpers for building agents (what the engine will say for a number, an amount, a date), so they
 * are agents:read, which every built-in role and the workflow:read scope hold. All answer from the
 * query alone; bad or unsupported input is 422 detail[].
 */
export function localizationRoutes() {
  return [
    defineRoute({
      operationId: 'localization_locales',
      method: 'get',
      path: `${BASE}/locales`,
      auth: 'A',
      permission: 'agents:read',
      tag,
      summary: 'The locales the helpers (and the engine’s speech normalization) support',
      status: 200,
      response: LocaleList,
      handler: () => listLocales(),
    }),
    defineRoute({
      operationId: 'localization_spell_number',
      method: 'get',
      path: `${BASE}/spell-number`,
      auth: 'A',
      permission: 'agents:read',
      tag,
      summary: 'An integer in words, with its ordinal ("bin iki yüz elli", "yirmi birinci")',
      query: SpellNumberQuery,
      status: 200,
      response: SpelledNumber,
      handler: ({ query }) => spellNumber(query),
    }),
    defineRoute({
      operationId: 'localization_spell_currency',
      method: 'get',
      path: `${BASE}/spell-currency`,
      auth: 'A',
      permission: 'agents:read',
      tag,
      summary: 'An amount in words with its major and minor units, rounded to the minor unit',
      description: 'Rounds half away from zero in decimal (1.005 → 1.01). TRY (lira, kuruş), USD, EUR, GBP and JPY (no minor unit).',
      query: SpellCurrencyQuery,
      status: 200,
      response: SpelledCurrency,
      handler: ({ query }) => spellAmount(query),
    }),
    defineRoute({
      operationId: 'localization_spell_date',
      method: 'get',
      path: `${BASE}/spell-date`,
      auth: 'A',
      permission: 'agents:read',
      tag,
      summary: 'A date in words, in the locale’s order (en: month day, year; tr: day month year)',
      description: 'A day the month does not have (April 31, February 29 of a common year) is 422.',
      query: SpellDateQuery,
      status: 200,
      response: SpelledDate,
      handler: ({ query }) => spellCalendarDate(query),
    }),
    defineRoute({
      operationId: 'localization_normalize',
      method: 'get',
      path: `${BASE}/normalize`,
      auth: 'A',
      permission: 'agents:read',
      tag,
      summary: 'Text as the engine sends it to TTS: inline numbers, money, dates, times, percentages, ordinals and phone numbers in words',
      query: NormalizeQuery,
      status: 200,
      response: NormalizedText,
      handler: ({ query }) => normalizeText(query),
    }),
    defineRoute({
      operationId: 'localization_format_phone',
      method: 'get',
      path: `${BASE}/format-phone`,
      auth: 'A',
      permission: 'agents:read',
      tag,
      summary: 'A phone number in E.164, national and international form, with its region, type, validity and spoken form',
      description: 'Text with no phone number in it is 422; a number that parses but cannot exist is answered with valid "false".',
      query: FormatPhoneQuery,
      status: 200,
      response: FormattedPhone,
      handler: ({ query }) => formatPhoneNumber(query),
    }),
    defineRoute({
      operationId: 'localization_validate_national_id',
      method: 'get',
      path: `${BASE}/validate-national-id`,
      auth: 'A',
      permission: 'agents:read',
      tag,
      summary: 'Whether a Turkish identity number is well formed (11 digits, first not 0) and its two check digits are right',
      query: NationalIdQuery,
      status: 200,
      response: NationalIdResult,
      handler: ({ query }) => validateNationalId(query),
    }),
  ]
}
