import { fold } from '../text/index.js'

/**
 * How the words so far suggest the user is done. Checked in this order (first match wins):
 *
 * | ending                                             | cue        | example                         |
 * |----------------------------------------------------|------------|---------------------------------|
 * | `?` or `!` (after closing quotes/brackets)         | complete   | "Is it open?", "Harika!"        |
 * | last word a conjunction or filler (table below)    | incomplete | "I want to go and", "Yani, şey" |
 * | trailing `,` `;` `:` `-` `…` or `...`              | incomplete | "Well, I think,"                |
 * | `.`                                                | complete   | "That's all."                   |
 * | Turkish question particle as last word (mı/mi/mu/mü, with person suffixes: misin, mıyız, mudur…) | complete | "Açık mı" |
 * | anything else                                      | neutral    | "my name is Ayşe"               |
 *
 * A trailing filler beats a period because STT punctuation often closes "Um." or "and." though the
 * speaker is still thinking; a question or exclamation mark is a stronger signal than one word.
 * Words are compared after fold(), so case and diacritics do not matter ("ÇÜNKÜ" = "cunku").
 */
export type TextCue = 'complete' | 'incomplete' | 'neutral'

/** Folded conjunctions, fillers and function words after which a sentence cannot end. */
export const CONTINUATION_WORDS: Readonly<Record<'en' | 'tr', readonly string[]>> = {
  en: [
    'and',
    'but',
    'or',
    'so',
    'because',
    'cause',
    'then',
    'um',
    'umm',
    'uh',
    'uhh',
    'erm',
    'er',
    'hmm',
    'like',
    'well',
    'the',
    'a',
    'an',
    'to',
    'of',
    'with',
    'if',
    'that',
    'my',
    'your',
    'you know',
    'i mean',
    'kind of',
    'sort of',
  ],
  tr: ['ve', 'ama', 'fakat', 'ancak', 'lakin', 'cunku', 'yani', 'sey', 'ee', 'ii', 'hani', 'ile', 'veya', 'yahut', 'ya da', 'mesela', 'sonra', 'eger', 'hem'],
}

const CONTINUATIONS = new Set([...CONTINUATION_WORDS.en, ...CONTINUATION_WORDS.tr])
// mı/mi/mu/mü fold to mi/mu; the suffixes cover "misin", "misiniz", "miyim", "mudur", "miydi"…
const QUESTION_PARTICLE = /^m[iu](?:s[iu]n(?:[iu]z)?|y[iu][mz]|d[iu]r|yd[iu](?:[mk]|n[iu]z)?)?$/
const CLOSERS = /["'”’»)\]*_]+$/

export function textCue(text: string): TextCue {
  const raw = text.trim().replace(CLOSERS, '').trimEnd()
  // Drawn-out fillers ("ummm", "eeee", "ıııı") collapse to their listed spelling.
  const words = fold(raw)
    .replace(/[^\p{L}\p{N}\s]/gu, ' ')
    .replace(/(\p{L})\1{2,}/gu, '$1$1')
    .split(' ')
    .filter(Boolean)
  const last = words.at(-1) ?? ''
  const lastTwo = words.slice(-2).join(' ')
  if (/[?!]$/.test(raw)) return 'complete'
  if (CONTINUATIONS.has(last) || CONTINUATIONS.has(lastTwo)) return 'incomplete'
  if (/(?:[,;:\-–—…]|\.\.\.)$/.test(raw)) return 'incomplete'
  if (raw.endsWith('.')) return 'complete'
  if (QUESTION_PARTICLE.test(last) && words.length > 1) return 'complete'
  return 'neutral'
}
