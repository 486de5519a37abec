import { z } from 'zod'

/**
 * Bounds on free-form JSON (variable defaults, expressions, session variables, action inputs, …).
 * V8's JSON.stringify and structuredClone recurse: a value nested a few thousand levels deep
 * overflows the stack wherever it is stored or copied (issue #18: 2,000 levels broke every run of
 * the agent, 20,000 broke the save). So depth is bounded where the value enters, and every walk
 * here is iterative (an explicit stack), never recursive.
 */

/** Containers inside one free-form value: a scalar is 0 deep, `{}` and `[]` are 1, `{"a":[]}` is 2. */
export const MAX_JSON_DEPTH = 32

export interface JsonBounds {
  maxDepth: number
  /** Size of the value written as compact JSON (JSON.stringify without spaces), in UTF-8 bytes. */
  maxBytes: number
}

export type JsonExcess = { kind: 'depth'; maxDepth: number; path: (string | number)[] } | { kind: 'bytes'; maxBytes: number }

const utf8Bytes = (s: string): number => Buffer.byteLength(s)

/** Compact-JSON size of a string, quotes and escapes included (the stringified string is flat). */
function stringBytes(s: string): number {
  return utf8Bytes(JSON.stringify(s))
}

function scalarBytes(v: unknown): number {
  if (typeof v === 'string') return stringBytes(v)
  if (typeof v === 'number') return Number.isFinite(v) ? String(v).length : 4
  if (typeof v === 'boolean') return v ? 4 : 5
  if (v === null || v === undefined) return 4
  // Not a JSON value (a bigint, a function …): counted by its text, an upper bound is enough here.
  return utf8Bytes(String(v)) + 2
}

/** A value still to visit; its path is kept as a link to its parent (copying paths is quadratic in depth). */
export interface Frame {
  value: unknown
  depth: number
  key: string | number | null
  parent: Frame | null
}

/** The keys from the root down to a frame. */
export function pathOf(frame: Frame): (string | number)[] {
  const path: (string | number)[] = []
  for (let f: Frame | null = frame; f && f.key !== null; f = f.parent) path.push(f.key)
  return path.reverse()
}

/**
 * The first bound a value breaks, or null. Stops as soon as it knows: the work is at most
 * proportional to `maxBytes` (every member costs at least one byte of JSON).
 */
export function jsonExcess(value: unknown, bounds: JsonBounds): JsonExcess | null {
  let bytes = 0
  const stack: Frame[] = [{ value, depth: 0, key: null, parent: null }]
  while (stack.length) {
    const frame = stack.pop()!
    const { value: v, depth } = frame
    if (v === null || typeof v !== 'object') {
      // A string longer than the budget in UTF-16 units is over it in bytes too (each unit ≥ 1 byte).
      if (typeof v === 'string' && v.length > bounds.maxBytes) return { kind: 'bytes', maxBytes: bounds.maxBytes }
      bytes += scalarBytes(v)
    } else {
      if (depth + 1 > bounds.maxDepth) return { kind: 'depth', maxDepth: bounds.maxDepth, path: pathOf(frame) }
      if (Array.isArray(v)) {
        bytes += 2 + Math.max(0, v.length - 1)
        if (bytes > bounds.maxBytes) return { kind: 'bytes', maxBytes: bounds.maxBytes }
        for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], depth: depth + 1, key: i, parent: frame })
      } else {
        const keys = Object.keys(v).filter((k) => (v as Record<string, unknown>)[k] !== undefined)
        bytes += 2 + Math.max(0, keys.length - 1)
        for (let i = keys.length - 1; i >= 0; i--) {
          const key = keys[i]!
          if (key.length > bounds.maxBytes) return { kind: 'bytes', maxBytes: bounds.maxBytes }
          bytes += stringBytes(key) + 1
          if (bytes > bounds.maxBytes) return { kind: 'bytes', maxBytes: bounds.maxBytes }
          stack.push({ value: (v as Record<string, unknown>)[key], depth: depth + 1, key, parent: frame })
        }
      }
    }
    if (bytes > bounds.maxBytes) return { kind: 'bytes', maxBytes: bounds.maxBytes }
  }
  return null
}

/** Human text for an excess, as the 422 `msg` says it. */
export function describeExcess(e: JsonExcess): { type: string; msg: string; ctx: Record<string, number> } {
  return e.kind === 'depth'
    ? { type: 'json_too_deep', msg: `JSON may nest at most ${e.maxDepth} levels of objects and arrays`, ctx: { max_depth: e.maxDepth } }
    : { type: 'json_too_large', msg: `JSON may be at most ${e.maxBytes} bytes`, ctx: { max_bytes: e.maxBytes } }
}

/**
 * A copy of a JSON value, made iteratively (structuredClone recurses and overflows the stack near
 * a few thousand levels). undefined members are dropped, as JSON drops them.
 */
export function cloneJson<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value
  const rootCopy: unknown = Array.isArray(value) ? [] : {}
  const stack: { from: object; to: Record<string | number, unknown> }[] = [{ from: value, to: rootCopy as Record<string, unknown> }]
  while (stack.length) {
    const { from, to } = stack.pop()!
    const entries: [string | number, unknown][] = Array.isArray(from) ? from.map((v, i) => [i, v]) : Object.entries(from)
    for (const [k, v] of entries) {
      if (v === undefined && !Array.isArray(from)) continue
      const copy: unknown = v === null || typeof v !== 'object' ? v : Array.isArray(v) ? [] : {}
      // defineProperty: an own "__proto__" key (JSON.parse makes one) stays a key, not a prototype.
      Object.defineProperty(to, k, { value: copy, writable: true, enumerable: true, configurable: true })
      if (v !== null && typeof v === 'object') stack.push({ from: v, to: copy as Record<string, unknown> })
    }
  }
  return rootCopy as T
}

/**
 * Any JSON value within `bounds`; a value beyond them is a 422 at the field (type json_too_deep or
 * json_too_large, read by the API's validation mapper from the issue's params).
 */
export function boundedJson(bounds: JsonBounds) {
  return z.unknown().superRefine((value, ctx) => addExcess(value, bounds, ctx))
}

/** A JSON object (string keys, any values) within `bounds`. */
export function boundedJsonObject(bounds: JsonBounds) {
  return z.record(z.string(), z.unknown()).superRefine((value, ctx) => addExcess(value, bounds, ctx))
}

function addExcess(value: unknown, bounds: JsonBounds, ctx: z.RefinementCtx): void {
  const excess = jsonExcess(value, bounds)
  if (!excess) return
  const { type, msg, ctx: details } = describeExcess(excess)
  ctx.addIssue({ code: 'custom', message: msg, params: { type, ctx: details } })
}
