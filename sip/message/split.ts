import { trimWs } from './charset.js'

/**
 * Splits a list field's value on the commas that separate its elements (§7.3.1): a comma inside a
 * quoted-string (which may escape a quote with a backslash) or inside <...> belongs to the element.
 * An unterminated quote or bracket keeps the rest of the value in one element. Elements are
 * trimmed; empty ones are kept, so the caller decides whether they are errors.
 */
export function splitList(value: string): string[] {
  const out: string[] = []
  let start = 0
  let inQuote = false
  let inBrackets = false
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i)
    if (inQuote) {
      if (c === 0x5c) i++
      else if (c === 0x22) inQuote = false
    } else if (c === 0x22) inQuote = true
    else if (inBrackets) {
      if (c === 0x3e) inBrackets = false
    } else if (c === 0x3c) inBrackets = true
    else if (c === 0x2c) {
      out.push(trimWs(value.slice(start, i)))
      start = i + 1
    }
  }
  out.push(trimWs(value.slice(start)))
  return out
}
