import { fold } from '../text/index.js'

/**
 * Short acknowledgements a listener makes without taking the turn. They do not interrupt the
 * agent by default. The agent config carries its own list (`turn_taking.backchannel_words`);
 * these are the built-in ones per language.
 */
export const BACKCHANNELS: Readonly<Record<'en' | 'tr', readonly string[]>> = {
  en: [
    'uh-huh',
    'uh huh',
    'mm-hmm',
    'mm hmm',
    'mhm',
    'hmm',
    'mm',
    'yeah',
    'yep',
    'yes',
    'okay',
    'ok',
    'right',
    'sure',
    'i see',
    'got it',
    'alright',
    'all right',
    'cool',
  ],
  tr: ['evet', 'hı hı', 'hıhı', 'hı', 'tamam', 'peki', 'anladım', 'olur', 'he', 'hee', 'aynen', 'doğru', 'tabii', 'tabi'],
}

/** More words than this is a sentence, not a backchannel, whatever the words are. */
export const MAX_BACKCHANNEL_WORDS = 4

// Hyphens become spaces so "uh-huh", "uh huh" and "Uh-Huh." compare equal; drawn-out sounds
// ("mmmm", "hııı") collapse to two letters, the longest spelling the lists use.
const normalize = (s: string): string[] =>
  fold(s)
    .replace(/[^\p{L}\p{N}\s]/gu, ' ')
    .replace(/(\p{L})\1{2,}/gu, '$1$1')
    .split(' ')
    .filter(Boolean)

const cache = new Map<string, string[][]>()

function phrases(lang: string | undefined, words: readonly string[] | undefined): string[][] {
  const key = `${lang ?? '*'}|${words?.join('\u0000') ?? ''}`
  let list = cache.get(key)
  if (!list) {
    const base = lang === 'en' || lang === 'tr' ? BACKCHANNELS[lang] : [...BACKCHANNELS.en, ...BACKCHANNELS.tr]
    // Longest first, so "i see" is matched whole before any one-word entry could claim "i".
    list = [...(words ?? base)]
      .map(normalize)
      .filter((p) => p.length > 0)
      .sort((a, b) => b.length - a.length)
    if (cache.size > 64) cache.clear()
    cache.set(key, list)
  }
  return list
}

/**
 * True when `text` is made only of backchannel phrases ("yeah", "okay okay", "hı hı tamam") and is
 * at most MAX_BACKCHANNEL_WORDS words. `lang` ("en", "tr-TR", …) narrows the built-in lists to one
 * language (both when absent or unknown); `words` replaces them (e.g. the agent's configured list).
 */
export function isBackchannel(text: string, lang?: string, words?: readonly string[]): boolean {
  const tokens = normalize(text)
  if (tokens.length === 0 || tokens.length > MAX_BACKCHANNEL_WORDS) return false
  const list = phrases(lang?.slice(0, 2).toLowerCase(), words)
  let i = 0
  while (i < tokens.length) {
    const match = list.find((p) => p.every((w, k) => tokens[i + k] === w))
    if (!match) return false
    i += match.length
  }
  return true
}
