import type { Context } from 'koa'
import getRawBody from 'raw-body'
import type { z } from 'zod'
import { ApiError } from './errors.js'
import { ValidationError, toDetail, type DetailEntry, type Location } from './validation.js'
import type { AnyRoute } from './route.js'

export interface Parsed {
  body: unknown
  query: unknown
  params: unknown
  headers: unknown
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\b/i

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
    const position = Number(/position (\d+)/.exec((err as Error).message)?.[1] ?? 0)
    throw new ValidationError([
      { type: 'json_invalid', loc: ['body', position], msg: 'JSON decode error', input: {}, ctx: { error: (err as Error).message } },
    ])
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
function flatQuery(ctx: Context): Record<string, unknown> {
  return { ...ctx.query }
}

function lowerHeaders(ctx: Context): Record<string, string | string[] | undefined> {
  return ctx.headers
}

/** Validates every part of the request and reports all problems at once, as FastAPI does. */
export async function parseRequest(ctx: Context, route: AnyRoute, bodyLimit: number): Promise<Parsed> {
  const problems: DetailEntry[] = []
  const params = check('path', route.params, ctx.params ?? {}, problems)
  const query = check('query', route.query, flatQuery(ctx), problems)
  const headers = check('header', route.headers, lowerHeaders(ctx), problems)
  let body: unknown
  if (route.body) {
    const raw = await readJson(ctx, bodyLimit, route.bodyOptional === true)
    if (raw === undefined) {
      if (!route.bodyOptional) problems.push({ type: 'missing', loc: ['body'], msg: 'Field required' })
    } else {
      body = check('body', route.body, raw, problems)
    }
  }
  if (problems.length) throw new ValidationError(problems)
  return { body, query, params, headers }
}
