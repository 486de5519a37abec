import { z } from 'zod'
import { ERRORS } from '../http/errors.js'
import type { AnyRoute } from '../http/route.js'

type Json = Record<string, unknown>
const COMPONENT = (id: string) => `#/components/schemas/${id}`
const OPTIONS = { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' } as const

export const ErrorResponse = z
  .object({
    error: z.object({
      code: z.enum(Object.keys(ERRORS) as [keyof typeof ERRORS, ...(keyof typeof ERRORS)[]]),
      message: z.string().describe("Human text in the request's Accept-Language (en or tr)."),
      request_id: z.string().describe('Also sent in the X-Request-ID response header.'),
    }),
  })
  .meta({ id: 'ErrorResponse' })

export const ValidationErrorEntry = z
  .object({
    type: z.string(),
    loc: z.array(z.union([z.string(), z.number().int()])),
    msg: z.string(),
    input: z.unknown().optional(),
    ctx: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'ValidationError' })

export const HTTPValidationError = z.object({ detail: z.array(ValidationErrorEntry) }).meta({ id: 'HTTPValidationError' })

/** Registered sub-schemas come back under `$defs`; point them at the shared components instead. */
function relink(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(relink)
  if (node === null || typeof node !== 'object') return node
  const out: Json = {}
  for (const [k, v] of Object.entries(node)) {
    if (k === '$schema' || k === '$id' || k === '$defs') continue
    if (k === '$ref' && typeof v === 'string' && v.startsWith('#/$defs/')) out.$ref = COMPONENT(v.slice(8))
    else out[k] = relink(v)
  }
  return out
}

function schemaOf(schema: z.ZodType): Json {
  const id = z.globalRegistry.get(schema)?.id
  if (id) return { $ref: COMPONENT(id) }
  return relink(z.toJSONSchema(schema, OPTIONS)) as Json
}

function parameters(where: 'path' | 'query' | 'header', schema: z.ZodObject | undefined): Json[] {
  if (!schema) return []
  const json = relink(z.toJSONSchema(schema, OPTIONS)) as { properties?: Json; required?: string[] }
  return Object.entries(json.properties ?? {}).map(([name, s]) => {
    const { description, ...rest } = s as Json
    return { name, in: where, required: where === 'path' || (json.required ?? []).includes(name), schema: rest, ...(description ? { description } : {}) }
  })
}

type ErrorCode = keyof typeof ERRORS

/** What a reader sees for one code: the body the API answers with, in English. */
export function errorExample(code: ErrorCode): Json {
  return { summary: code, value: { error: { code, message: ERRORS[code][1], request_id: '8c0f3b6e-2a51-4a8e-9f0e-3c7d9b1a2e4f' } } }
}

/** One response per status: its codes in the description, and one example body per code. */
function errorResponse(description: string, codes: readonly ErrorCode[]): Json {
  const examples = Object.fromEntries(codes.map((code) => [code, errorExample(code)]))
  return { description, content: { 'application/json': { schema: { $ref: COMPONENT('ErrorResponse') }, examples } } }
}

/** A 422 as the request parser reports it (FastAPI's shape), for a body missing a required field. */
const VALIDATION_EXAMPLE = { detail: [{ type: 'missing', loc: ['body', 'name'], msg: 'Field required' }] }

function operation(route: AnyRoute): Json {
  const responses: Json = {}
  responses[String(route.status)] = route.response
    ? { description: 'Success', content: { 'application/json': { schema: schemaOf(route.response) } } }
    : { description: 'Success (no body)' }
  // Each status's codes, and the notes its description adds to some of them.
  const byStatus = new Map<string, { codes: ErrorCode[]; notes: string[] }>()
  const add = (code: ErrorCode, note: string = code) => {
    const status = String(ERRORS[code][0])
    const entry = byStatus.get(status) ?? { codes: [], notes: [] }
    byStatus.set(status, entry)
    if (entry.codes.includes(code)) return
    entry.codes.push(code)
    entry.notes.push(note)
  }
  if (route.auth !== 'P') add('authentication_required')
  if (route.auth === 'S') add('user_session_required', 'user_session_required (an API key was used)')
  else if (route.permission) add('permission_denied', `permission_denied (needs ${route.permission})`)
  // Every route is throttled per client address; every body is size- and type-checked.
  const multipart = route.bodyEncoding === 'multipart'
  const raw = route.bodyEncoding === 'raw'
  const implicit: ErrorCode[] = route.body
    ? raw
      ? ['file_too_large', 'unsupported_media_type', 'rate_limited']
      : [...(multipart ? (['file_too_large'] as const) : []), 'payload_too_large', 'unsupported_media_type', 'rate_limited']
    : ['rate_limited']
  for (const code of [...implicit, ...(route.errors ?? [])]) add(code)
  for (const [status, { codes, notes }] of [...byStatus].sort(([a], [b]) => Number(a) - Number(b))) {
    responses[status] = errorResponse(notes.join('; '), codes)
  }
  responses['422'] = {
    description: 'Validation error',
    content: { 'application/json': { schema: { $ref: COMPONENT('HTTPValidationError') }, example: VALIDATION_EXAMPLE } },
  }
  const op: Json = {
    operationId: route.operationId,
    summary: route.summary,
    tags: [route.tag],
    security: route.auth === 'A' ? [{ BearerAuth: [] }, { ApiKeyAuth: [] }] : route.auth === 'S' ? [{ BearerAuth: [] }] : [],
    parameters: [...parameters('path', route.params), ...parameters('query', route.query), ...parameters('header', route.headers)],
    responses,
  }
  if (route.description) op.description = route.description
  if (route.permission) op['x-permission'] = route.permission
  if (route.body) {
    const media = raw ? (route.rawMediaTypes ?? []) : [multipart ? 'multipart/form-data' : 'application/json']
    const schema = schemaOf(route.body)
    op.requestBody = { required: !route.bodyOptional, content: Object.fromEntries(media.map((m) => [m, { schema }])) }
  }
  return op
}

/** The OpenAPI 3.1 document, generated from the same route objects the router mounts. */
export function buildOpenApi(routes: readonly AnyRoute[], serverUrl: string): Json {
  const components = z.toJSONSchema(z.globalRegistry, { ...OPTIONS, uri: COMPONENT }) as { schemas: Json }
  const paths: Record<string, Json> = {}
  for (const route of routes) (paths[route.path] ??= {})[route.method] = operation(route)
  return {
    openapi: '3.1.0',
    info: {
      title: 'Ozan API',
      version: '0.1.0',
      description: 'Build, run and operate voice AI agents. Errors use ErrorResponse; validation failures use HTTPValidationError.',
    },
    servers: [{ url: serverUrl }],
    paths,
    components: {
      schemas: relink(components.schemas),
      securitySchemes: {
        BearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Dashboard session access token.' },
        ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      },
    },
  }
}
