import type { paths } from '../generated/openapi.js'
import { apiErrorFrom, OzanConnectionError } from './errors.js'
import { encodeBody, fillPath, queryString, readBody } from './http.js'
import { walkPages, type ItemOf, type Page, type PagedPath } from './paging.js'
import { decideRetry, retryOptions, type RetryOptions } from './retry.js'
import type { CallOptions, DataOf, HttpMethod, InitArg, OperationOf, PathsWith } from './types.js'

export interface ClientOptions {
  /** The server's origin, e.g. `https://ozan.example.com`; the paths carry `/api/v1`. */
  baseUrl: string
  /** Sent as X-API-Key. */
  apiKey?: string
  /** A dashboard access token, sent as `Authorization: Bearer …` (routes an API key cannot use). */
  accessToken?: string
  /** Sent as X-Environment-Id: `dev`, `staging`, `prod`, or an environment id. Else the organization's default. */
  environmentId?: string
  /** Sent as Accept-Language; error messages come back in it (`en` or `tr`). */
  acceptLanguage?: string
  /** Headers added to every request. */
  headers?: Record<string, string>
  retry?: Partial<RetryOptions>
  /** How long one attempt may take, answer body included, in ms. Default 60 000. */
  timeoutMs?: number
  /** The fetch to use; default globalThis.fetch. */
  fetch?: typeof fetch
  /** For tests: how the client waits between attempts, where randomness and time come from. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>
  random?: () => number
  now?: () => number
}

/** A success answer with its status and headers (X-Total-Count, Link, X-Request-ID). */
export interface ApiResult<T> {
  data: T
  status: number
  headers: Headers
}

type Init = CallOptions & {
  params?: { path?: Record<string, unknown>; query?: Record<string, unknown>; header?: Record<string, unknown> }
  body?: unknown
  contentType?: string
}

const DEFAULT_TIMEOUT_MS = 60_000
const USER_AGENT = 'ozan-node/0.1.0'

/**
 * A typed client for the whole API. Paths, parameters, bodies and answers come from the generated
 * `paths` (sdk/node/src/generated/openapi.ts), so `GET('/api/v1/workflows/{workflow_uuid}', …)`
 * is checked against the server's own OpenAPI document. A non-2xx answer is thrown as
 * OzanApiError; 429 and 5xx are retried as the spec says (see retry.ts).
 */
export class OzanClient<Paths extends object = paths> {
  readonly #base: string
  readonly #headers: Record<string, string>
  readonly #retry: Partial<RetryOptions>
  readonly #timeoutMs: number
  readonly #fetch: typeof fetch
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>
  readonly #random: () => number
  readonly #now: () => number

  constructor(o: ClientOptions) {
    const url = new URL(o.baseUrl)
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError('baseUrl must be an http or https URL')
    this.#base = url.href.replace(/\/+$/, '')
    const timeoutMs = o.timeoutMs ?? DEFAULT_TIMEOUT_MS
    if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 3_600_000)
      throw new RangeError('timeoutMs must be a whole number of ms from 1 to 3 600 000')
    this.#timeoutMs = timeoutMs
    retryOptions(o.retry) // checked now, so a bad option fails at construction rather than on the first call
    this.#retry = o.retry ?? {}
    this.#headers = { 'user-agent': USER_AGENT, accept: 'application/json', ...lowerKeys(o.headers) }
    if (o.apiKey) this.#headers['x-api-key'] = o.apiKey
    if (o.accessToken) this.#headers.authorization = `Bearer ${o.accessToken}`
    if (o.environmentId) this.#headers['x-environment-id'] = o.environmentId
    if (o.acceptLanguage) this.#headers['accept-language'] = o.acceptLanguage
    this.#fetch = o.fetch ?? globalThis.fetch
    this.#sleep = o.sleep ?? sleep
    this.#random = o.random ?? Math.random
    this.#now = o.now ?? Date.now
  }

  GET<P extends PathsWith<Paths, 'get'>>(path: P, ...init: InitArg<OperationOf<Paths, P, 'get'>>): Promise<DataOf<OperationOf<Paths, P, 'get'>>> {
    return this.#data('get', path, init[0])
  }
  POST<P extends PathsWith<Paths, 'post'>>(path: P, ...init: InitArg<OperationOf<Paths, P, 'post'>>): Promise<DataOf<OperationOf<Paths, P, 'post'>>> {
    return this.#data('post', path, init[0])
  }
  PUT<P extends PathsWith<Paths, 'put'>>(path: P, ...init: InitArg<OperationOf<Paths, P, 'put'>>): Promise<DataOf<OperationOf<Paths, P, 'put'>>> {
    return this.#data('put', path, init[0])
  }
  PATCH<P extends PathsWith<Paths, 'patch'>>(path: P, ...init: InitArg<OperationOf<Paths, P, 'patch'>>): Promise<DataOf<OperationOf<Paths, P, 'patch'>>> {
    return this.#data('patch', path, init[0])
  }
  DELETE<P extends PathsWith<Paths, 'delete'>>(path: P, ...init: InitArg<OperationOf<Paths, P, 'delete'>>): Promise<DataOf<OperationOf<Paths, P, 'delete'>>> {
    return this.#data('delete', path, init[0])
  }

  /** Any operation, answering the data with the status and headers. */
  request<M extends HttpMethod, P extends PathsWith<Paths, M>>(
    method: M,
    path: P,
    ...init: InitArg<OperationOf<Paths, P, M>>
  ): Promise<ApiResult<DataOf<OperationOf<Paths, P, M>>>> {
    return this.#send(method, path, init[0] as Init | undefined) as Promise<ApiResult<DataOf<OperationOf<Paths, P, M>>>>
  }

  /**
   * The pages of a paged list, from `params.query.offset` (default 0) on; `params.query.limit` is
   * the page size. Each page is fetched when the iteration reaches it, with the same retries.
   */
  pages<P extends PagedPath<Paths>>(
    path: P,
    ...init: InitArg<OperationOf<Paths, P, 'get'>>
  ): AsyncGenerator<Page<ItemOf<DataOf<OperationOf<Paths, P, 'get'>>>>> {
    const base = (init[0] ?? {}) as Init
    const start = Number(base.params?.query?.offset ?? 0)
    const fetchPage = (offset: number) => this.#send('get', path, { ...base, params: { ...base.params, query: { ...base.params?.query, offset } } })
    return walkPages(start, fetchPage, path)
  }

  /** Every row of a paged list, one at a time, across pages (see pages()). */
  async *paginate<P extends PagedPath<Paths>>(
    path: P,
    ...init: InitArg<OperationOf<Paths, P, 'get'>>
  ): AsyncGenerator<ItemOf<DataOf<OperationOf<Paths, P, 'get'>>>> {
    for await (const page of this.pages(path, ...init)) yield* page.items
  }

  async #data(method: HttpMethod, path: string, init: unknown): Promise<never> {
    return (await this.#send(method, path, init as Init | undefined)).data as never
  }

  async #send(method: HttpMethod, template: string, init: Init = {}): Promise<ApiResult<unknown>> {
    const verb = method.toUpperCase()
    const retry = retryOptions(this.#retry, init.retry)
    const url = this.#base + fillPath(template, init.params?.path) + queryString(init.params?.query)
    const { body, contentType } = encodeBody(init.body, init.contentType)
    const headers: Record<string, string> = { ...this.#headers, ...stringValues(init.params?.header), ...lowerKeys(init.headers) }
    if (contentType) headers['content-type'] = contentType
    const caller = init.signal
    for (let n = 0; ; n++) {
      caller?.throwIfAborted()
      const timeout = AbortSignal.timeout(this.#timeoutMs)
      const signal = caller ? AbortSignal.any([caller, timeout]) : timeout
      let res: Response | undefined
      let parsed: unknown
      let failure: unknown
      try {
        res = await this.#fetch(url, { method: verb, headers, body, signal })
        parsed = await readBody(res)
      } catch (err) {
        if (caller?.aborted) throw caller.reason
        failure = err
        res = undefined
      }
      if (res?.ok) return { data: parsed, status: res.status, headers: res.headers }
      const outcome = res ? { status: res.status, retryAfter: res.headers.get('retry-after') } : { status: null }
      const decision = decideRetry({ method: verb, path: template, retry: n }, outcome, retry, this.#now(), this.#random)
      if (!decision.retry) {
        if (res) throw apiErrorFrom(res.status, res.headers, parsed, verb, template)
        throw new OzanConnectionError({ method: verb, path: template, timedOut: timeout.aborted, cause: failure })
      }
      await this.#sleep(decision.delayMs, caller)
    }
  }
}

/** `new OzanClient(options)`, typed over the generated paths. */
export function createOzanClient(options: ClientOptions): OzanClient<paths> {
  return new OzanClient<paths>(options)
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal!.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

function lowerKeys(h: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(h ?? {}).map(([k, v]) => [k.toLowerCase(), v]))
}

function stringValues(h: Record<string, unknown> | undefined): Record<string, string> {
  return Object.fromEntries(
    Object.entries(h ?? {})
      .filter(([, v]) => v !== undefined && v !== null)
      .map(([k, v]) => [k.toLowerCase(), String(v)]),
  )
}
