import type { z } from 'zod'

/** One entry of a 422 `detail[]`, shaped as FastAPI/pydantic report it. */
export interface DetailEntry {
  type: string
  loc: (string | number)[]
  msg: string
  input?: unknown
  ctx?: Record<string, unknown>
}

export type Location = 'body' | 'query' | 'path' | 'header'

/**
 * A 422 echoes at most this many characters of an offending string (issue #18: a 900 KB title
 * came back whole). Objects and arrays are not echoed at all.
 */
export const INPUT_PREVIEW_CHARS = 200

/** The echoed form of an input: a long string is cut, with a marker saying how long it was. */
export function inputPreview(input: unknown): unknown {
  if (typeof input !== 'string' || input.length <= INPUT_PREVIEW_CHARS) return input
  // Never end the preview on the first half of a surrogate pair.
  const end = /[\uD800-\uDBFF]/.test(input[INPUT_PREVIEW_CHARS - 1]!) ? INPUT_PREVIEW_CHARS - 1 : INPUT_PREVIEW_CHARS
  return `${input.slice(0, end)}…[truncated, ${input.length} characters]`
}

/** Thrown by the request parser; the error middleware turns it into 422 `{ detail }`. */
export class ValidationError extends Error {
  readonly detail: DetailEntry[]
  constructor(detail: DetailEntry[]) {
    super('validation failed')
    this.name = 'ValidationError'
    // Services build entries too: every echo is bounded here, whoever made the entry.
    this.detail = detail.map((d) => (d.input === undefined ? d : { ...d, input: inputPreview(d.input) }))
  }
}

// Field names whose values are never echoed back in `input`.
const SECRET_FIELD = /pass|secret|token|key|auth/i

function valueAt(root: unknown, path: PropertyKey[]): unknown {
  let v: unknown = root
  for (const p of path) {
    if (v === null || typeof v !== 'object') return undefined
    v = (v as Record<PropertyKey, unknown>)[p]
  }
  return v
}

function typeName(expected: string): string {
  const names: Record<string, string> = {
    string: 'string_type',
    number: 'float_type',
    int: 'int_type',
    boolean: 'bool_type',
    object: 'dict_type',
    array: 'list_type',
  }
  return names[expected] ?? `${expected}_type`
}

function describe(issue: z.core.$ZodIssue, input: unknown): Pick<DetailEntry, 'type' | 'msg' | 'ctx'> {
  switch (issue.code) {
    case 'invalid_type':
      if (input === undefined) return { type: 'missing', msg: 'Field required' }
      return { type: typeName(issue.expected), msg: `Input should be a valid ${issue.expected}` }
    case 'too_small': {
      const min = Number(issue.minimum)
      if (issue.origin === 'string')
        return { type: 'string_too_short', msg: `String should have at least ${min} character${min === 1 ? '' : 's'}`, ctx: { min_length: min } }
      if (issue.origin === 'array' || issue.origin === 'set')
        return { type: 'too_short', msg: `List should have at least ${min} item${min === 1 ? '' : 's'}`, ctx: { min_length: min } }
      return issue.inclusive
        ? { type: 'greater_than_equal', msg: `Input should be greater than or equal to ${min}`, ctx: { ge: min } }
        : { type: 'greater_than', msg: `Input should be greater than ${min}`, ctx: { gt: min } }
    }
    case 'too_big': {
      const max = Number(issue.maximum)
      if (issue.origin === 'string')
        return { type: 'string_too_long', msg: `String should have at most ${max} character${max === 1 ? '' : 's'}`, ctx: { max_length: max } }
      if (issue.origin === 'array' || issue.origin === 'set')
        return { type: 'too_long', msg: `List should have at most ${max} item${max === 1 ? '' : 's'}`, ctx: { max_length: max } }
      return issue.inclusive
        ? { type: 'less_than_equal', msg: `Input should be less than or equal to ${max}`, ctx: { le: max } }
        : { type: 'less_than', msg: `Input should be less than ${max}`, ctx: { lt: max } }
    }
    case 'invalid_format':
      if (issue.format === 'uuid' || issue.format.startsWith('uuid')) return { type: 'uuid_parsing', msg: 'Input should be a valid UUID' }
      if (issue.format === 'email') return { type: 'value_error', msg: 'value is not a valid email address' }
      if (issue.format === 'datetime') return { type: 'datetime_from_date_parsing', msg: 'Input should be a valid datetime' }
      return { type: 'string_pattern_mismatch', msg: issue.message, ctx: { pattern: issue.format } }
    case 'invalid_value':
      return {
        type: issue.values.length > 1 ? 'enum' : 'literal_error',
        msg: `Input should be ${issue.values.map((v) => `'${String(v)}'`).join(', ')}`,
        ctx: { expected: issue.values.map(String).join(', ') },
      }
    case 'unrecognized_keys':
      return { type: 'extra_forbidden', msg: 'Extra inputs are not permitted' }
    case 'not_multiple_of':
      return { type: 'multiple_of', msg: `Input should be a multiple of ${String(issue.divisor)}` }
    case 'invalid_union':
      return { type: 'union_error', msg: 'Input does not match any allowed shape' }
    case 'custom': {
      // A refinement may name its pydantic-style type and ctx (bounded JSON: json_too_deep …).
      const params = issue.params as { type?: unknown; ctx?: unknown } | undefined
      if (typeof params?.type === 'string')
        return {
          type: params.type,
          msg: issue.message,
          ...(params.ctx && typeof params.ctx === 'object' ? { ctx: params.ctx as Record<string, unknown> } : {}),
        }
      return { type: 'value_error', msg: issue.message }
    }
    default:
      return { type: 'value_error', msg: issue.message }
  }
}

/** Turns zod issues for one request part into FastAPI-style detail entries. */
export function toDetail(where: Location, error: z.ZodError, root: unknown): DetailEntry[] {
  const out: DetailEntry[] = []
  for (const issue of error.issues) {
    const path = issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))
    if (issue.code === 'unrecognized_keys') {
      for (const k of issue.keys) {
        const { type, msg } = describe(issue, undefined)
        out.push({ type, loc: [where, ...path, k], msg })
      }
      continue
    }
    const input = valueAt(root, issue.path)
    const { type, msg, ctx } = describe(issue, input)
    const entry: DetailEntry = { type, loc: [where, ...path], msg }
    const secret = path.some((p) => typeof p === 'string' && SECRET_FIELD.test(p))
    if (input !== undefined && !secret && (typeof input !== 'object' || input === null)) entry.input = input
    if (ctx !== undefined) entry.ctx = ctx
    out.push(entry)
  }
  return out
}
