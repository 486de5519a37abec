import type { Context } from 'koa'
import type { AnyRoute } from '../api/index.js'

/**
 * What the MCP server needs of the API, handed to it by the app (api/http/carrier.ts builds it).
 * The MCP server imports no API code at run time: every tool and resource is a REST operation
 * run by the API's own pipeline through this interface, so nothing here can drift from REST.
 */
export interface McpHost<Caller> {
  /** The API's route table; tools and resources name their operation by operationId. */
  routes: readonly AnyRoute[]
  bodyLimitBytes: number
  /** Authenticates the HTTP request by X-API-Key and throttles it as one REST request; throws the API's 401/429. */
  admitByKey(ctx: Context): Promise<Caller>
  /** Runs one operation for the caller; answers what REST would have, never throws. */
  invoke(ctx: Context, caller: Caller, route: AnyRoute, parts: OperationParts, url: string): Promise<OperationAnswer>
}

export interface OperationParts {
  params: Record<string, unknown>
  query: Record<string, unknown>
  /** undefined: no body. */
  body: unknown
}

export interface OperationAnswer {
  status: number
  headers: Record<string, string>
  body: unknown
}

/** One operation run on behalf of the caller of the MCP request being answered. */
export type RunOperation = (route: AnyRoute, parts: OperationParts, url: string) => Promise<OperationAnswer>
