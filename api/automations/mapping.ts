/**
 * An automation's action input, mapped from the event. The mapping has the action input's shape;
 * each string in it is a mustache template over `{ event, data }` (rendered by the graph runtime's
 * bounded renderer, nothing escaped), and an object `{ "$value": "data.structured_data" }` copies
 * the value at that path as it is (numbers, lists, objects; null when absent). Anything else is a
 * literal. It is rendered at each attempt, so fixing an automation and retrying a run uses the fix.
 */
import { z } from 'zod'
import { checkTemplate, renderTemplate } from '../../engine/graph-runtime/index.js'
import { FREE_FORM } from '../http/bounded-json.js'
import type { ActionDef } from '../integrations/action.js'
import { findIntegration } from '../integrations/catalog.js'
import { ROOTS, type Problem } from './filter.js'

export const VALUE_KEY = '$value'
const PATH = /^[A-Za-z0-9_-]{1,64}(\.[A-Za-z0-9_-]{1,64}){0,15}$/
/** Strings (templates) in one mapping: enough for any action's fields, a bound on render work. */
export const MAX_TEMPLATES = 200

type Mapped = { kind: 'value'; path: string } | { kind: 'template'; text: string }

function asValueRef(v: unknown): string | undefined {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined
  const keys = Object.keys(v)
  return keys.length === 1 && keys[0] === VALUE_KEY ? ((v as Record<string, unknown>)[VALUE_KEY] as string) : undefined
}

/** Problems of a mapping for one action of the catalog; paths are relative to the mapping. */
export function checkMapping(
  integrationKey: string,
  actionName: string,
  mapping: Record<string, unknown>,
): { integration?: Problem[]; action?: Problem[]; input: Problem[] } {
  const integration = findIntegration(integrationKey)
  if (!integration) return { integration: [{ path: [], msg: `There is no integration "${integrationKey}" (GET /api/v1/integrations lists them)` }], input: [] }
  const action = integration.actions.find((a) => a.name === actionName)
  if (!action) return { action: [{ path: [], msg: `Input should be ${integration.actions.map((a) => `'${a.name}'`).join(', ')}` }], input: [] }
  const input: Problem[] = []
  const fields = fieldsOf(action)
  for (const key of Object.keys(mapping)) if (!fields.known.has(key)) input.push({ path: [key], msg: `${integrationKey}.${actionName} has no field "${key}"` })
  for (const key of fields.required) if (!(key in mapping)) input.push({ path: [key], msg: 'Field required' })
  let templates = 0
  walk(mapping, [], (m, path) => {
    if (m.kind === 'value') {
      if (typeof m.path !== 'string' || !PATH.test(m.path)) input.push({ path, msg: 'A $value path is dotted names, e.g. data.structured_data.party_size' })
      else if (!ROOTS.has(m.path.split('.')[0]!)) input.push({ path, msg: `"${m.path}" is not in the event: start it with data. (the payload) or event` })
      return
    }
    if (++templates === MAX_TEMPLATES + 1) input.push({ path, msg: `A mapping may hold at most ${MAX_TEMPLATES} strings` })
    const t = checkTemplate(m.text)
    if (t.error) input.push({ path, msg: `Not a valid template: ${t.error}` })
    else for (const root of t.variables) if (!ROOTS.has(root)) input.push({ path, msg: `{{${root}}} is not in the event: read {{data.<field>}} or {{event}}` })
  })
  return { input }
}

/** Renders a mapping against an event; a template over its render budget gives an error, not a throw. */
export function renderMapping(
  mapping: Record<string, unknown>,
  view: Record<string, unknown>,
): { ok: true; input: Record<string, unknown> } | { ok: false; message: string } {
  try {
    const input = render(mapping, view) as Record<string, unknown>
    const bytes = Buffer.byteLength(JSON.stringify(input))
    if (bytes > FREE_FORM.actionInput.maxBytes)
      return { ok: false, message: `The rendered input is ${bytes} bytes, over the ${FREE_FORM.actionInput.maxBytes} allowed` }
    return { ok: true, input }
  } catch (err) {
    return { ok: false, message: (err as Error).message }
  }
}

function render(v: unknown, view: Record<string, unknown>): unknown {
  const ref = asValueRef(v)
  if (ref !== undefined) return lookup(view, ref)
  if (typeof v === 'string') return renderTemplate(v, view)
  if (Array.isArray(v)) return v.map((x) => render(x, view))
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, render(x, view)]))
  return v
}

/** The value at a dotted path, own properties only (as the template renderer reads); null when absent. */
function lookup(view: unknown, path: string): unknown {
  let value = view
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return null
    value = (value as Record<string, unknown>)[key]
  }
  return value === undefined ? null : value
}

/** Visits every template and $value reference; the mapping's depth is bounded by its schema. */
function walk(v: unknown, path: (string | number)[], visit: (m: Mapped, path: (string | number)[]) => void): void {
  const ref = asValueRef(v)
  if (ref !== undefined) return visit({ kind: 'value', path: ref }, path)
  if (typeof v === 'string') return visit({ kind: 'template', text: v }, path)
  if (Array.isArray(v)) return v.forEach((x, i) => walk(x, [...path, i], visit))
  if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, [...path, k], visit)
}

const FIELDS = new Map<ActionDef, { known: Set<string>; required: string[] }>()

/** The top-level fields an action's input takes, from its schema (as GET /integrations publishes it). */
function fieldsOf(action: ActionDef): { known: Set<string>; required: string[] } {
  let f = FIELDS.get(action)
  if (!f) {
    const schema = z.toJSONSchema(action.input, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, unknown>; required?: string[] }
    f = { known: new Set(Object.keys(schema.properties ?? {})), required: schema.required ?? [] }
    FIELDS.set(action, f)
  }
  return f
}
