import { fold } from '../../engine/text/index.js'

/**
 * Text handling shared by indexing and querying, so both sides agree on every term.
 *
 * Folding: fold() lower-cases with Turkish rules (İ→i, I→ı→i) and strips diacritics (ç→c, ğ→g,
 * ş→s, ö→o, ü→u, é→e), so "İSTANBUL", "Istanbul" and "istanbul" are one term and "cagri" finds
 * "çağrı". FTS5's own `remove_diacritics` cannot do this: it lower-cases I to i and leaves ı alone.
 * The index holds folded text; the original text is kept for snippets and answers.
 *
 * Word forms: Turkish is agglutinative ("randevu", "randevunuzu", "randevular"). A term of five
 * letters or more also matches any word sharing its first five letters (fixed-prefix "F5"
 * stemming, known to do well for Turkish retrieval; it also joins English "appointment(s)"). The
 * exact form scores higher, since a chunk matching both phrases earns both. Shorter terms match
 * exactly: a four-letter prefix ("park*": parks, parking, parkinson) is too broad to rank by.
 *
 * Safety: a user query never reaches FTS5 syntax. It is folded, split into letter/digit runs, and
 * each run is emitted as a double-quoted string (which cannot contain a quote: runs hold letters
 * and digits only), joined with OR. Operators, column filters, NEAR, `*`, `^` and stray quotes in
 * the input are just separators.
 */

export interface Term {
  /** The folded word. */
  word: string
  /** Also matched as a prefix: its first five letters; null: exact only. */
  prefix: string | null
}

/** Words that carry no topic (folded), dropped unless a query has nothing else. */
const STOPWORDS = new Set(
  (
    'a an and are as at be but by can could do does did for from had has have how i if in into is it its me my no not of on or our ' +
    'please so than that the their them then there these they this those to us was we were what when where which who whom why will ' +
    'with would you your ' +
    'acaba ama ancak bana beni ben bir biz bu da daha de diye en gibi hem hep her hic icin ile ise ki kim mi mu na ne neden nerede ' +
    'nasil o olan olarak ona onu sen siz su ve veya ya yani'
  ).split(' '),
)
const MAX_TERMS = 16
const MAX_TERM_CHARS = 64
const PREFIX_CHARS = 5
const WORD = /[\p{L}\p{N}]+/gu

/** Folded text for the index (title and body columns). */
export const foldForIndex = (text: string): string => fold(text)

function toTerm(word: string): Term {
  if (word.length < PREFIX_CHARS) return { word, prefix: null }
  return { word, prefix: word.slice(0, PREFIX_CHARS) }
}

/** The distinct terms of a query, stopwords dropped when anything else is left; [] when none. */
export function queryTerms(query: string): Term[] {
  const words = [...new Set(fold(query).match(WORD) ?? [])].map((w) => w.slice(0, MAX_TERM_CHARS))
  const topical = words.filter((w) => !STOPWORDS.has(w))
  return (topical.length ? topical : words).slice(0, MAX_TERMS).map(toTerm)
}

/** Each term as one FTS5 sub-expression: a quoted string, a quoted prefix, or both OR-ed. */
export function termGroups(terms: readonly Term[]): string[] {
  const groups = terms.map((t) => {
    if (t.prefix === null) return `"${t.word}"`
    if (t.prefix === t.word) return `"${t.word}"*`
    return `("${t.word}" OR "${t.prefix}"*)`
  })
  return [...new Set(groups)]
}

/** The FTS5 MATCH expression of some terms: their groups joined with OR; null when none. */
export function matchExpression(terms: readonly Term[]): string | null {
  const groups = termGroups(terms)
  return groups.length ? groups.join(' OR ') : null
}

/**
 * How many (chunk, term) matches one search may rank. BM25 costs about half a microsecond per
 * matching chunk, so a word found in half of 100,000 chunks would cost 25 ms alone. When a query's
 * terms together match more than this, the most common ones are left out (rarest kept first, and
 * always the rarest one): they carry the least weight in BM25 (low IDF) and the most cost. Below
 * this many matches, which is every environment of fewer chunks, ranking is plain BM25 over all terms.
 */
export const SCORED_MATCHES_BUDGET = 3000

/** The groups worth ranking by, given each one's match count (capped above the budget). */
export function affordableGroups(counted: readonly { group: string; matches: number }[], budget = SCORED_MATCHES_BUDGET): string[] {
  const byRarity = [...counted].sort((a, b) => a.matches - b.matches)
  const kept: string[] = []
  let total = 0
  for (const c of byRarity) {
    if (kept.length && total + c.matches > budget) break
    kept.push(c.group)
    total += c.matches
  }
  return kept
}

const matches = (folded: string, terms: readonly Term[]) => terms.some((t) => folded === t.word || (t.prefix !== null && folded.startsWith(t.prefix)))

/**
 * fold() of one word, a character at a time through a cache: fold() maps characters one by one
 * (lower case, then diacritics off), and the snippet folds every word of every hit, where
 * fold()'s full pipeline per word would cost more than the search itself.
 */
const FOLDED_CHARS = new Map<string, string>()
function foldWord(word: string): string {
  let out = ''
  for (const c of word) {
    let f = FOLDED_CHARS.get(c)
    if (f === undefined) {
      f = fold(c)
      if (FOLDED_CHARS.size < 65_536) FOLDED_CHARS.set(c, f)
    }
    out += f
  }
  return out
}

export const SNIPPET_CHARS = 240
/** Characters of context kept before the first hit of the snippet window. */
const LEAD_CHARS = 40

/**
 * The stretch of the original text (not the folded copy) around the most query words, at most
 * `maxChars` long, cut at word boundaries, with "…" where text was left out.
 */
export function snippet(text: string, terms: readonly Term[], maxChars = SNIPPET_CHARS): string {
  if (text.length <= maxChars) return text
  const hits: number[] = []
  for (const m of text.matchAll(WORD)) if (matches(foldWord(m[0]), terms)) hits.push(m.index)
  let from = 0
  let most = 0
  for (const h of hits) {
    const start = Math.max(0, h - LEAD_CHARS)
    const count = hits.filter((x) => x >= start && x < start + maxChars - 10).length
    if (count > most) [from, most] = [start, count]
  }
  let start = from
  let end = Math.min(text.length, start + maxChars)
  if (start > 0) {
    const space = text.slice(start, start + LEAD_CHARS).search(/\s/)
    if (space >= 0) start += space + 1
  }
  if (end < text.length) {
    const space = text.lastIndexOf(' ', end)
    if (space > start + maxChars / 2) end = space
  }
  return `${start > 0 ? '…' : ''}${text.slice(start, end).trim()}${end < text.length ? '…' : ''}`
}

/** bm25() is negative, lower is better; the API reports a positive score, higher is better. */
export const scoreOf = (bm25: number): number => Number((-bm25).toPrecision(6))
