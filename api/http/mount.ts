import type Router from '@koa/router'
import type { Context } from 'koa'
import type { Auditor } from '../audit/auditor.js'
import type { Authenticator } from '../security/authenticate.js'
import type { Principal } from '../security/principal.js'
import type { BucketRule, RateLimitStore } from '../security/rate-limit.js'
import { ApiError } from './errors.js'
import { parseRequest } from './parse.js'
import { koaPath, type AnyRoute, type RequestInfo } from './route.js'

declare module 'koa' {
  interface DefaultState {
    auth?: Principal | null
  }
}

export interface RateLimitRules {
  organization: BucketRule
  apiKey: BucketRule
  address: BucketRule
}

export interface MountOptions {
  authenticator: Authenticator
  auditor: Auditor
  limiter: RateLimitStore
  rateLimits: RateLimitRules
  bodyLimitBytes: number
  /** Check every response against its schema (tests turn this on to catch drift). */
  validateResponses: boolean
}

function requestInfo(ctx: Context): RequestInfo {
  return {
    requestId: ctx.state.requestId,
    lang: ctx.state.lang,
    ip: ctx.ip,
    host: ctx.host,
    userAgent: ctx.get('user-agent'),
    setHeader: (name, value) => ctx.set(name, value),
  }
}

function throttle(limiter: RateLimitStore, key: string, rule: BucketRule): void {
  const r = limiter.take(key, rule)
  if (!r.allowed) throw new ApiError('rate_limited', undefined, { 'Retry-After': String(r.retryAfterS) })
}

/** The id a mutating request acted on: its path id, else the id of what it created. */
function resourceIdOf(params: unknown, result: unknown): string | null {
  const fromPath = Object.values((params as Record<string, unknown>) ?? {})[0]
  if (fromPath !== undefined) return String(fromPath)
  const id = (result as { id?: unknown } | null)?.id
  return id === undefined ? null : String(id)
}

/**
 * Mounts each route: throttle by address, authenticate, throttle by organization and key,
 * authorize, validate, call the handler, audit a mutation, send the result.
 */
export function mountRoutes(router: Router, routes: readonly AnyRoute[], o: MountOptions): void {
  for (const route of routes) {
    // Koa answers a null body with 204, so a bodiless route declaring anything else would lie.
    if (!route.response && route.status !== 204) throw new Error(`${route.operationId}: a route without a response schema must declare 204`)
    router[route.method](koaPath(route.path), async (ctx: Context) => {
      throttle(o.limiter, `address:${ctx.ip}`, o.rateLimits.address)
      const auth =
        route.auth === 'P'
          ? null
          : await o.authenticator.authenticate(
              route.auth,
              ctx.get('authorization') || undefined,
              ctx.get('x-api-key') || undefined,
              ctx.get('x-environment-id') || undefined,
            )
      ctx.state.auth = auth
      if (auth) {
        throttle(o.limiter, `organization:${auth.organizationId}`, o.rateLimits.organization)
        if (auth.apiKeyId) throttle(o.limiter, `api_key:${auth.apiKeyId}`, o.rateLimits.apiKey)
      }
      if (route.permission && !auth!.permissions.has(route.permission)) {
        throw new ApiError('permission_denied', `This needs the permission ${route.permission}.`)
      }
      const parsed = await parseRequest(ctx, route, o.bodyLimitBytes)
      const req = requestInfo(ctx)
      const result: unknown = await route.handler({ ...parsed, auth, req })
      if (auth && route.method !== 'get' && route.audit !== 'service') {
        o.auditor.record(auth, req, {
          action: route.audit?.action ?? route.operationId,
          resourceType: route.audit?.resource ?? route.tag,
          resourceId: resourceIdOf(parsed.params, result),
        })
      }
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
