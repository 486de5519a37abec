import type { Auditor } from '../audit/auditor.js'
import type { Authenticator } from '../security/authenticate.js'
import type { Principal } from '../security/principal.js'
import type { BucketRule, RateLimitStore } from '../security/rate-limit.js'
import { ApiError } from './errors.js'
import type { LoopTurns } from './loop-turns.js'
import type { Parsed } from './parse.js'
import type { AnyRoute, AuthMode, RequestInfo } from './route.js'

export interface RateLimitRules {
  organization: BucketRule
  apiKey: BucketRule
  address: BucketRule
}

export interface PipelineOptions {
  authenticator: Authenticator
  auditor: Auditor
  limiter: RateLimitStore
  rateLimits: RateLimitRules
  /** Check every response against its schema (tests turn this on to catch drift). */
  validateResponses: boolean
  /** Requests take turns with live calls on a shared event loop (loop-turns.ts). */
  turns?: LoopTurns
}

/** What a request presents to prove who it is, as REST reads it from its headers. */
export interface Credentials {
  authorization?: string
  apiKey?: string
  environmentId?: string
}

/**
 * The steps every operation goes through, whichever carrier brought it: the HTTP mount
 * (mount.ts) runs `admit` then `execute` per request; the MCP endpoint (mcp/) admits its HTTP
 * request once and `execute`s the tool's route. One implementation, so a tool call is
 * authorized, validated, handled and audited exactly as the REST request would be.
 */
export interface RoutePipeline {
  /**
   * Throttle by address, authenticate (unless the mode is public), throttle by organization and
   * key. `seen` learns the caller before its own buckets are checked, so a request refused there
   * is still logged as the organization's.
   */
  admit(mode: AuthMode, ip: string, credentials: Credentials, seen?: (auth: Principal) => void): Promise<Principal | null>
  /** Authorize, read and validate (`read`), take a turn, call the handler, audit a mutation, check the response. */
  execute(route: AnyRoute, auth: Principal | null, req: RequestInfo, read: () => Promise<Parsed>): Promise<unknown>
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

const innermostParams = new WeakMap<AnyRoute, string | undefined>()
function innermostParamOf(route: AnyRoute): string | undefined {
  if (!innermostParams.has(route)) innermostParams.set(route, [...route.path.matchAll(/\{(\w+)\}/g)].at(-1)?.[1])
  return innermostParams.get(route)
}

export function createRoutePipeline(o: PipelineOptions): RoutePipeline {
  return {
    async admit(mode, ip, credentials, seen) {
      throttle(o.limiter, [[`address:${ip}`, o.rateLimits.address]])
      if (mode === 'P') return null
      const auth = await o.authenticator.authenticate(mode, credentials.authorization, credentials.apiKey, credentials.environmentId)
      seen?.(auth)
      const org = [`organization:${auth.organizationId}`, o.rateLimits.organization] as const
      throttle(o.limiter, auth.apiKeyId ? [org, [`api_key:${auth.apiKeyId}`, o.rateLimits.apiKey]] : [org])
      return auth
    },

    async execute(route, auth, req, read) {
      if (route.permission && !auth?.permissions.has(route.permission)) {
        throw new ApiError('permission_denied', `This needs the permission ${route.permission}.`)
      }
      const parsed = await read()
      // The turn is taken after the last wait (a token's signature is checked on the thread pool,
      // a body is read from the socket): from here the handler's SQL and the response's JSON run
      // synchronously, so one turn holds the loop for one request's work and no more.
      const turn = o.turns?.take()
      if (turn) await turn
      const result: unknown = await route.handler({ ...parsed, auth, req })
      if (auth && route.method !== 'get' && route.audit !== 'service' && route.audit !== 'none') {
        const resourceId = resourceIdOf(innermostParamOf(route), parsed.params, result)
        // A mutation that made something new from a path resource (duplicate, promote) names it too.
        const made = (result as { id?: unknown; session_id?: unknown } | null)?.id ?? (result as { session_id?: unknown } | null)?.session_id
        o.auditor.record(auth, req, {
          action: route.audit!.action,
          resourceType: route.audit!.resource,
          resourceId,
          ...(made !== undefined && String(made) !== resourceId ? { metadata: { result_id: String(made) } } : {}),
        })
      }
      if (route.response && o.validateResponses) {
        const check = route.response.safeParse(result)
        if (!check.success) throw new Error(`${route.operationId} response does not match its schema: ${check.error.message}`)
      }
      return route.response ? result : null
    },
  }
}
