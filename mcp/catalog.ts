import { z } from 'zod'
import type { AnyRoute } from '../api/index.js'
import type { OperationParts } from './host.js'
import type { ToolEntry } from './tools.js'

type Json = Record<string, unknown>

/** As the OpenAPI document converts the same schemas (api/openapi/document.ts): what a caller sends. */
const JSON_SCHEMA_OPTIONS = { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' } as const
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/

/** What tools/list says of a tool. */
export interface ToolDefinition {
  name: string
  title: string
  description: string
  inputSchema: { type: 'object'; properties: Json; required?: string[]; additionalProperties?: false; $defs?: Json }
  annotations: { title: string; readOnlyHint: boolean; destructiveHint?: boolean; idempotentHint?: boolean }
}

/**
 * How a tool's flat arguments map onto its operation's parts. Path and query parameters are
 * arguments by their names; a JSON object body's fields are arguments too, unless one shares a
 * parameter's name or the body is not an object (a union such as control_call's): then the whole
 * body is the one argument `body`.
 */
export interface Tool {
  definition: ToolDefinition
  route: AnyRoute
  paramKeys: ReadonlySet<string>
  queryKeys: ReadonlySet<string>
  body: 'none' | 'fields' | 'nested'
}

function keysOf(schema: z.ZodObject | undefined): Set<string> {
  return new Set(schema ? Object.keys(schema.shape) : [])
}

/** A schema as JSON Schema: its root (a registered schema's own `$defs` entry unwrapped) and its `$defs`. */
function jsonSchemaOf(schema: z.ZodType): { root: Json; defs: Json } {
  const { $defs, $schema: _, ...root } = z.toJSONSchema(schema, JSON_SCHEMA_OPTIONS) as Json
  const defs = ($defs ?? {}) as Json
  const ref = root.$ref
  if (typeof ref === 'string' && ref.startsWith('#/$defs/') && Object.keys(root).length === 1) return { root: defs[ref.slice(8)] as Json, defs }
  return { root, defs }
}

function mergeDefs(into: Json, defs: Json, operationId: string): void {
  for (const [id, def] of Object.entries(defs)) {
    if (id in into && JSON.stringify(into[id]) !== JSON.stringify(def)) throw new Error(`mcp: ${operationId}: two different schemas are both named ${id}`)
    into[id] = def
  }
}

function describe(route: AnyRoute): string {
  const summary = route.summary.trim()
  if (!route.description) return summary
  return `${summary}${/[.!?]$/.test(summary) ? '' : '.'} ${route.description.trim()}`
}

function titleOf(name: string): string {
  const words = name.replaceAll('_', ' ')
  return words.charAt(0).toUpperCase() + words.slice(1)
}

function toolOf(entry: ToolEntry, route: AnyRoute): Tool {
  const id = route.operationId
  if (route.auth === 'S') throw new Error(`mcp: ${id} needs a dashboard session; an API key cannot call it`)
  if (route.bodyEncoding && route.bodyEncoding !== 'json') throw new Error(`mcp: ${id} takes a ${route.bodyEncoding} body, not JSON arguments`)
  if (route.headers) throw new Error(`mcp: ${id} reads request headers; a tool has only arguments`)
  const properties: Json = {}
  const required: string[] = []
  const defs: Json = {}
  let closed = true
  // Path parameters are all required; query and body fields as their schema says, and none of a
  // body that may be left out whole.
  const add = (schema: z.ZodType, requires: 'all' | 'own' | 'none') => {
    const { root, defs: more } = jsonSchemaOf(schema)
    mergeDefs(defs, more, id)
    Object.assign(properties, root.properties ?? {})
    if (requires === 'all') required.push(...Object.keys((root.properties ?? {}) as Json))
    if (requires === 'own') required.push(...((root.required ?? []) as string[]))
    return root
  }
  if (route.params) add(route.params, 'all')
  if (route.query) add(route.query, 'own')
  const paramKeys = keysOf(route.params)
  const queryKeys = keysOf(route.query)
  let body: Tool['body'] = 'none'
  if (route.body) {
    const isObject = route.body._zod.def.type === 'object'
    const fields = isObject ? keysOf(route.body as z.ZodObject) : new Set<string>()
    body = isObject && ![...fields].some((k) => paramKeys.has(k) || queryKeys.has(k)) ? 'fields' : 'nested'
    if (body === 'fields') {
      const root = add(route.body, route.bodyOptional ? 'none' : 'own')
      // A body that keeps unknown fields (most strip them, as REST does) leaves the arguments open.
      closed = root.additionalProperties === false
    } else {
      const { root, defs: more } = jsonSchemaOf(route.body)
      mergeDefs(defs, more, id)
      properties.body = root
      if (!route.bodyOptional) required.push('body')
    }
  }
  const readOnly = route.method === 'get' || route.audit === 'none'
  const title = titleOf(entry.name)
  return {
    route,
    paramKeys,
    queryKeys,
    body,
    definition: {
      name: entry.name,
      title,
      description: entry.description ?? describe(route),
      inputSchema: {
        type: 'object',
        properties,
        ...(required.length ? { required: [...new Set(required)] } : {}),
        ...(closed ? { additionalProperties: false as const } : {}),
        ...(Object.keys(defs).length ? { $defs: defs } : {}),
      },
      annotations: readOnly
        ? { title, readOnlyHint: true }
        : { title, readOnlyHint: false, destructiveHint: route.method === 'delete', idempotentHint: route.method === 'put' || route.method === 'delete' },
    },
  }
}

/** The tools of the table over the route table; a table naming what the routes cannot serve fails at start-up. */
export function buildCatalog(routes: readonly AnyRoute[], entries: readonly ToolEntry[]): ReadonlyMap<string, Tool> {
  const byOperation = new Map(routes.map((r) => [r.operationId, r]))
  const tools = new Map<string, Tool>()
  for (const entry of entries) {
    const route = byOperation.get(entry.operationId)
    if (!route) throw new Error(`mcp: the tool ${entry.name} names the operation ${entry.operationId}, which no route has`)
    if (!TOOL_NAME.test(entry.name)) throw new Error(`mcp: ${entry.name} is not a valid tool name`)
    if (tools.has(entry.name)) throw new Error(`mcp: two tools are named ${entry.name}`)
    tools.set(entry.name, toolOf(entry, route))
  }
  return tools
}

/** A path or query value as a URL carries it: text (a number or boolean the way it would be written). */
function urlValue(value: unknown): unknown {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  if (Array.isArray(value)) return value.map(urlValue)
  return value
}

/**
 * A tool's arguments as its operation's parts. Path and query values become text as in a URL, so
 * the operation's schemas read them as they read REST's. An argument the tool does not declare
 * is passed as a query parameter: the operation ignores it as REST ignores an unknown one.
 */
export function partsOf(tool: Tool, args: Record<string, unknown>): OperationParts {
  const parts: OperationParts = { params: {}, query: {}, body: undefined }
  const fields: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(args)) {
    if (tool.paramKeys.has(name)) {
      if (value !== null) parts.params[name] = urlValue(value)
    } else if (tool.queryKeys.has(name)) {
      if (value !== null) parts.query[name] = urlValue(value)
    } else if (tool.body === 'nested' && name === 'body') parts.body = value
    else if (tool.body === 'fields') fields[name] = value
    else parts.query[name] = urlValue(value)
  }
  if (tool.body === 'fields' && (Object.keys(fields).length > 0 || !tool.route.bodyOptional)) parts.body = fields
  return parts
}

/** The REST path and query the call stands for (a paged list's Link names its next page with it). */
export function operationUrl(route: AnyRoute, parts: OperationParts): string {
  const path = route.path.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const value = parts.params[name]
    return typeof value === 'string' ? encodeURIComponent(value) : whole
  })
  const search = new URLSearchParams()
  for (const [name, value] of Object.entries(parts.query)) {
    for (const v of Array.isArray(value) ? value : [value]) if (typeof v === 'string') search.append(name, v)
  }
  const query = search.toString()
  return query ? `${path}?${query}` : path
}
