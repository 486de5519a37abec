import busboy from 'busboy'
import type { Context } from 'koa'
import { z } from 'zod'
import { ApiError } from './errors.js'

/** One file part of a multipart body, held in memory (never more than the upload limit). */
export class UploadedFile {
  constructor(
    readonly filename: string,
    /** As the client declared it; not trusted for anything but a hint. */
    readonly mimeType: string,
    readonly data: Buffer,
  ) {}
}

/** The zod type of a file field: an UploadedFile in, `string`/`binary` in the OpenAPI document. */
export const FileField = z
  .custom<UploadedFile>((v) => v instanceof UploadedFile, { error: (issue) => (issue.input === undefined ? 'Field required' : 'Expected a file') })
  .meta({ type: 'string', format: 'binary' })

export interface MultipartLimits {
  /** Largest file; one byte more → 413 file_too_large, refused while streaming. */
  fileBytes: number
  /** Budget for everything else in the body (text fields, part headers, boundaries). */
  otherBytes: number
}

const MULTIPART = /^multipart\/form-data\b/i
const FIELD_BYTES = 16 * 1024
const MAX_FIELDS = 16
/**
 * After a refusal the rest of the body is read and dropped, so a client that keeps sending still
 * gets the answer and its kept-alive connection stays usable; one still sending after this much
 * more has its connection closed (a refused upload must not cost unbounded bandwidth either).
 */
export const DRAIN_AFTER_REFUSAL_BYTES = 4 * 1024 * 1024

/** How long a refused upload's connection keeps being read (and dropped) after its half-close. */
const LINGER_MS = 2000

export function discardRest(ctx: Context): void {
  const req = ctx.req
  // A client that asked for Connection: close would otherwise have its socket torn down right
  // after the 413 while it is still sending, and the reset can swallow the answer. Keeping the
  // connection through the answer leaves the close to the graceful path below.
  if (!ctx.res.headersSent) ctx.res.shouldKeepAlive = true
  let dropped = 0
  let closing = false
  req.on('data', (chunk: Buffer) => {
    dropped += chunk.length
    if (dropped <= DRAIN_AFTER_REFUSAL_BYTES || closing) return
    // RFC 9112 §9.6: close gracefully. A full close while the client still sends makes its TCP
    // stack reset the connection, and a reset can discard the 413 before the client reads it.
    // So: half-close (FIN after the answer already written), keep reading and dropping for a
    // moment, then cut.
    closing = true
    req.socket.end()
    setTimeout(() => req.socket.destroy(), LINGER_MS).unref()
  })
  req.resume()
}

/**
 * Streams a multipart/form-data body through busboy: text fields become strings (an empty one is
 * absent, as browsers send untouched inputs), at most one file part becomes an UploadedFile.
 * Nothing beyond the limits is kept: the file limit is checked on every chunk, and the moment it
 * is crossed the parser is detached, the answer is 413 and the rest of the body is dropped.
 * Absent body → undefined.
 */
export function readMultipart(ctx: Context, limits: MultipartLimits): Promise<Record<string, unknown> | undefined> {
  const req = ctx.req
  const chunked = ctx.get('transfer-encoding') !== ''
  if (!chunked && !ctx.request.length) return Promise.resolve(undefined)
  if (!MULTIPART.test(ctx.get('content-type'))) return Promise.reject(new ApiError('unsupported_media_type', 'The request body must be multipart/form-data.'))
  let parser: busboy.Busboy
  try {
    parser = busboy({
      headers: req.headers,
      defParamCharset: 'utf8',
      limits: { fileSize: limits.fileBytes + 1, files: 1, fields: MAX_FIELDS, parts: MAX_FIELDS + 1, fieldSize: FIELD_BYTES },
    })
  } catch {
    return Promise.reject(new ApiError('bad_request', 'The multipart Content-Type has no usable boundary.'))
  }

  return new Promise((resolve, reject) => {
    const out: Record<string, unknown> = {}
    let settled = false
    let received = 0
    const fail = (err: ApiError) => {
      if (settled) return
      settled = true
      req.unpipe(parser)
      parser.removeAllListeners()
      parser.on('error', () => {}) // a half-fed parser may still complain; nobody is listening
      discardRest(ctx)
      reject(err)
    }
    const tooLarge = () => new ApiError('file_too_large', `The file is larger than ${limits.fileBytes} bytes.`)

    req.on('data', (chunk: Buffer) => {
      received += chunk.length
      if (received > limits.fileBytes + limits.otherBytes) fail(new ApiError('payload_too_large', 'The multipart body is larger than the file limit allows.'))
    })
    req.on('error', () => fail(new ApiError('bad_request', 'The request was aborted by the client.')))
    req.on('close', () => {
      if (!req.readableEnded) fail(new ApiError('bad_request', 'The request was aborted by the client.'))
    })

    parser.on('file', (name, stream, info) => {
      const chunks: Buffer[] = []
      let size = 0
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length
        chunks.push(chunk)
      })
      // busboy stops passing bytes at fileSize and says so with 'limit'.
      stream.on('limit', () => fail(tooLarge()))
      // A malformed body destroys the open file stream with the parser's error, reported below.
      stream.on('error', () => {})
      stream.on('end', () => {
        if (!stream.truncated && size <= limits.fileBytes) out[name] = new UploadedFile(info.filename ?? '', info.mimeType, Buffer.concat(chunks, size))
      })
    })
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) return fail(new ApiError('payload_too_large', `The form field "${name.slice(0, 100)}" is longer than ${FIELD_BYTES} bytes.`))
      if (value !== '') out[name] = value
    })
    parser.on('filesLimit', () => fail(new ApiError('bad_request', 'Send one file per upload.')))
    parser.on('fieldsLimit', () => fail(new ApiError('bad_request', `A form may have at most ${MAX_FIELDS} fields.`)))
    parser.on('partsLimit', () => fail(new ApiError('bad_request', `A form may have at most ${MAX_FIELDS + 1} parts.`)))
    // busboy's messages ("Unexpected end of form", "Malformed part header") describe the body only.
    parser.on('error', (err: Error) => fail(new ApiError('bad_request', `The multipart body is malformed: ${err.message}`)))
    parser.on('close', () => {
      if (settled) return
      settled = true
      resolve(out)
    })
    req.pipe(parser)
  })
}
