/**
 * Text as a TTS engine should read it: markdown an LLM likes to emit (headings, bullets, bold,
 * code ticks, links) is removed because engines read the symbols aloud ("asterisk asterisk").
 * Returns '' when nothing speakable (no letter or digit) is left.
 */
export function speakable(phrase: string): string {
  const s = phrase
    .replace(/\[([^\]]*)\]\([^)\s]*\)/g, '$1') // [label](url) → label
    .replace(/^[ \t]*#{1,6}[ \t]*/gm, '') // headings
    .replace(/^[ \t]*[-*•+][ \t]+/gm, '') // bullets
    .replace(/\*+|`+|__+/g, '') // bold, italics, code; a single "_" stays (snake_case, e-mail names)
    .replace(/\s+/g, ' ')
    .trim()
  return /[\p{L}\p{N}]/u.test(s) ? s : ''
}
