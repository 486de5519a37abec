import type { Logger } from '../../core/index.js'
import { ApiError, errorBody, type Lang } from './errors.js'
import { ValidationError } from './validation.js'

/** What the API answers a failed request with: its status, extra headers and body. */
export interface ErrorAnswer {
  status: number
  headers: Record<string, string>
  body: unknown
}

function isClientHttpError(err: unknown): err is { status: number } {
  const status = (err as { status?: unknown; expose?: unknown })?.status
  return typeof status === 'number' && status >= 400 && status < 500 && (err as { expose?: unknown }).expose === true
}

/**
 * Maps any thrown error to the spec's shapes: 422 `{ detail }` for a ValidationError, else
 * `{ error: { code, message, request_id } }`; a 5xx never reveals internals. The HTTP error
 * middleware and the MCP endpoint both answer with it.
 */
export function errorAnswer(err: unknown, requestId: string, lang: Lang, logger: Logger): ErrorAnswer {
  if (err instanceof ValidationError) return { status: 422, headers: {}, body: { detail: err.detail } }
  let apiError: ApiError
  if (err instanceof ApiError) apiError = err
  else if (isClientHttpError(err)) apiError = new ApiError(err.status === 413 ? 'payload_too_large' : 'bad_request')
  else {
    logger.error({ request_id: requestId, err }, 'unhandled error')
    apiError = new ApiError('internal_error')
  }
  if (apiError.status >= 500 && err instanceof ApiError) logger.error({ request_id: requestId, code: apiError.code }, 'server error')
  return { status: apiError.status, headers: { ...apiError.headers }, body: errorBody(apiError.code, apiError.messageFor(lang), requestId) }
}
