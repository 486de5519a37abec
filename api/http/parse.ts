import type { Context } from 'koa'
import getRawBody from 'raw-body'
import type { z } from 'zod'
import { BODY_MAX_DEPTH, scanBody } from './bounded-json.js'
import { ApiError } from './errors.js'
import { readMultipart } from './multipart.js'
import { readRaw } from './raw.js'
import { ValidationError, toDetail, type DetailEntry, type Location } from './validation.js'
import type { AnyRoute } from './route.js'

export interface Parsed {
  body: unknown
  query: unknown
  params: unknown
  headers: unknown
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\b/i
// V8 quotes a slice of the input in some JSON.parse messages, and that slice may be a password;
// only the messages that carry nothing but a position are passed on.
const SAFE_JSON_REASON = /^(?:[^"]* in JSON at position \d+(?: \(line \d+ column \d+\))?|Unexpected end of JSON input)$/
// JSON text is UTF-8 (RFC 8259 §8.1): bytes that are not are refused, not stored as U+FFFD.
const UTF8 = new TextDecoder('utf-8', { fatal: true })

/** Byte offset of the first byte sequence that is not UTF-8 (the body is known to hold one). */
function invalidUtf8Offset(bytes: Buffer): number {
  const lossy = bytes.toString('utf8')
  let offset = 0
  let from = 0
  for (let i = lossy.indexOf('\uFFFD'); i >= 0; i = lossy.indexOf('\uFFFD', i + 1)) {
    offset += Buffer.byteLength(lossy.slice(from, i))
    from = i
    // A U+FFFD the sender really wrote is EF BF BD in the body; a replacement is not.
    if (!(bytes[offset] === 0xef && bytes[offset + 1] === 0xbf && bytes[offset + 2] === 0xbd)) return offset
  }
  return 0
}

/**
 * Reads at most `limit` bytes; a longer body is refused while streaming, without buffering it.
 * Absent body (no Content-Length and no chunks) reads as undefined.
 */
async function readJson(ctx: Context, limit: number, optional: boolean): Promise<unknown> {
  const length = ctx.request.length
  const chunked = ctx.get('transfer-encoding') !== ''
  if (!chunked && (length === undefined || length === 0)) return undefined
  if (!JSON_TYPE.test(ctx.get('content-type'))) {
    throw new ApiError('unsupported_media_type')
  }
  let bytes: Buffer
  try {
    bytes = await getRawBody(ctx.req, { limit, length: chunked ? undefined : length })
  } catch (err) {
    // raw-body pauses the request on error; Node then neither reads the rest nor parses the next
    // request on a kept-alive connection, which hangs until a timeout. Discard the rest instead.
    ctx.req.resume()
    const e = err as { type?: string; status?: number }
    if (e.type === 'entity.too.large') throw new ApiError('payload_too_large', `The request body is larger than ${limit} bytes.`)
    if (e.type === 'request.aborted') throw new ApiError('bad_request', 'The request was aborted by the client.')
    throw new ApiError('bad_request', 'The request body could not be read.')
  }
  let text: string
  try {
    text = UTF8.decode(bytes)
  } catch {
    const position = invalidUtf8Offset(bytes)
    throw new ValidationError([
      { type: 'json_invalid', loc: ['body', position], msg: 'JSON decode error', input: {}, ctx: { error: `Invalid UTF-8 at byte ${position}` } },
    ])
  }
  if (text.trim() === '') return undefined
  try {
    const value: unknown = JSON.parse(text)
    return value === null && optional ? undefined : value
  } catch (err) {
    const reason = (err as Error).message
    const position = Number(/position (\d+)/.exec(reason)?.[1] ?? 0)
    const error = SAFE_JSON_REASON.test(reason) ? reason : 'Invalid JSON'
    throw new ValidationError([{ type: 'json_invalid', loc: ['body', position], msg: 'JSON decode error', input: {}, ctx: { error } }])
  }
}

function check(where: Location, schema: z.ZodType | undefined, value: unknown, problems: DetailEntry[]): unknown {
  if (!schema) return undefined
  const result = schema.safeParse(value)
  if (result.success) return result.data
  problems.push(...toDetail(where, result.error, value))
  return undefined
}

/**
 * A JSON body's schema check, plus what holds for every JSON body whatever its schema: no lone
 * UTF-16 surrogate in any string (JSON.parse makes one of "\\ud800"; storing it would turn it into
 * U+FFFD), and no nesting past BODY_MAX_DEPTH (a field no schema bounded). The schema runs first so
 * a bounded field reports its own 422 at the field; it only walks as deep as the schema is (a
 * free-form field is not descended into), and one that still overflows the stack on a too-deep
 * body is answered by the depth entry instead of a 500.
 */
function checkJsonBody(schema: z.ZodType, raw: unknown, problems: DetailEntry[]): unknown {
  const scan = scanBody(raw)
  const found: DetailEntry[] = []
  let body: unknown
  try {
    body = check('body', schema, raw, found)
  } catch (err) {
    if (scan.tooDeepAt === null || !(err instanceof RangeError)) throw err
  }
  problems.push(...found)
  for (const { path, value } of scan.loneSurrogates)
    problems.push({ type: 'string_unicode', loc: ['body', ...path], msg: 'String should not hold an unpaired UTF-16 surrogate', input: value })
  const deep = scan.tooDeepAt
  // A field the schema already refused (its own json_too_deep, or any other entry) says enough.
  const reported = deep !== null && found.some((d) => d.loc.slice(1).every((p, i) => deep[i] === p))
  if (deep !== null && !reported)
    problems.push({
      type: 'json_too_deep',
      loc: ['body', ...deep],
      msg: `JSON may nest at most ${BODY_MAX_DEPTH} levels of objects and arrays`,
      ctx: { max_depth: BODY_MAX_DEPTH },
    })
  return body
}

/** Query values as strings; a repeated key keeps its last value unless the schema wants an array. */
function flatQuery(ctx: Context, schema: AnyRoute['query']): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(ctx.query)) {
    out[key] = Array.isArray(value) && !wantsArray(schema?.shape[key]) ? value.at(-1) : value
  }
  return out
}

function wantsArray(schema: z.ZodType | undefined): boolean {
  let def = schema?._zod.def
  while (def && 'innerType' in def) def = (def.innerType as z.ZodType)._zod.def
  return def?.type === 'array'
}

function lowerHeaders(ctx: Context): Record<string, string | string[] | undefined> {
  return ctx.headers
}

/**
 * Validates every part of the request and reports all problems at once, as FastAPI does.
 * `uploadLimit` bounds the file of a multipart route (its other parts share `bodyLimit`) and the
 * body of a raw one.
 */
export async function parseRequest(ctx: Context, route: AnyRoute, bodyLimit: number, uploadLimit = bodyLimit): Promise<Parsed> {
  const problems: DetailEntry[] = []
  const params = check('path', route.params, ctx.params ?? {}, problems)
  // Routes without a query or header schema skip copying them (a measurable cost per request).
  const query = route.query ? check('query', route.query, flatQuery(ctx, route.query), problems) : undefined
  const headers = route.headers ? check('header', route.headers, lowerHeaders(ctx), problems) : undefined
  let body: unknown
  if (route.body) {
    const raw =
      route.bodyEncoding === 'multipart'
        ? await readMultipart(ctx, { fileBytes: uploadLimit, otherBytes: bodyLimit })
        : route.bodyEncoding === 'raw'
          ? await readRaw(ctx, route.rawMediaTypes ?? [], uploadLimit)
          : await readJson(ctx, bodyLimit, route.bodyOptional === true)
    if (raw === undefined) {
      if (!route.bodyOptional) problems.push({ type: 'missing', loc: ['body'], msg: 'Field required' })
    } else if (route.bodyEncoding === 'multipart' || route.bodyEncoding === 'raw') {
      body = check('body', route.body, raw, problems)
    } else {
      body = checkJsonBody(route.body, raw, problems)
    }
  }
  if (problems.length) throw new ValidationError(problems)
  return { body, query, params, headers }
}

/** A request's parts as values, for a carrier that is not an HTTP request of its own (the MCP endpoint's tool arguments). */
export interface PartValues {
  params: Record<string, unknown>
  query: Record<string, unknown>
  /** undefined: no body was given. */
  body: unknown
}

/**
 * The same checks as parseRequest, on parts that arrive as values rather than on the wire: each
 * against the route's schema, a JSON body also bounded in depth and surrogates, every problem at once.
 */
export function parseValues(route: AnyRoute, parts: PartValues): Parsed {
  const problems: DetailEntry[] = []
  const params = check('path', route.params, parts.params, problems)
  const query = route.query ? check('query', route.query, parts.query, problems) : undefined
  let body: unknown
  if (route.body) {
    const raw = parts.body === null && route.bodyOptional ? undefined : parts.body
    if (raw === undefined) {
      if (!route.bodyOptional) problems.push({ type: 'missing', loc: ['body'], msg: 'Field required' })
    } else body = checkJsonBody(route.body, raw, problems)
  }
  if (problems.length) throw new ValidationError(problems)
  return { body, query, params, headers: undefined }
}
