import type Router from '@koa/router'
import type { Context } from 'koa'
import type { Authenticator } from '../security/authenticate.js'
import { ApiError } from './errors.js'
import { parseRequest } from './parse.js'
import { koaPath, type AnyRoute, type RequestInfo } from './route.js'

export interface MountOptions {
  authenticator: Authenticator
  bodyLimitBytes: number
  /** Check every response against its schema (tests turn this on to catch drift). */
  validateResponses: boolean
}

function requestInfo(ctx: Context): RequestInfo {
  return {
    requestId: ctx.state.requestId,
    lang: ctx.state.lang,
    ip: ctx.ip,
    userAgent: ctx.get('user-agent'),
    setHeader: (name, value) => ctx.set(name, value),
  }
}

/** Mounts each route: authenticate, authorize, validate, call the handler, send its result. */
export function mountRoutes(router: Router, routes: readonly AnyRoute[], o: MountOptions): void {
  for (const route of routes) {
    // Koa answers a null body with 204, so a bodiless route declaring anything else would lie.
    if (!route.response && route.status !== 204) throw new Error(`${route.operationId}: a route without a response schema must declare 204`)
    router[route.method](koaPath(route.path), async (ctx: Context) => {
      const auth =
        route.auth === 'P'
          ? null
          : await o.authenticator.authenticate(route.auth, ctx.get('authorization') || undefined, ctx.get('x-api-key') || undefined)
      if (route.permission && !auth!.permissions.has(route.permission)) {
        throw new ApiError('permission_denied', `This needs the permission ${route.permission}.`)
      }
      const parsed = await parseRequest(ctx, route, o.bodyLimitBytes)
      const result: unknown = await route.handler({ ...parsed, auth, req: requestInfo(ctx) })
      ctx.status = route.status
      if (!route.response) {
        ctx.body = null
        return
      }
      if (o.validateResponses) {
        const check = route.response.safeParse(result)
        if (!check.success) throw new Error(`${route.operationId} response does not match its schema: ${check.error.message}`)
      }
      ctx.body = result
    })
  }
}
