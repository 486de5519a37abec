/**
 * The placeholders of a tool's request: `{{name}}` stands for the argument `name` the LLM (or a
 * tool node, or a test run) passed. Pure functions; no expression language, no HTML escaping.
 */

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]{1,64})\s*\}\}/g
const WHOLE = /^\{\{\s*([A-Za-z0-9_.-]{1,64})\s*\}\}$/

/** The argument names a text refers to, in order of appearance. */
export function placeholders(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((m) => m[1]!)
}

/** The argument names referred to anywhere in a JSON value's strings. */
export function placeholdersIn(value: unknown): string[] {
  if (typeof value === 'string') return placeholders(value)
  if (Array.isArray(value)) return value.flatMap(placeholdersIn)
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(placeholdersIn)
  return []
}

/** An argument as text: strings as they are, other values as JSON, a missing one as ''. */
export function textOf(value: unknown): string {
  if (value === undefined || value === null) return ''
  return typeof value === 'string' ? value : JSON.stringify(value)
}

/** Replaces each placeholder with its argument's text, passed through `encode` (URL parts). */
export function renderText(text: string, args: Record<string, unknown>, encode: (s: string) => string = (s) => s): string {
  return text.replace(PLACEHOLDER, (_, name: string) => encode(textOf(args[name])))
}

/**
 * A JSON template filled in: a string that is one placeholder alone becomes the argument's value
 * with its type kept (a number stays a number; a missing one leaves the key out), any other string
 * has its placeholders replaced by text.
 */
export function renderJson(value: unknown, args: Record<string, unknown>): unknown {
  if (typeof value === 'string') {
    const whole = WHOLE.exec(value)
    return whole ? args[whole[1]!] : renderText(value, args)
  }
  if (Array.isArray(value)) return value.map((v) => renderJson(v, args) ?? null)
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderJson(v, args)]))
  return value
}
