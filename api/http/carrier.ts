import type { Context } from 'koa'
import type { Logger } from '../../core/index.js'
import type { Principal } from '../security/principal.js'
import { errorAnswer } from './error-answer.js'
import { KoaRequestInfo, type RoutePipeline } from './mount.js'
import { parseValues, type PartValues } from './parse.js'
import type { AnyRoute } from './route.js'

/** What REST would have answered: status, the headers a handler or an error set, body (null when none). */
export interface RouteAnswer {
  status: number
  headers: Record<string, string>
  body: unknown
}

/**
 * The API's operations for a carrier other than their own HTTP routes: the MCP endpoint (mcp/),
 * which reaches them as tools and resources inside one HTTP request of its own. Everything runs
 * through the pipeline the routes use (pipeline.ts), so permissions, validation, handlers and the
 * audit trail are the REST ones; only reading the parts and writing the answer differ.
 */
export interface RouteCarrier {
  routes: readonly AnyRoute[]
  /** The largest request body the API reads (OZAN_BODY_LIMIT_BYTES). */
  bodyLimitBytes: number
  /**
   * Admits a request by its X-API-Key (and X-Environment-Id) alone, throttled as one REST request
   * (address, organization, key). Throws the API's error (401, 429): the error middleware answers it.
   */
  admitByKey(ctx: Context): Promise<Principal>
  /**
   * Runs one operation for an admitted caller, with its parts as values. Never throws: a failure
   * is answered as REST would answer it (`{ error }` or 422 `{ detail }`), and an unexpected one is
   * logged and answered 500 without internals. `url` is the REST path and query the operation
   * stands for (paged lists link their next page from it).
   */
  invoke(ctx: Context, auth: Principal, route: AnyRoute, parts: PartValues, url: string): Promise<RouteAnswer>
}

/** The request as a handler sees it: the carrying request's caller facts, the operation's own URL and headers. */
class CarriedRequestInfo extends KoaRequestInfo {
  readonly headers: Record<string, string> = {}
  constructor(
    ctx: Context,
    private readonly operationUrl: string,
  ) {
    super(ctx)
  }
  override get url(): string {
    return this.operationUrl
  }
  override setHeader(name: string, value: string): void {
    this.headers[name] = value
  }
}

export function createRouteCarrier(routes: readonly AnyRoute[], pipeline: RoutePipeline, o: { bodyLimitBytes: number; logger: Logger }): RouteCarrier {
  return {
    routes,
    bodyLimitBytes: o.bodyLimitBytes,
    async admitByKey(ctx) {
      const credentials = { apiKey: ctx.get('x-api-key') || undefined, environmentId: ctx.get('x-environment-id') || undefined }
      const auth = await pipeline.admit('A', ctx.ip, credentials, (who) => (ctx.state.auth = who))
      return auth!
    },
    async invoke(ctx, auth, route, parts, url) {
      const req = new CarriedRequestInfo(ctx, url)
      try {
        const body = await pipeline.execute(route, route.auth === 'P' ? null : auth, req, async () => parseValues(route, parts))
        return { status: route.status, headers: req.headers, body: body ?? null }
      } catch (err) {
        const answer = errorAnswer(err, req.requestId, req.lang, o.logger)
        return { ...answer, headers: { ...req.headers, ...answer.headers } }
      }
    },
  }
}
