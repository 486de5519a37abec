/**
 * A local stand-in for the OpenAI Chat Completions API (`POST /v1/chat/completions`, streaming SSE
 * or a whole completion, plus `GET /v1/models` and `POST /v1/embeddings`). It speaks the real wire protocol so the `openai`
 * SDK runs its real code paths, answers from a script or by echoing the caller's last message,
 * paces its output (first-token latency, tokens per second), injects failures on demand, and logs
 * every request it received and how that exchange ended. Used by tests and by the bench.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { performance } from 'node:perf_hooks'
import { checkRequest, contentText, type StandInMessage, type StandInTool, type ValidRequest } from './openai-validate.js'
import { checkEmbeddingsRequest, embeddingsBody, synonymTable } from './openai-embeddings.js'
import { chunkBody, completionBody, errorBody, maskKey, newId, planChunks, usageBody, type ScriptedReply, type Usage } from './openai-wire.js'
import { closedSignal, listening, readBody, sleep } from './http-helpers.js'
import { latencySampler, type LatencySpec } from './latency.js'
import { modelListing, type ListingFailure, type ListingRequest } from './model-listing.js'

export type { ScriptedReply, ScriptedToolCall } from './openai-wire.js'
export type { StandInMessage, StandInTool } from './openai-validate.js'
export type { LatencySpec } from './latency.js'

/** One failure, used by the next chat or embeddings request (failures are consumed before scripted replies). */
export type OpenAiFailure =
  /** An error status with OpenAI's error body; `retryAfterS` sets Retry-After, `retryAfterMs` retry-after-ms. */
  | { kind: 'status'; status: number; retryAfterS?: number; retryAfterMs?: number; message?: string }
  /** Accepts the request and never answers, not even headers. */
  | { kind: 'hang' }
  /** Sends headers and `afterChunks` chunks, then goes silent with the connection open. */
  | { kind: 'stall'; afterChunks: number }
  /**
   * Sends `afterChunks` chunks (0: not even headers), then destroys the TCP connection. A reset
   * discards what the client had not read yet, so `until` lets a test hold the reset until it has
   * seen those chunks.
   */
  | { kind: 'reset'; afterChunks: number; until?: Promise<unknown> }

/** completed: the response was fully written; client_closed: the peer hung up first; reset: the stand-in cut it. */
export type OpenAiOutcome = 'completed' | 'client_closed' | 'reset'

/** What the stand-in did to this exchange, so a bench can subtract it from measured latency. */
export interface OpenAiDelays {
  /** This request's own draw from `firstTokenLatencyMs`. */
  firstTokenMs: number
  interChunkMs: number
  chunks: number
  failure: string | null
}

export interface OpenAiRequest {
  /** performance.now() once the request's body was read. */
  at: number
  /** performance.now() when the request's head arrived (before its body was read). */
  receivedAt: number
  /**
   * performance.now() as each chunk carrying text was written: content, or a tool call's name or
   * arguments (not the bare role chunk, the finish chunk or the usage chunk). Without streaming,
   * the one write of the whole completion when it carries any text.
   */
  chunkSentAt: number[]
  /** performance.now() as the chunk with finish_reason was written (null until then). */
  finishSentAt: number | null
  path: string
  authorized: boolean
  model: string | undefined
  messages: StandInMessage[]
  tools: StandInTool[] | undefined
  stream: boolean
  body: Record<string, unknown>
  /** The status answered; 0 when no response head was sent. */
  status: number
  injected: OpenAiDelays
  outcome: OpenAiOutcome | undefined
  ended: Promise<OpenAiOutcome>
}

export interface OpenAiStandInOptions {
  apiKey: string
  /**
   * Paths (prefixes) another stand-in answers on this server, e.g. the speech stand-in's handler
   * at /v1/audio/speech: an organization has one "openai" credential, so chat and speech share a
   * base URL, and serving both here spares a proxy hop the bench would count as engine time.
   */
  mount?: { prefix: string; handler: (req: http.IncomingMessage, res: http.ServerResponse) => void }[]
  host?: string
  port?: number
  /** Before the first chunk (and the whole delay of embeddings); drawn once per request. */
  firstTokenLatencyMs?: LatencySpec
  /** 0 sends chunks as fast as the socket takes them. */
  tokensPerSecond?: number
  models?: string[]
  /** Synonym groups for embeddings: each word maps to its group's first (openai-embeddings.ts). */
  synonyms?: string[][]
}

export interface OpenAiStandIn {
  /** Base URL to give a client, ending in /v1. */
  url: string
  requests: OpenAiRequest[]
  script(...replies: ScriptedReply[]): void
  /**
   * What a request nothing scripted gets, instead of the echo (null: the echo again). Never used up.
   * A function is asked per request with the last user message's text; its null means the echo.
   */
  fallback(reply: ScriptedReply | ((lastUserText: string) => ScriptedReply | null) | null): void
  fail(...failures: OpenAiFailure[]): void
  /** A new `firstTokenLatencyMs` starts a new sampler (its spread restarts from its seed). */
  pace(p: { firstTokenLatencyMs?: LatencySpec; tokensPerSecond?: number }): void
  /** Replaces the embeddings' synonym groups. */
  synonyms(...groups: string[][]): void
  /** Every `GET /v1/models` received, and failures for the next ones (their own queue, apart from `fail`'s). */
  modelListings: ListingRequest[]
  failModelListing(...failures: ListingFailure[]): void
  close(): Promise<void>
}

const STATUS_ERRORS: Record<number, [string, string, string | null]> = {
  429: ['Rate limit reached for requests. Please try again later.', 'requests', 'rate_limit_exceeded'],
  500: ['The server had an error while processing your request. Sorry about that!', 'server_error', null],
  503: ['The engine is currently overloaded, please try again later.', 'server_error', null],
}

export async function startOpenAiStandIn(options: OpenAiStandInOptions): Promise<OpenAiStandIn> {
  const replies: ScriptedReply[] = []
  const keyed = new Map<string, ScriptedReply[]>()
  let fallback: ScriptedReply | ((lastUserText: string) => ScriptedReply | null) | null = null
  const failures: OpenAiFailure[] = []
  const requests: OpenAiRequest[] = []
  const settlers = new WeakMap<OpenAiRequest, (o: OpenAiOutcome) => void>()
  let nextFirstTokenMs = latencySampler(options.firstTokenLatencyMs ?? 0)
  let tokensPerSecond = options.tokensPerSecond ?? 0
  const models = options.models ?? ['gpt-4o-mini']
  let synonyms = synonymTable(options.synonyms ?? [])
  const listing = modelListing((status, message) =>
    status === 401 ? errorBody('Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key') : errorBody(message, 'server_error'),
  )

  const server = http.createServer((req, res) => {
    const mounted = options.mount?.find((m) => req.url?.startsWith(m.prefix))
    if (mounted) return mounted.handler(req, res)
    if (req.method === 'GET' && req.url?.split('?')[0] === '/v1/models')
      return listing.answer(req, res, req.headers.authorization === `Bearer ${options.apiKey}`, () => ({
        object: 'list',
        data: models.map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'stand-in' })),
      }))
    handle(req, res).catch(() => res.destroy())
  })

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const receivedAt = performance.now()
    const path = (req.url ?? '/').split('?')[0]!
    const raw = await readBody(req)
    const auth = req.headers.authorization
    const authorized = auth === `Bearer ${options.apiKey}`
    if (!authorized) {
      const sent = auth?.startsWith('Bearer ') ? auth.slice(7) : ''
      const message = sent
        ? `Incorrect API key provided: ${maskKey(sent)}. You can find your API key at https://platform.openai.com/account/api-keys.`
        : "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY)."
      const record = path === '/v1/chat/completions' || path === '/v1/embeddings' ? log(path, raw, false, res, receivedAt) : undefined
      return json(res, 401, errorBody(message, 'invalid_request_error', sent ? 'invalid_api_key' : null), {}, record)
    }
    if (req.method === 'POST' && path === '/v1/embeddings') return embed(res, raw, receivedAt)
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      return json(res, 404, errorBody(`Invalid URL (${req.method} ${path})`, 'invalid_request_error'))
    }
    const record = log(path, raw, true, res, receivedAt)
    let body: unknown
    try {
      body = JSON.parse(raw)
    } catch {
      return json(res, 400, errorBody('We could not parse the JSON body of your request.', 'invalid_request_error'), {}, record)
    }
    const checked = checkRequest(body)
    if (!checked.ok) return json(res, 400, errorBody(checked.message, 'invalid_request_error', null, checked.param), {}, record)
    const failure = failures.shift()
    record.injected.failure = failure ? describe(failure) : null
    if (failure?.kind === 'status') return statusFailure(res, failure, record)
    if (failure?.kind === 'hang') return
    if (failure?.kind === 'reset' && failure.afterChunks === 0) return reset(res, record)
    const userText = lastUserText(checked.request)
    const reply = keyed.get(userText)?.shift() ?? replies.shift() ?? (typeof fallback === 'function' ? fallback(userText) : fallback) ?? echo(checked.request)
    await answer(res, record, checked.request, reply, failure)
  }

  /** An injected error status, in OpenAI's error shape, with Retry-After when asked for. */
  function statusFailure(res: http.ServerResponse, failure: Extract<OpenAiFailure, { kind: 'status' }>, record: ReturnType<typeof log>): void {
    const [message, type, code] = STATUS_ERRORS[failure.status] ?? [`Upstream failure ${failure.status}`, 'server_error', null]
    const headers: Record<string, string> = {}
    if (failure.retryAfterS !== undefined) headers['retry-after'] = String(failure.retryAfterS)
    if (failure.retryAfterMs !== undefined) headers['retry-after-ms'] = String(failure.retryAfterMs)
    json(res, failure.status, errorBody(failure.message ?? message, type, code), headers, record)
  }

  /** Embeddings take the same injected failures, and firstTokenLatencyMs as their whole delay. */
  async function embed(res: http.ServerResponse, raw: string, receivedAt: number): Promise<void> {
    const record = log('/v1/embeddings', raw, true, res, receivedAt)
    let body: unknown
    try {
      body = JSON.parse(raw)
    } catch {
      return json(res, 400, errorBody('We could not parse the JSON body of your request.', 'invalid_request_error'), {}, record)
    }
    const checked = checkEmbeddingsRequest(body)
    if (!checked.ok) return json(res, checked.status, checked.body, {}, record)
    const failure = failures.shift()
    record.injected.failure = failure ? describe(failure) : null
    if (failure?.kind === 'status') return statusFailure(res, failure, record)
    if (failure?.kind === 'hang') return
    if (failure?.kind === 'stall') {
      // Headers, then silence: the body (one JSON document) never comes.
      record.status = 200
      res.writeHead(200, { 'content-type': 'application/json' })
      return void res.flushHeaders()
    }
    if (failure?.kind === 'reset') return reset(res, record)
    const delayMs = (record.injected.firstTokenMs = nextFirstTokenMs())
    const closed = closedSignal(res)
    await sleep(delayMs, closed)
    if (!closed.aborted) json(res, 200, embeddingsBody(checked.request, synonyms), {}, record)
  }

  async function answer(
    res: http.ServerResponse,
    record: OpenAiRequest,
    request: ValidRequest,
    reply: ScriptedReply,
    failure: OpenAiFailure | undefined,
  ): Promise<void> {
    const plan = planChunks(reply)
    const env = { id: newId('chatcmpl'), created: Math.floor(Date.now() / 1000), model: request.model }
    const usage: Usage = {
      prompt_tokens: reply.usage?.prompt_tokens ?? Math.ceil(JSON.stringify([request.messages, request.tools ?? []]).length / 4),
      completion_tokens: plan.completionTokens,
      total_tokens: 0,
    }
    usage.total_tokens = usage.prompt_tokens + usage.completion_tokens
    const interChunkMs = tokensPerSecond > 0 ? 1000 / tokensPerSecond : 0
    const firstMs = nextFirstTokenMs()
    Object.assign(record.injected, { firstTokenMs: firstMs, interChunkMs })
    const closed = closedSignal(res)
    if (!request.stream) {
      await sleep(firstMs, closed)
      json(res, 200, completionBody(env, plan, usage), {}, record)
      if (!closed.aborted && (plan.content || plan.toolCalls.length)) record.chunkSentAt.push(performance.now())
      return
    }
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-request-id': newId('req') })
    res.flushHeaders()
    record.status = 200
    for (const [i, delta] of plan.deltas.entries()) {
      if ((failure?.kind === 'reset' || failure?.kind === 'stall') && i === failure.afterChunks) {
        if (failure.kind === 'stall') return // silence until the client gives up
        await failure.until
        return reset(res, record)
      }
      await sleep(i === 0 ? firstMs : interChunkMs, closed)
      if (closed.aborted) return
      res.write(`data: ${JSON.stringify(chunkBody(env, delta, request.includeUsage))}\n\n`)
      if (carriesText(delta.delta)) record.chunkSentAt.push(performance.now())
      if (delta.finish_reason !== null) record.finishSentAt = performance.now()
      record.injected.chunks++
    }
    if (request.includeUsage) res.write(`data: ${JSON.stringify(usageBody(env, usage))}\n\n`)
    res.end('data: [DONE]\n\n')
  }

  function log(path: string, raw: string, authorized: boolean, res: http.ServerResponse, receivedAt: number): OpenAiRequest {
    let body: Record<string, unknown> = {}
    try {
      const parsed: unknown = JSON.parse(raw)
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Record<string, unknown>
    } catch {
      // Logged as an empty body; the caller answers 400.
    }
    let settle!: (o: OpenAiOutcome) => void
    const record: OpenAiRequest = {
      at: performance.now(),
      receivedAt,
      chunkSentAt: [],
      finishSentAt: null,
      path,
      authorized,
      model: typeof body.model === 'string' ? body.model : undefined,
      messages: Array.isArray(body.messages) ? (body.messages as StandInMessage[]) : [],
      tools: Array.isArray(body.tools) ? (body.tools as StandInTool[]) : undefined,
      stream: body.stream === true,
      body,
      status: 0,
      injected: { firstTokenMs: 0, interChunkMs: 0, chunks: 0, failure: null },
      outcome: undefined,
      ended: new Promise((r) => (settle = r)),
    }
    const done = (o: OpenAiOutcome) => {
      if (record.outcome) return
      record.outcome = o
      settle(o)
    }
    res.on('finish', () => done('completed'))
    res.on('close', () => done(res.writableFinished ? 'completed' : 'client_closed'))
    settlers.set(record, done)
    requests.push(record)
    return record
  }

  function reset(res: http.ServerResponse, record: OpenAiRequest): void {
    settlers.get(record)?.('reset')
    res.socket?.destroy()
  }

  function json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}, record?: OpenAiRequest): void {
    if (record) record.status = status
    res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': newId('req'), ...headers })
    res.end(JSON.stringify(body))
  }

  await listening(server, options.port ?? 0, options.host ?? '127.0.0.1')
  const { port } = server.address() as AddressInfo
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}/v1`,
    requests,
    fallback: (r) => void (fallback = r),
    script: (...r) => {
      for (const reply of r) {
        if (reply.forUser === undefined) replies.push(reply)
        else keyed.set(reply.forUser, [...(keyed.get(reply.forUser) ?? []), reply])
      }
    },
    synonyms: (...groups) => void (synonyms = synonymTable(groups)),
    modelListings: listing.requests,
    failModelListing: listing.fail,
    fail: (...f) => void failures.push(...f),
    pace: (p) => {
      if (p.firstTokenLatencyMs !== undefined) nextFirstTokenMs = latencySampler(p.firstTokenLatencyMs)
      tokensPerSecond = p.tokensPerSecond ?? tokensPerSecond
    },
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** The default reply: the caller's last user message echoed back, so the input visibly matters. */
function echo(request: ValidRequest): ScriptedReply {
  const last = [...request.messages].reverse().find((m) => m.role === 'user') ?? request.messages.at(-1)
  return { text: `You said: ${contentText(last?.content)}` }
}

function lastUserText(request: ValidRequest): string {
  const last = [...request.messages].reverse().find((m) => m.role === 'user')
  return last ? contentText(last.content) : ''
}

/** Whether a delta hands the client text: content, or a tool call's name or argument piece. */
function carriesText(delta: Record<string, unknown>): boolean {
  if (typeof delta.content === 'string' && delta.content !== '') return true
  const calls = delta.tool_calls as Array<{ function?: { name?: string; arguments?: string } }> | undefined
  return !!calls?.some((c) => !!c.function?.name || !!c.function?.arguments)
}

function describe(f: OpenAiFailure): string {
  return f.kind === 'status' ? `status ${f.status}` : f.kind === 'hang' ? 'hang' : `${f.kind} after ${f.afterChunks} chunks`
}
