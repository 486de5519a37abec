import { fold } from '../../text/index.js'
import { ABBREVIATIONS } from './abbreviations.js'

/**
 * Whether a phrase may end at `buf[i]`, looking only at `buf` — so a streaming caller gets the
 * same answer as one holding the whole text, provided it defers on `'more'`:
 * - a number: split there (exclusive end index; closing quotes, brackets and `*` go with the phrase);
 * - `'no'`: never, whatever text follows;
 * - `'more'`: cannot tell until more text arrives (at end of text, pass `eof` instead).
 * `clauseOk` says whether a clause boundary (, ; : dashes) may end the phrase here.
 */
export type Boundary = number | 'no' | 'more'

const CLOSERS = new Set(['"', "'", '”', '’', '»', ')', ']', '*', '_', '`'])
const isSpace = (c: string) => /\s/.test(c)
const isLower = (c: string) => c !== c.toLocaleUpperCase('tr') && c === c.toLocaleLowerCase('tr')
const isUpper = (c: string) => c !== c.toLocaleLowerCase('tr')
const isDigit = (c: string) => c >= '0' && c <= '9'

interface Next {
  /** End of the phrase: after the mark and its closers. */
  end: number
  /** What follows: text glued to the mark, whitespace then a character, or not known yet. */
  kind: 'attached' | 'spaced' | 'open'
  next: string
  /** Index of `next` in buf. */
  at: number
  newline: boolean
}

function look(buf: string, i: number): Next {
  let end = i + 1
  while (end < buf.length && CLOSERS.has(buf[end]!)) end++
  if (end >= buf.length) return { end, kind: 'open', next: '', at: end, newline: false }
  if (!isSpace(buf[end]!)) return { end, kind: 'attached', next: buf[end]!, at: end, newline: false }
  let k = end
  while (k < buf.length && isSpace(buf[k]!)) k++
  const newline = buf.slice(end, k).includes('\n')
  return k >= buf.length ? { end, kind: 'open', next: '', at: k, newline } : { end, kind: 'spaced', next: buf[k]!, at: k, newline }
}

/** The word before the mark, without opening brackets or quotes: "(Dr." → "Dr". */
function wordBefore(buf: string, i: number): string {
  let s = i
  while (s > 0 && !isSpace(buf[s - 1]!)) s--
  return buf.slice(s, i).replace(/^["'“‘«([*_`]+/, '')
}

function period(buf: string, i: number, eof: boolean): Boundary {
  const n = look(buf, i)
  if (n.kind === 'attached') return 'no' // 3.5, 22.11.2026, example.com, J.R.R, "..." before its last dot
  if (n.kind === 'open') return n.newline || eof ? n.end : 'more'
  if (n.newline) return n.end
  if (isLower(n.next) || isDigit(n.next)) return 'no' // "3. kat", "e.g. this", "in 2020. 2021…"
  const prev = wordBefore(buf, i)
  const ellipsis = buf[i] === '…' || prev.endsWith('.')
  if (ellipsis) {
    // A trailing-off "..." ends a sentence only before a capital; "Well... I think" goes on
    // (English "I" is capital anywhere), so look one character past an "I".
    if (n.next === 'I') {
      const after = buf[n.at + 1]
      if (after === undefined) return eof ? n.end : 'more'
      return /\p{L}/u.test(after) ? n.end : 'no'
    }
    return isUpper(n.next) ? n.end : 'no'
  }
  if (/^\p{Lu}$/u.test(prev)) return 'no' // an initial: "J. R. R. Tolkien", "George W. Bush"
  if (/^(?:\p{L}\.)+\p{L}$/u.test(prev)) return 'no' // "U.S.", "e.g."
  if (ABBREVIATIONS.has(fold(prev))) return 'no'
  if (/^\d+$/.test(buf.slice(0, i).trim())) return 'no' // a list marker "1. First…"
  return n.end
}

function mark(buf: string, i: number, eof: boolean): Boundary {
  const n = look(buf, i)
  if (n.kind === 'attached') return 'no' // "?!" (the last mark decides), "?q=1" in a URL
  // Whitespace after the mark is enough; nothing at all yet might still become "?!" or "?x".
  return n.kind === 'open' && n.end === buf.length && !eof ? 'more' : n.end
}

function clause(buf: string, i: number, eof: boolean, clauseOk: boolean): Boundary {
  const c = buf[i]!
  if (c === '—') return clauseOk ? i + 1 : 'no'
  if (c === '–' || c === '-') {
    // Only a spaced dash is a pause; "2020–2021" and "e-mail" are not.
    if (i + 1 >= buf.length) return eof ? 'no' : 'more'
    return clauseOk && i > 0 && isSpace(buf[i - 1]!) && isSpace(buf[i + 1]!) ? i + 1 : 'no'
  }
  const n = look(buf, i)
  if (n.kind === 'attached') return 'no' // 3,5 · 1,500 · 10:30 · https://
  if (n.kind === 'open' && n.end === buf.length) return eof ? 'no' : 'more'
  return clauseOk ? n.end : 'no'
}

export function boundaryAt(buf: string, i: number, eof: boolean, clauseOk: boolean): Boundary {
  const c = buf[i]
  if (c === '.' || c === '…') return buf[i + 1] === '.' ? 'no' : period(buf, i, eof)
  if (c === '?' || c === '!') return mark(buf, i, eof)
  if (c === ',' || c === ';' || c === ':' || c === '—' || c === '–' || c === '-') return clause(buf, i, eof, clauseOk)
  if (c === '\n') return /[\p{L}\p{N}]/u.test(buf.slice(0, i)) ? i + 1 : 'no'
  return 'no'
}
