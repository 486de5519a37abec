/**
 * Words that end in a period without ending the sentence, compared after fold() (lower case, no
 * diacritics: "Doç." → "doc"). Only forms that usually precede a name or a number are listed.
 * Left out: "Inc." and "Ltd.", which usually close a sentence, and abbreviations that are also
 * ordinary words ("sen" is Turkish "you"; "age", "rep"), where a missed sentence end would cost more
 * than an extra split. Single letters ("J.") and dotted letters ("U.S.", "A.Ş.") are handled by
 * rule in boundary.ts.
 */
export const ABBREVIATIONS: ReadonlySet<string> = new Set([
  // en
  'mr',
  'mrs',
  'ms',
  'dr',
  'prof',
  'st',
  'sr',
  'jr',
  'vs',
  'etc',
  'e.g',
  'i.e',
  'mt',
  'approx',
  'dept',
  'fig',
  'vol',
  'rev',
  'sgt',
  'capt',
  'lt',
  'gov',
  'ave',
  'blvd',
  // tr
  'av',
  'doc',
  'sn',
  'vb',
  'bkz',
  'yrd',
  'ogr',
  'gor',
  'uzm',
  'op',
  'mah',
  'cad',
  'sok',
  'apt',
  'tel',
  'hz',
  'alb',
  'yzb',
  'bnb',
  'orn',
  'krs',
  'vd',
  'ltd.sti',
])
