import type { Context } from 'koa'
import getRawBody from 'raw-body'
import type { z } from 'zod'
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
  let text: string
  try {
    text = await getRawBody(ctx.req, { limit, length: chunked ? undefined : length, encoding: 'utf8' })
  } catch (err) {
    // raw-body pauses the request on error; Node then neither reads the rest nor parses the next
    // request on a kept-alive connection, which hangs until a timeout. Discard the rest instead.
    ctx.req.resume()
    const e = err as { type?: string; status?: number }
    if (e.type === 'entity.too.large') throw new ApiError('payload_too_large', `The request body is larger than ${limit} bytes.`)
    if (e.type === 'request.aborted') throw new ApiError('bad_request', 'The request was aborted by the client.')
    throw new ApiError('bad_request', 'The request body could not be read.')
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
    } else {
      body = check('body', route.body, raw, problems)
    }
  }
  if (problems.length) throw new ValidationError(problems)
  return { body, query, params, headers }
}
