import type Router from '@koa/router'
import type { Context } from 'koa'
import type { Auditor } from '../audit/auditor.js'
import type { Authenticator } from '../security/authenticate.js'
import type { Principal } from '../security/principal.js'
import type { BucketRule, RateLimitStore } from '../security/rate-limit.js'
import { ApiError } from './errors.js'
import type { LoopTurns } from './loop-turns.js'
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
  /** Largest file a multipart route accepts, and largest body of a raw one (OZAN_UPLOAD_LIMIT_BYTES). */
  uploadLimitBytes: number
  /** Check every response against its schema (tests turn this on to catch drift). */
  validateResponses: boolean
  /** Requests take turns with live calls on a shared event loop (loop-turns.ts). */
  turns?: LoopTurns
}

/** What a handler may know of its request, read only when asked (most handlers never ask). */
class KoaRequestInfo implements RequestInfo {
  constructor(private readonly ctx: Context) {}
  get requestId(): string {
    return this.ctx.state.requestId
  }
  get lang() {
    return this.ctx.state.lang
  }
  get ip(): string {
    return this.ctx.ip
  }
  get host(): string {
    return this.ctx.host
  }
  get userAgent(): string {
    return this.ctx.get('user-agent')
  }
  get url(): string {
    return this.ctx.originalUrl
  }
  setHeader(name: string, value: string): void {
    this.ctx.set(name, value)
  }
}

/**
 * Takes a token from every bucket or from none: a refused request gives back what it took, so a
 * key hammering past its own limit does not drain the bucket its organization's other keys share.
 */
function throttle(limiter: RateLimitStore, buckets: readonly (readonly [string, BucketRule])[]): void {
  for (const [i, [key, rule]] of buckets.entries()) {
    const r = limiter.take(key, rule)
    if (r.allowed) continue
    for (const [k, taken] of buckets.slice(0, i)) limiter.refund(k, taken)
    throw new ApiError('rate_limited', undefined, { 'Retry-After': String(r.retryAfterS) })
  }
}

/**
 * The id a mutating request acted on: its innermost path id (`/projects/{p}/keys/{k}` acts on
 * the key), else the id of what it created.
 */
function resourceIdOf(innermost: string | undefined, params: unknown, result: unknown): string | null {
  const fromPath = innermost === undefined ? undefined : (params as Record<string, unknown> | undefined)?.[innermost]
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
    // Every authenticated mutation reaches the audit trail; say how, so none is recorded vaguely.
    if (route.method !== 'get' && route.auth !== 'P' && !route.audit) throw new Error(`${route.operationId}: a mutating route must declare audit`)
    if (route.bodyEncoding === 'raw' && !route.rawMediaTypes?.length) throw new Error(`${route.operationId}: a raw body must declare rawMediaTypes`)
    const innermostParam = [...route.path.matchAll(/\{(\w+)\}/g)].at(-1)?.[1]
    router[route.method](koaPath(route.path), async (ctx: Context) => {
      throttle(o.limiter, [[`address:${ctx.ip}`, o.rateLimits.address]])
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
        const org = [`organization:${auth.organizationId}`, o.rateLimits.organization] as const
        throttle(o.limiter, auth.apiKeyId ? [org, [`api_key:${auth.apiKeyId}`, o.rateLimits.apiKey]] : [org])
      }
      if (route.permission && !auth!.permissions.has(route.permission)) {
        throw new ApiError('permission_denied', `This needs the permission ${route.permission}.`)
      }
      const parsed = await parseRequest(ctx, route, o.bodyLimitBytes, o.uploadLimitBytes)
      const req = new KoaRequestInfo(ctx)
      // The turn is taken after the last wait (a token's signature is checked on the thread pool,
      // a body is read from the socket): from here the handler's SQL and the response's JSON run
      // synchronously, so one turn holds the loop for one request's work and no more.
      const turn = o.turns?.take()
      if (turn) await turn
      const result: unknown = await route.handler({ ...parsed, auth, req })
      if (auth && route.method !== 'get' && route.audit !== 'service' && route.audit !== 'none') {
        const resourceId = resourceIdOf(innermostParam, parsed.params, result)
        // A mutation that made something new from a path resource (duplicate, promote) names it too.
        const made = (result as { id?: unknown; session_id?: unknown } | null)?.id ?? (result as { session_id?: unknown } | null)?.session_id
        o.auditor.record(auth, req, {
          action: route.audit!.action,
          resourceType: route.audit!.resource,
          resourceId,
          ...(made !== undefined && String(made) !== resourceId ? { metadata: { result_id: String(made) } } : {}),
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
