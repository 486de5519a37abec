import type { Context } from 'koa'
import { z } from 'zod'
import { ApiError } from './errors.js'
import { discardRest } from './multipart.js'

/** The body of a 'raw' route (route.ts `bodyEncoding: 'raw'`): bytes and their declared type. */
export class RawBody {
  constructor(
    /** The Content-Type's media type, lower case, without parameters (`audio/pcm`). */
    readonly mediaType: string,
    /** The Content-Type's parameters, names lower case (`{ rate: '16000' }`). */
    readonly params: Readonly<Record<string, string>>,
    readonly data: Buffer,
  ) {}
}

/** The zod type of a raw body: a RawBody in, `string`/`binary` in the OpenAPI document. */
export const RawBodyField = z
  .custom<RawBody>((v) => v instanceof RawBody, { error: (issue) => (issue.input === undefined ? 'Field required' : 'Expected a request body') })
  .meta({ type: 'string', format: 'binary' })

/** `audio/pcm; rate=16000` → `audio/pcm` and `{ rate: '16000' }`; quoted values unquoted. */
export function parseContentType(value: string): { mediaType: string; params: Record<string, string> } {
  const [type = '', ...rest] = value.split(';')
  const params: Record<string, string> = {}
  for (const part of rest) {
    const eq = part.indexOf('=')
    if (eq < 0) continue
    const name = part.slice(0, eq).trim().toLowerCase()
    let v = part.slice(eq + 1).trim()
    if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) v = v.slice(1, -1)
    if (name) params[name] = v
  }
  return { mediaType: type.trim().toLowerCase(), params }
}

/**
 * Reads the body as bytes when its Content-Type is one of `mediaTypes` (else 415), holding at most
 * `limit` bytes: a declared Content-Length over it, or the first chunk that crosses it while
 * streaming, is answered 413 file_too_large and the rest is dropped unread into memory (as a
 * multipart upload's file is). Absent body → undefined.
 */
export function readRaw(ctx: Context, mediaTypes: readonly string[], limit: number): Promise<RawBody | undefined> {
  const req = ctx.req
  const chunked = ctx.get('transfer-encoding') !== ''
  const length = ctx.request.length
  if (!chunked && !length) return Promise.resolve(undefined)
  const { mediaType, params } = parseContentType(ctx.get('content-type'))
  if (!mediaTypes.includes(mediaType)) {
    discardRest(ctx)
    return Promise.reject(new ApiError('unsupported_media_type', `The request body must be one of: ${mediaTypes.join(', ')}.`))
  }
  const tooLarge = () => new ApiError('file_too_large', `The request body is larger than ${limit} bytes.`)
  if (!chunked && length !== undefined && length > limit) {
    discardRest(ctx)
    return Promise.reject(tooLarge())
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    let settled = false
    const detach = () => {
      req.off('data', onData)
      req.off('end', onEnd)
      req.off('error', onAbort)
      req.off('close', onClose)
    }
    const fail = (err: ApiError) => {
      if (settled) return
      settled = true
      detach()
      chunks.length = 0
      discardRest(ctx)
      reject(err)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) return fail(tooLarge())
      chunks.push(chunk)
    }
    const onEnd = () => {
      if (settled) return
      settled = true
      detach()
      resolve(new RawBody(mediaType, params, Buffer.concat(chunks, size)))
    }
    const onAbort = () => fail(new ApiError('bad_request', 'The request was aborted by the client.'))
    const onClose = () => {
      if (!req.readableEnded) onAbort()
    }
    req.on('data', onData)
    req.on('end', onEnd)
    req.on('error', onAbort)
    req.on('close', onClose)
  })
}
