import { isToken, isWs, scanQuoted, skipWs } from './charset.js'
import { isHost } from './host.js'

/** A parameter's value: a string, or null for a parameter given without "=" (e.g. `lr`). */
export type ParamValue = string | null

/**
 * Parameters of a URI or a header field value, in order. Names are case-insensitive (§7.3.1,
 * §19.1.4) and kept lower-cased; a name appears at most once (§19.1.1).
 */
export class Params {
  static readonly empty = new Params([])
  readonly #entries: ReadonlyArray<readonly [string, ParamValue]>

  constructor(entries: Iterable<readonly [string, ParamValue]>) {
    this.#entries = [...entries].map(([name, value]) => [name.toLowerCase(), value] as const)
  }

  get size(): number {
    return this.#entries.length
  }

  /** The value; null when present without a value; undefined when absent. */
  get(name: string): ParamValue | undefined {
    const key = name.toLowerCase()
    for (const [k, v] of this.#entries) if (k === key) return v
    return undefined
  }

  has(name: string): boolean {
    return this.get(name) !== undefined
  }

  entries(): ReadonlyArray<readonly [string, ParamValue]> {
    return this.#entries
  }

  /** A copy with `name` set to `value` (replacing it in place, or appended). */
  with(name: string, value: ParamValue): Params {
    const key = name.toLowerCase()
    const entries = this.#entries.some(([k]) => k === key)
      ? this.#entries.map(([k, v]) => (k === key ? ([k, value] as const) : ([k, v] as const)))
      : [...this.#entries, [key, value] as const]
    return new Params(entries)
  }

  without(name: string): Params {
    const key = name.toLowerCase()
    return new Params(this.#entries.filter(([k]) => k !== key))
  }

  /** Header parameters as `;name=value`; values are written as stored (token, host or quoted-string). */
  serialize(): string {
    let out = ''
    for (const [k, v] of this.#entries) out += v === null ? `;${k}` : `;${k}=${v}`
    return out
  }

  toJSON(): Record<string, ParamValue> {
    return Object.fromEntries(this.#entries)
  }
}

/**
 * Parses `*( SEMI generic-param )` (§25.1) from s[i] to the end of `s`:
 * generic-param = token [ EQUAL gen-value ], gen-value = token / host / quoted-string, with
 * SEMI = SWS ";" SWS and EQUAL = SWS "=" SWS. A value is kept as written (quotes included).
 * Undefined when malformed or when a name repeats.
 */
export function parseHeaderParams(s: string, i: number): Params | undefined {
  const entries: Array<readonly [string, ParamValue]> = []
  const seen = new Set<string>()
  i = skipWs(s, i)
  while (i < s.length) {
    if (s[i] !== ';') return undefined
    i = skipWs(s, i + 1)
    const nameStart = i
    while (i < s.length && !isWs(s.charCodeAt(i)) && s[i] !== '=' && s[i] !== ';') i++
    const name = s.slice(nameStart, i)
    if (!isToken(name)) return undefined
    i = skipWs(s, i)
    let value: ParamValue = null
    if (s[i] === '=') {
      i = skipWs(s, i + 1)
      if (s[i] === '"') {
        const q = scanQuoted(s, i)
        if (!q) return undefined
        value = s.slice(i, q.end)
        i = q.end
      } else {
        const valueStart = i
        while (i < s.length && !isWs(s.charCodeAt(i)) && s[i] !== ';') i++
        value = s.slice(valueStart, i)
        if (!isToken(value) && !isHost(value)) return undefined
      }
      i = skipWs(s, i)
    }
    const key = name.toLowerCase()
    if (seen.has(key)) return undefined
    seen.add(key)
    entries.push([key, value])
  }
  return new Params(entries)
}

/** The text of a gen-value: quoted-strings unquoted, tokens as they are. */
export function paramText(value: ParamValue | undefined): string | undefined {
  if (value === undefined || value === null) return undefined
  if (value.startsWith('"')) return scanQuoted(value, 0)?.text
  return value
}
