import { randomUUID } from 'node:crypto'
import type { Context, Next } from 'koa'
import type Router from '@koa/router'
import type { Logger } from '../../core/index.js'
import { ApiError, errorBody, type Lang } from './errors.js'
import { pickLanguage } from './language.js'
import { ValidationError } from './validation.js'

declare module 'koa' {
  interface DefaultState {
    requestId: string
    lang: Lang
  }
}

const SANE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/

/**
 * Outermost middleware: request id, language, one structured log line per request. Only the
 * method, the path (never the query string) and the outcome are logged.
 */
export function requestContext(logger: Logger, onDone?: (ctx: Context, durationMs: number) => void) {
  return async (ctx: Context, next: Next) => {
    const started = performance.now()
    const incoming = ctx.get('x-request-id')
    const requestId = SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID()
    ctx.state.requestId = requestId
    ctx.state.lang = pickLanguage(ctx.get('accept-language') || undefined)
    ctx.set('X-Request-ID', requestId)
    try {
      await next()
    } finally {
      const durationMs = Math.round((performance.now() - started) * 100) / 100
      if (logger.isLevelEnabled('info')) {
        logger.info({ request_id: requestId, method: ctx.method, path: ctx.path, status: ctx.status, duration_ms: durationMs }, 'request')
      }
      onDone?.(ctx, durationMs)
    }
  }
}

/** Maps every thrown error to the spec's shapes; 5xx never reveal internals. */
export function errorHandler(logger: Logger) {
  return async (ctx: Context, next: Next) => {
    try {
      await next()
    } catch (err) {
      const { requestId, lang } = ctx.state
      if (err instanceof ValidationError) {
        ctx.status = 422
        ctx.body = { detail: err.detail }
        return
      }
      let apiError: ApiError
      if (err instanceof ApiError) apiError = err
      else if (isClientHttpError(err)) apiError = new ApiError(err.status === 413 ? 'payload_too_large' : 'bad_request')
      else {
        logger.error({ request_id: requestId, err }, 'unhandled error')
        apiError = new ApiError('internal_error')
      }
      if (apiError.status >= 500 && err instanceof ApiError) logger.error({ request_id: requestId, code: apiError.code }, 'server error')
      ctx.status = apiError.status
      for (const [name, value] of Object.entries(apiError.headers)) ctx.set(name, value)
      ctx.body = errorBody(apiError.code, apiError.messageFor(lang), requestId)
    }
  }
}

function isClientHttpError(err: unknown): err is { status: number } {
  const status = (err as { status?: unknown; expose?: unknown })?.status
  return typeof status === 'number' && status >= 400 && status < 500 && (err as { expose?: unknown }).expose === true
}

/**
 * Runs when no route took the request: 405 with Allow when the path exists under another
 * method, else 404. Both use FastAPI's `{ detail }` shape, as the spec says.
 */
export function unmatched(router: Router) {
  return async (ctx: Context) => {
    const match = router.match(ctx.path, ctx.method)
    const methods = new Set(match.path.flatMap((layer) => layer.methods))
    if (methods.size === 0) {
      ctx.status = 404
      ctx.body = { detail: 'Not Found' }
      return
    }
    ctx.set('Allow', [...methods].join(', '))
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204
      return
    }
    ctx.status = 405
    ctx.body = { detail: 'Method Not Allowed' }
  }
}
