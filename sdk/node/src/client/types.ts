/**
 * Types that read the request and response of one operation out of an openapi-typescript `paths`
 * interface, so the client is generic over it: a route added to the API needs a regeneration, not
 * hand-written code. Absent parts are written `?: never` by openapi-typescript; they drop out here.
 */
import type { RetryOptions } from './retry.js'

export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'patch'

/** The paths that have an operation for `M`. */
export type PathsWith<Paths, M extends HttpMethod> = {
  [K in keyof Paths]: Paths[K] extends { [m in M]: unknown } ? K : never
}[keyof Paths] &
  string

export type OperationOf<Paths, P extends keyof Paths, M extends HttpMethod> = Paths[P] extends { [m in M]: infer Op } ? Op : never

/** Keys whose type is more than `undefined` (openapi-typescript writes a missing part as `x?: never`). */
type DefinedKeys<T> = { [K in keyof T]-?: [Exclude<T[K], undefined>] extends [never] ? never : K }[keyof T]
/** Keys that may not be left out. */
type RequiredKeys<T> = { [K in keyof T]-?: Record<never, never> extends Pick<T, K> ? never : K }[keyof T]

/** `path`, `query` and `header` parameters that the operation has. */
export type ParamsOf<Op> = Op extends { parameters: infer Pr } ? Pick<Pr, DefinedKeys<Pr> & ('path' | 'query' | 'header')> : Record<never, never>

type ParamsInit<Op> = [keyof ParamsOf<Op>] extends [never]
  ? { params?: never }
  : [RequiredKeys<ParamsOf<Op>>] extends [never]
    ? { params?: ParamsOf<Op> }
    : { params: ParamsOf<Op> }

/** Bytes for a raw body (audio); the media type goes in `contentType`. */
export type RawRequestBody = Blob | Uint8Array | ArrayBuffer | string

type BodyOf<Content> = 'application/json' extends keyof Content
  ? { body: Content['application/json']; contentType?: never }
  : 'multipart/form-data' extends keyof Content
    ? { body: FormData; contentType?: never }
    : { body: RawRequestBody; contentType: Extract<keyof Content, string> }

type RequestBodyOf<Op> = Op extends { requestBody?: infer B } ? Exclude<B, undefined> : never

type BodyInit<Op> = [RequestBodyOf<Op>] extends [never]
  ? { body?: never; contentType?: never }
  : RequestBodyOf<Op> extends { content: infer C }
    ? Op extends { requestBody: unknown }
      ? BodyOf<C>
      : Partial<BodyOf<C>>
    : never

/** What one call may carry besides its parameters and body. */
export interface CallOptions {
  /** Extra request headers; they override the client's own of the same name. */
  headers?: Record<string, string>
  /** Cancels the call, retries and their waits included. */
  signal?: AbortSignal
  /** Overrides the client's retry options for this call. */
  retry?: Partial<RetryOptions>
}

export type InitOf<Op> = ParamsInit<Op> & BodyInit<Op> & CallOptions

/** The init argument, optional when nothing in it is required. */
export type InitArg<Op> = [RequiredKeys<InitOf<Op>>] extends [never] ? [init?: InitOf<Op>] : [init: InitOf<Op>]

type SuccessStatus = 200 | 201 | 202 | 203 | 204 | 206
type SuccessOf<Op> = Op extends { responses: infer R } ? R[Extract<keyof R, SuccessStatus>] : never

/** The parsed body of the operation's success response; `undefined` for a response without one (204). */
export type DataOf<Op> = SuccessOf<Op> extends { content: { 'application/json': infer D } } ? D : undefined
