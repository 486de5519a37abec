import type Router from '@koa/router'
import type { Context } from 'koa'
import type { Principal } from '../security/principal.js'
import { parseRequest } from './parse.js'
import { createRoutePipeline, type PipelineOptions, type RoutePipeline } from './pipeline.js'
import { koaPath, type AnyRoute, type RequestInfo } from './route.js'

declare module 'koa' {
  interface DefaultState {
    auth?: Principal | null
  }
}

export type { RateLimitRules, RoutePipeline } from './pipeline.js'

export interface MountOptions extends PipelineOptions {
  bodyLimitBytes: number
  /** Largest file a multipart route accepts, and largest body of a raw one (OZAN_UPLOAD_LIMIT_BYTES). */
  uploadLimitBytes: number
}

/** What a handler may know of its request, read only when asked (most handlers never ask). */
export class KoaRequestInfo implements RequestInfo {
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
 * Mounts each route: throttle by address, authenticate, throttle by organization and key,
 * authorize, validate, call the handler, audit a mutation, send the result (pipeline.ts holds
 * every step but reading the request and sending the answer). Returns the pipeline, for the
 * other carrier of the same operations (the MCP endpoint).
 */
export function mountRoutes(router: Router, routes: readonly AnyRoute[], o: MountOptions): RoutePipeline {
  const pipeline = createRoutePipeline(o)
  for (const route of routes) {
    // Koa answers a null body with 204, so a bodiless route declaring anything else would lie.
    if (!route.response && route.status !== 204) throw new Error(`${route.operationId}: a route without a response schema must declare 204`)
    // Every authenticated mutation reaches the audit trail; say how, so none is recorded vaguely.
    if (route.method !== 'get' && route.auth !== 'P' && !route.audit) throw new Error(`${route.operationId}: a mutating route must declare audit`)
    if (route.bodyEncoding === 'raw' && !route.rawMediaTypes?.length) throw new Error(`${route.operationId}: a raw body must declare rawMediaTypes`)
    router[route.method](koaPath(route.path), async (ctx: Context) => {
      const credentials = {
        authorization: ctx.get('authorization') || undefined,
        apiKey: ctx.get('x-api-key') || undefined,
        environmentId: ctx.get('x-environment-id') || undefined,
      }
      ctx.state.auth = null
      const auth = await pipeline.admit(route.auth, ctx.ip, credentials, (who) => (ctx.state.auth = who))
      const read = () => parseRequest(ctx, route, o.bodyLimitBytes, o.uploadLimitBytes)
      const result = await pipeline.execute(route, auth, new KoaRequestInfo(ctx), read)
      ctx.status = route.status
      // A bodiless route answers null, which Koa sends as the empty body of its 204.
      ctx.body = result
    })
  }
  return pipeline
}
