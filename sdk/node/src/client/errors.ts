import type { components } from '../generated/openapi.js'

/** The codes the API documents in ErrorResponse (generated), open to codes a newer server adds. */
export type ApiErrorCode = components['schemas']['ErrorResponse']['error']['code']
export type ValidationErrorEntry = components['schemas']['ValidationError']

/**
 * Codes the client gives to answers that carry no `error.code`: a 422 (`detail[]`), the router's
 * `{detail: 'Not Found' | 'Method Not Allowed'}`, and a body that is not the API's (a proxy's page).
 */
export type ClientErrorCode = 'validation_error' | 'not_found' | 'method_not_allowed' | 'http_error'

/** A non-2xx answer from the API. */
export class OzanApiError extends Error {
  /** The API's `error.code`, or one of the client's codes above. */
  readonly code: ApiErrorCode | ClientErrorCode | (string & {})
  readonly status: number
  /** The API's request id (error.request_id, else the X-Request-ID header); quote it when reporting a problem. */
  readonly request_id: string | null
  /** The 422 entries, one per problem: where (`loc`), what (`type`), and the message (`msg`). */
  readonly detail: ValidationErrorEntry[] | undefined
  /** Seconds the server asked to wait (429, 503), when it said. */
  readonly retryAfterS: number | undefined
  readonly method: string
  /** The path template the call named. */
  readonly path: string
  /** The parsed body, or its text when it was not JSON. */
  readonly body: unknown

  constructor(o: {
    code: OzanApiError['code']
    message: string
    status: number
    request_id: string | null
    detail?: ValidationErrorEntry[]
    retryAfterS?: number
    method: string
    path: string
    body: unknown
  }) {
    super(o.message)
    this.name = 'OzanApiError'
    this.code = o.code
    this.status = o.status
    this.request_id = o.request_id
    this.detail = o.detail
    this.retryAfterS = o.retryAfterS
    this.method = o.method
    this.path = o.path
    this.body = o.body
  }
}

/** No answer: the connection failed or the per-attempt timeout passed, on every attempt allowed. */
export class OzanConnectionError extends Error {
  readonly method: string
  readonly path: string
  readonly timedOut: boolean

  constructor(o: { method: string; path: string; timedOut: boolean; cause: unknown }) {
    super(`${o.method} ${o.path}: ${o.timedOut ? 'no answer within the timeout' : 'the request failed before an answer'}`, { cause: o.cause })
    this.name = 'OzanConnectionError'
    this.method = o.method
    this.path = o.path
    this.timedOut = o.timedOut
  }
}

const MAX_SHOWN = 3

/** The OzanApiError for one non-2xx answer. `body` is parsed JSON, or the text when it was not JSON. */
export function apiErrorFrom(status: number, headers: Headers, body: unknown, method: string, path: string): OzanApiError {
  const headerId = headers.get('x-request-id')
  const retryAfter = headers.get('retry-after')
  const retryAfterS = retryAfter && /^\d+$/.test(retryAfter.trim()) ? Number(retryAfter.trim()) : undefined
  const base = { status, method, path, body, retryAfterS, request_id: headerId }
  const error = (body as { error?: unknown } | null)?.error
  if (isRecord(error) && typeof error.code === 'string') {
    const message = typeof error.message === 'string' ? error.message : `HTTP ${status}`
    return new OzanApiError({ ...base, code: error.code, message, request_id: typeof error.request_id === 'string' ? error.request_id : headerId })
  }
  const detail = (body as { detail?: unknown } | null)?.detail
  if (Array.isArray(detail)) {
    const entries = detail.filter(isRecord) as ValidationErrorEntry[]
    const shown = entries.slice(0, MAX_SHOWN).map((d) => `${Array.isArray(d.loc) ? d.loc.join('.') : '?'}: ${String(d.msg)}`)
    const more = entries.length > MAX_SHOWN ? ` (and ${entries.length - MAX_SHOWN} more)` : ''
    return new OzanApiError({ ...base, code: 'validation_error', message: `Validation failed: ${shown.join('; ')}${more}`, detail: entries })
  }
  if (typeof detail === 'string' && (status === 404 || status === 405)) {
    return new OzanApiError({ ...base, code: status === 404 ? 'not_found' : 'method_not_allowed', message: detail })
  }
  return new OzanApiError({ ...base, code: 'http_error', message: `HTTP ${status} from ${method} ${path}` })
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}
