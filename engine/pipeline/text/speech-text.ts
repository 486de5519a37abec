import { localeOf, normalizeForSpeech } from '../../text/locale/index.js'

/**
 * The text a TTS provider is given for a phrase of the agent's reply: numbers, money, dates,
 * times, percentages, ordinals and phone numbers in words for the agent's language ("1.250,50 TL"
 * → "bin iki yüz elli lira elli kuruş"), so every voice reads them the same and none reads
 * "TL" as letters or "14:30" as "fourteen colon thirty". Languages the helpers do not speak pass
 * through unchanged. The transcript and the model's history keep what the model wrote.
 *
 * Resolved once per call, not per phrase: a phrase then costs one scan, ~10 µs p50 (bench/text-normalize.ts).
 */
export function speechTextFor(language: string): (phrase: string) => string {
  const locale = localeOf(language)
  return locale === null ? (phrase) => phrase : (phrase) => normalizeForSpeech(phrase, locale)
}
