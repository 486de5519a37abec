// Character classes and small scanners of the RFC 3261 grammar (§25.1). Every scanner is a single
// forward pass over its input: nothing here recurses or backtracks, so no input can make it slow.

function charSet(extra: string, alphanum = true): Uint8Array {
  const set = new Uint8Array(128)
  if (alphanum) {
    for (let c = 0x30; c <= 0x39; c++) set[c] = 1
    for (let c = 0x41; c <= 0x5a; c++) set[c] = 1
    for (let c = 0x61; c <= 0x7a; c++) set[c] = 1
  }
  for (const ch of extra) set[ch.charCodeAt(0)] = 1
  return set
}

const MARK = "-_.!~*'()"
/** token = 1*(alphanum / "-" / "." / "!" / "%" / "*" / "_" / "+" / "`" / "'" / "~") */
export const TOKEN = charSet("-.!%*_+`'~")
/** Characters a user part may carry unescaped: unreserved / user-unreserved. */
export const USER = charSet(`${MARK}&=+$,;?/`)
/** password = *( unreserved / escaped / "&" / "=" / "+" / "$" / "," ) */
export const PASSWORD = charSet(`${MARK}&=+$,`)
/** paramchar = param-unreserved / unreserved / escaped */
export const PARAM = charSet(`${MARK}[]/:&+$`)
/** hname and hvalue of URI headers: hnv-unreserved / unreserved / escaped */
export const URI_HEADER = charSet(`${MARK}[]/?:+$`)
/** uric = reserved / unreserved / escaped (RFC 2396, used by absoluteURI) */
export const URIC = charSet(`${MARK};/?:@&=+$,`)
/** Call-ID's word (§25.1): token characters plus ()<>:\"/[]?{} */
export const WORD = charSet(`-.!%*_+\`'~()<>:\\"/[]?{}`)
const HEX = charSet('abcdefABCDEF', false)
for (let c = 0x30; c <= 0x39; c++) HEX[c] = 1

export function inSet(set: Uint8Array, code: number): boolean {
  return code < 128 && set[code] === 1
}

/** True when `s` is non-empty and every character is in `set`. */
export function allIn(set: Uint8Array, s: string): boolean {
  if (s.length === 0) return false
  for (let i = 0; i < s.length; i++) if (!inSet(set, s.charCodeAt(i))) return false
  return true
}

export function isToken(s: string): boolean {
  return allIn(TOKEN, s)
}

export function isWs(code: number): boolean {
  return code === 0x20 || code === 0x09
}

export function skipWs(s: string, i: number): number {
  while (i < s.length && isWs(s.charCodeAt(i))) i++
  return i
}

export function isDigits(s: string): boolean {
  if (s.length === 0) return false
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x30 || c > 0x39) return false
  }
  return true
}

/** A decimal field no larger than `max`; leading zeros are allowed (RFC 4475 §3.1.1.1). */
export function parseBoundedInt(s: string, max: number): number | undefined {
  if (!isDigits(s)) return undefined
  let start = 0
  while (start < s.length - 1 && s.charCodeAt(start) === 0x30) start++
  if (s.length - start > 16) return undefined
  const n = Number(s.slice(start))
  return n <= max ? n : undefined
}

/**
 * quoted-string = SWS DQUOTE *(qdtext / quoted-pair) DQUOTE (§25.1), starting at s[i] === '"'.
 * qdtext excludes controls other than LWS; quoted-pair = "\" (%x00-09 / %x0B-0C / %x0E-7F).
 * Returns the unescaped text and the index just past the closing quote.
 */
export function scanQuoted(s: string, i: number): { text: string; end: number } | undefined {
  let text = ''
  let j = i + 1
  while (j < s.length) {
    const c = s.charCodeAt(j)
    if (c === 0x22) return { text, end: j + 1 }
    if (c === 0x5c) {
      const next = s.charCodeAt(j + 1)
      if (Number.isNaN(next) || next > 0x7f || next === 0x0a || next === 0x0d) return undefined
      text += s[j + 1]
      j += 2
      continue
    }
    if ((c < 0x20 && c !== 0x09) || c === 0x7f) return undefined
    text += s[j]
    j++
  }
  return undefined
}

/** Writes `text` as a quoted-string, escaping '"' and '\' and controls; CR and LF are dropped. */
export function quote(text: string): string {
  let out = '"'
  for (const ch of text) {
    const c = ch.charCodeAt(0)
    if (c === 0x0a || c === 0x0d) continue
    if (c === 0x22 || c === 0x5c || (c < 0x20 && c !== 0x09) || c === 0x7f) out += '\\'
    out += ch
  }
  return `${out}"`
}

/**
 * Decodes %HH escapes (§19.1.2) of a string already checked against `set`, as UTF-8.
 * Undefined when a character is outside the set or an escape is not two hex digits.
 */
export function unescapeIn(set: Uint8Array, s: string): string | undefined {
  let plain = true
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c === 0x25) {
      if (!inSet(HEX, s.charCodeAt(i + 1)) || !inSet(HEX, s.charCodeAt(i + 2))) return undefined
      plain = false
      i += 2
    } else if (!inSet(set, c)) return undefined
  }
  if (plain) return s
  const bytes: number[] = []
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c === 0x25) {
      bytes.push(Number.parseInt(s.slice(i + 1, i + 3), 16))
      i += 2
    } else bytes.push(c)
  }
  return Buffer.from(bytes).toString('utf8')
}

/** Percent-encodes (as UTF-8) every character of `s` outside `set` (§19.1.2). */
export function escapeOutside(set: Uint8Array, s: string): string {
  let out = ''
  for (const ch of s) {
    const c = ch.charCodeAt(0)
    if (ch.length === 1 && inSet(set, c) && c !== 0x25) out += ch
    else for (const b of Buffer.from(ch, 'utf8')) out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`
  }
  return out
}

/** Trims SP and HTAB only: String.prototype.trim would also eat NBSP and a leading BOM. */
export function trimWs(s: string): string {
  let start = 0
  let end = s.length
  while (start < end && isWs(s.charCodeAt(start))) start++
  while (end > start && isWs(s.charCodeAt(end - 1))) end--
  return start === 0 && end === s.length ? s : s.slice(start, end)
}
