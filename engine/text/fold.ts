/**
 * Text folded for matching what a caller said against words an agent or a document holds: the
 * runtime's value extraction, turn-taking's backchannel and cue words, the phrase chunker's abbreviations,
 * and the knowledge base's keyword search all compare folded text, so they agree on what "the same word" is.
 */

/** Lower-cases with Turkish rules and folds diacritics, so "EVET", "Evet" and "evet" match. */
export function fold(s: string): string {
  return s
    .toLocaleLowerCase('tr')
    .replace(/ı/g, 'i')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\p{L}\p{N}@.+\-/\s]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
}
