/** The languages the localization helpers speak (spec: /api/v1/localization/locales). */
export const LOCALES = ['en', 'tr'] as const
export type Locale = (typeof LOCALES)[number]

/**
 * The helpers' locale for a language tag: "tr", "tr-TR", "TR_tr" → "tr"; "en-GB" → "en"; anything
 * else → null. Only the primary subtag counts, compared in ASCII (a tag is ASCII, so no Turkish
 * dotted-I question arises here).
 */
export function localeOf(tag: string): Locale | null {
  const primary = /^([A-Za-z]{2,3})(?:[-_][A-Za-z0-9]{1,8})*$/.exec(tag.trim())?.[1]?.toLowerCase()
  return (LOCALES as readonly string[]).includes(primary ?? '') ? (primary as Locale) : null
}
