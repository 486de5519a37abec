import type { z } from 'zod'
import type { Context } from 'koa'
import type { Permission } from '../rbac/index.js'
import type { Principal } from '../security/principal.js'
import type { ErrorCode, Lang } from './errors.js'

/** The spec's Auth column: A = key or bearer, P = none, S = dashboard bearer session only. */
export type AuthMode = 'A' | 'P' | 'S'
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete'
type AnyObject = z.ZodObject<z.ZodRawShape>

/** What a handler sees of the request: parsed parts and who is calling, no Koa. */
export interface RequestInfo {
  requestId: string
  lang: Lang
  ip: string
  /** The Host the client addressed (for region matching). */
  host: string
  userAgent: string
  /** The path and query string as the client sent them (paged lists link their next page from it). */
  url: string
  /** Response headers a handler may add (e.g. Retry-After on a throttled login). */
  setHeader(name: string, value: string): void
}

type Out<T> = T extends z.ZodType ? z.output<T> : undefined

export interface HandlerInput<B, Q, P, H, Auth> {
  body: Out<B>
  query: Out<Q>
  params: Out<P>
  headers: Out<H>
  auth: Auth
  req: RequestInfo
}

/**
 * One operation of the API. The router mounts it and the OpenAPI document describes it, both
 * from this one object, so the two cannot drift apart.
 */
export interface RouteSpec<
  B extends z.ZodType | undefined = z.ZodType | undefined,
  Q extends AnyObject | undefined = AnyObject | undefined,
  P extends AnyObject | undefined = AnyObject | undefined,
  H extends AnyObject | undefined = AnyObject | undefined,
  A extends AuthMode = AuthMode,
> {
  operationId: string
  method: Method
  /** OpenAPI-style path, e.g. `/api/v1/api-keys/{key_id}`. */
  path: string
  auth: A
  permission?: Permission
  summary: string
  description?: string
  tag: string
  body?: B
  /** A body that may be absent or `null` (the spec's "optional JSON"). Default: required. */
  bodyOptional?: boolean
  /**
   * How the body arrives. 'json' (default) is read whole up to OZAN_BODY_LIMIT_BYTES.
   * 'multipart' is multipart/form-data streamed through busboy (http/multipart.ts): text fields
   * become strings, a file part an UploadedFile held in memory only up to OZAN_UPLOAD_LIMIT_BYTES
   * (413 file_too_large as soon as it goes over, the rest never stored); the result is then
   * validated against `body` like JSON, so handlers get typed input and never see the stream.
   * 'raw' is the body as bytes (http/raw.ts), for a body that is not a form, such as audio: its
   * Content-Type must be one of `rawMediaTypes` (else 415 unsupported_media_type), and it is held
   * in memory only up to OZAN_UPLOAD_LIMIT_BYTES (413 file_too_large while streaming). `body` is
   * then RawBodyField, and the handler gets a RawBody (bytes, media type, its parameters).
   */
  bodyEncoding?: 'json' | 'multipart' | 'raw'
  /** For 'raw': the media types accepted (no parameters); each is a binary string in the document. */
  rawMediaTypes?: readonly string[]
  query?: Q
  params?: P
  headers?: H
  status: number
  /** Response schema; omitted for bodiless responses such as 204. */
  response?: z.ZodType
  /**
   * How an authenticated non-GET request reaches the audit trail (required for them): the router
   * records `{ action, resource }`; 'service' when the service records it with more detail;
   * 'none' for a POST that changes nothing (a search, a question to the helper).
   */
  audit?: { action: string; resource: string } | 'service' | 'none'
  /** Error codes the operation can answer with besides 401/403/422, for the document. */
  errors?: ErrorCode[]
  handler(input: HandlerInput<B, Q, P, H, A extends 'P' ? Principal | null : Principal>): unknown
}

export type AnyRoute = RouteSpec<any, any, any, any, any> // eslint-disable-line @typescript-eslint/no-explicit-any

/** Identity function that lets TypeScript infer a route's parsed types from its schemas. */
export function defineRoute<
  B extends z.ZodType | undefined = undefined,
  Q extends AnyObject | undefined = undefined,
  P extends AnyObject | undefined = undefined,
  H extends AnyObject | undefined = undefined,
  A extends AuthMode = AuthMode,
>(spec: RouteSpec<B, Q, P, H, A>): AnyRoute {
  return spec as AnyRoute
}

export function koaPath(openApiPath: string): string {
  return openApiPath.replace(/\{(\w+)\}/g, ':$1')
}

export type { Context }
