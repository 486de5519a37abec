import { MAX_JSON_DEPTH, boundedJson, boundedJsonObject, pathOf, type JsonBounds, type JsonFrame } from '../../engine/graph-runtime/index.js'

export { MAX_JSON_DEPTH, boundedJson, boundedJsonObject, type JsonBounds }

/**
 * Bounds of the API's free-form JSON fields (docs/api.md, "Limits"). Each field's schema refuses
 * a value beyond them with a 422 at the field; BODY_MAX_DEPTH catches any field nobody bounded.
 */
export const FREE_FORM = {
  /** One value of a session's or call's `variables`. */
  variable: { maxDepth: MAX_JSON_DEPTH, maxBytes: 16 * 1024 },
  /** An integration action's `input`, and the http action's JSON `body`. */
  actionInput: { maxDepth: MAX_JSON_DEPTH, maxBytes: 256 * 1024 },
} as const satisfies Record<string, JsonBounds>

/**
 * No JSON body may nest deeper than this, whatever its route's schema says. Above every bounded
 * field's own limit plus the levels of the schema around it (definition → variables → 0 → default
 * is 4), so a bounded field is always reported by its own, more precise, entry.
 */
export const BODY_MAX_DEPTH = 2 * MAX_JSON_DEPTH

/** At most this many lone-surrogate strings are reported for one body. */
const MAX_REPORTED_STRINGS = 10

/** A lone (unpaired) UTF-16 surrogate: with the u flag, a well-formed pair is one code point, not Cs. */
const LONE_SURROGATE = /\p{Cs}/u

export function hasLoneSurrogate(s: string): boolean {
  return LONE_SURROGATE.test(s)
}

export interface BodyScan {
  /** Where the body first goes deeper than BODY_MAX_DEPTH (the container past the limit), or null. */
  tooDeepAt: (string | number)[] | null
  /** Strings (values, or object keys: the key's path) holding a lone surrogate, in document order. */
  loneSurrogates: { path: (string | number)[]; value: string }[]
}

/**
 * One iterative pass over a parsed JSON body (JSON.parse turns "\ud800" into a lone surrogate,
 * which SQLite would store as U+FFFD). It does not descend past BODY_MAX_DEPTH, so its work is
 * bounded by the body's size and its stack by nothing recursive.
 */
export function scanBody(body: unknown, maxDepth = BODY_MAX_DEPTH): BodyScan {
  const out: BodyScan = { tooDeepAt: null, loneSurrogates: [] }
  const stack: JsonFrame[] = [{ value: body, depth: 0, key: null, parent: null }]
  const flag = (frame: JsonFrame, value: string) => {
    if (out.loneSurrogates.length < MAX_REPORTED_STRINGS) out.loneSurrogates.push({ path: pathOf(frame), value })
  }
  while (stack.length) {
    const frame = stack.pop()!
    const { value, depth } = frame
    if (typeof value === 'string') {
      if (hasLoneSurrogate(value)) flag(frame, value)
      continue
    }
    if (value === null || typeof value !== 'object') continue
    if (depth + 1 > maxDepth) {
      out.tooDeepAt ??= pathOf(frame)
      continue
    }
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], depth: depth + 1, key: i, parent: frame })
      continue
    }
    const keys = Object.keys(value)
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!
      const child: JsonFrame = { value: (value as Record<string, unknown>)[key], depth: depth + 1, key, parent: frame }
      if (hasLoneSurrogate(key)) flag(child, key)
      stack.push(child)
    }
  }
  return out
}
