import { randomUUID } from 'node:crypto'
import type { Context, Next } from 'koa'
import type Router from '@koa/router'
import type { Logger } from '../../core/index.js'
import { errorAnswer } from './error-answer.js'
import type { Lang } from './errors.js'
import { pickLanguage } from './language.js'

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

/** Maps every thrown error to the spec's shapes (error-answer.ts); 5xx never reveal internals. */
export function errorHandler(logger: Logger) {
  return async (ctx: Context, next: Next) => {
    try {
      await next()
    } catch (err) {
      const answer = errorAnswer(err, ctx.state.requestId, ctx.state.lang, logger)
      ctx.status = answer.status
      for (const [name, value] of Object.entries(answer.headers)) ctx.set(name, value)
      ctx.body = answer.body
    }
  }
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
