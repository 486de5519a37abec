/**
 * Embeddings for hybrid knowledge search: an OpenAI-compatible `embeddings.create` client (the
 * `openai` SDK, so the real wire protocol, base64 transfer included), and the vector arithmetic.
 *
 * Retries are ours (maxRetries: 0 in the SDK), as in the LLM provider: on connection failures,
 * 429 and 5xx, with full-jitter backoff, a short Retry-After waited out, a timeout not retried.
 */
import type OpenAI from 'openai'
import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai'
import { destinationRefusal, type Config, type Logger } from '../../core/index.js'
import type { OpenAiAccess } from '../credentials/openai-access.js'
import { retryAfter } from '../../engine/pipeline/providers/llm/errors.js'
import { openAiClient } from '../../engine/pipeline/providers/openai-client.js'
import type { ProviderConnections } from '../../engine/pipeline/providers/connections.js'

export interface Embedder {
  /** Stored with each vector: vectors of different models are never compared. */
  readonly model: string
  /** Unit-length vectors, one per text, in order. Throws EmbeddingError (or the signal's reason). */
  embed(texts: readonly string[], purpose: 'query' | 'index', signal?: AbortSignal): Promise<Float32Array[]>
}

/** The embedder of an organization's knowledge base; undefined: no key anywhere, BM25 only. */
export type EmbedderFor = (organizationId: string) => Embedder | undefined

export class EmbeddingError extends Error {
  override readonly name = 'EmbeddingError'
  constructor(
    message: string,
    /**
     * The provider, not the input, is the problem (unreachable, slow, refusing the key, rate
     * limiting, failing): try again later. Otherwise the provider refused these inputs.
     */
    readonly unavailable: boolean,
    /** Worth repeating at once (after a short backoff): a dropped connection, a 429 or a 5xx. */
    readonly retryable = false,
    readonly retryAfterMs?: number,
  ) {
    super(message)
  }
}

export interface OpenAiEmbedderOptions {
  apiKey: string
  baseURL: string
  organization?: string | null
  model: string
  /** Sent as `dimensions` (text-embedding-3 models shorten their vectors); null: the model's own size. */
  dimensions: number | null
  timeoutMs: number
  /**
   * An organization's base URL: the guarded pool its requests connect through (checked and pinned
   * at connect time). Absent: the operator's URL, fetched as the SDK does.
   */
  connections?: ProviderConnections
}

/** Retries after the first attempt: a query sits in front of a caller's answer, indexing does not. */
const RETRIES = { query: 1, index: 2 } as const
const RETRY_BASE_MS = 250
const RETRY_MAX_DELAY_MS = 4_000
const MAX_RETRY_AFTER_MS = 5_000

export class OpenAiEmbedder implements Embedder {
  readonly model: string
  private readonly client: OpenAI
  private readonly host: string

  constructor(private readonly options: OpenAiEmbedderOptions) {
    this.model = options.model
    this.host = new URL(options.baseURL).host
    this.client = openAiClient(options)
  }

  async embed(texts: readonly string[], purpose: 'query' | 'index', signal?: AbortSignal): Promise<Float32Array[]> {
    if (!texts.length) return []
    for (let attempt = 0; ; attempt++) {
      signal?.throwIfAborted()
      let error: EmbeddingError
      try {
        return await this.request(texts, signal)
      } catch (err) {
        signal?.throwIfAborted()
        error = this.toError(err)
      }
      if (!error.retryable || attempt >= RETRIES[purpose]) throw error
      if (error.retryAfterMs !== undefined && error.retryAfterMs > MAX_RETRY_AFTER_MS) throw error
      await sleep(error.retryAfterMs ?? Math.floor(Math.random() * Math.min(RETRY_MAX_DELAY_MS, RETRY_BASE_MS * 2 ** attempt)), signal)
    }
  }

  private async request(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    // The SDK's own timeout stops at the response head; this one covers the body too.
    const ac = new AbortController()
    const onAbort = () => ac.abort(signal!.reason)
    signal?.addEventListener('abort', onAbort, { once: true })
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      ac.abort()
    }, this.options.timeoutMs)
    let res: OpenAI.Embeddings.CreateEmbeddingResponse
    try {
      res = await this.client.embeddings.create(
        { model: this.options.model, input: [...texts], ...(this.options.dimensions ? { dimensions: this.options.dimensions } : {}) },
        { signal: ac.signal },
      )
    } catch (err) {
      signal?.throwIfAborted()
      throw timedOut ? new APIConnectionTimeoutError() : err
    } finally {
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
    }
    const out: (Float32Array | undefined)[] = new Array(texts.length)
    for (const d of res.data ?? []) {
      // The SDK hands base64 answers over as Float32Array although it types them number[].
      const v = normalize(Float32Array.from(d.embedding as ArrayLike<number>))
      if (v && Number.isInteger(d.index) && d.index >= 0 && d.index < texts.length) out[d.index] = v
    }
    const dims = out[0]?.length
    if (out.some((v) => !v || v.length !== dims) || (this.options.dimensions && dims !== this.options.dimensions)) {
      const size = this.options.dimensions ? ` ${this.options.dimensions}-dimensional` : ''
      throw new EmbeddingError(`The embeddings provider at ${this.host} did not answer one non-zero${size} vector per input`, false)
    }
    return out as Float32Array[]
  }

  private toError(err: unknown): EmbeddingError {
    const at = `The embeddings provider at ${this.host}`
    if (err instanceof EmbeddingError) return err
    const refusal = destinationRefusal(err)
    // Not retried: the destination stays refused, and the key must not be offered to it again.
    if (refusal) return new EmbeddingError(`${at} is refused by the outbound guard: ${refusal.message}`, true)
    // A timeout is not repeated at once: the caller already waited that long.
    if (err instanceof APIConnectionTimeoutError) return new EmbeddingError(`${at} sent no response within ${this.options.timeoutMs} ms`, true)
    if (err instanceof APIConnectionError) {
      const code = (err.cause as { code?: unknown } | undefined)?.code
      return new EmbeddingError(`${at} could not be reached${typeof code === 'string' ? ` (${code})` : ''}`, true, true)
    }
    if (err instanceof APIError && typeof err.status === 'number') {
      const s = err.status
      // The provider's text may quote part of the key: only the status is kept.
      if (s === 401 || s === 403) return new EmbeddingError(`${at} refused the API key (HTTP ${s})`, true)
      // Billing exhaustion is a 429 too, and no amount of retrying fixes it.
      if (s === 429 && err.code === 'insufficient_quota') return new EmbeddingError(`${at} refused: quota exhausted (HTTP 429)`, true)
      if (s === 408 || s === 409 || s === 429 || s >= 500) return new EmbeddingError(`${at} failed (HTTP ${s})`, true, true, retryAfter(err.headers))
      const detail = (err.error as { message?: unknown } | undefined)?.message
      const why = typeof detail === 'string' ? `: ${detail.split(this.options.apiKey).join('[redacted]').slice(0, 300)}` : ''
      // No such model or endpoint there: the configuration is wrong, not the input.
      if (s === 404) return new EmbeddingError(`${at} does not serve model ${this.options.model} (HTTP 404)${why}`, true)
      return new EmbeddingError(`${at} refused the request (HTTP ${s}, model ${this.options.model})${why}`, false)
    }
    return new EmbeddingError(`${at} broke off the response`, true, true)
  }
}

/**
 * The platform's embedder factory: undefined while OZAN_EMBEDDINGS_MODEL is unset (BM25 only).
 * Key and base URL are the LLM's (api/credentials/openai-access.ts), resolved per use.
 */
export function embeddersFor(deps: {
  config: Pick<Config, 'embeddingsModel' | 'embeddingsDimensions' | 'embeddingsTimeoutMs'>
  accessFor: (organizationId: string) => OpenAiAccess | undefined
  logger: Logger
  /** The guarded pool an organization's own base URL connects through. */
  organizationConnections: ProviderConnections
}): EmbedderFor | undefined {
  const { config, accessFor } = deps
  const model = config.embeddingsModel
  if (!model) return undefined
  return (organizationId) => {
    const access = accessFor(organizationId)
    if (!access) return undefined
    const { origin, ...rest } = access
    const connections = origin === 'organization' ? deps.organizationConnections : undefined
    return new OpenAiEmbedder({
      ...rest,
      model,
      dimensions: config.embeddingsDimensions,
      timeoutMs: config.embeddingsTimeoutMs,
      ...(connections && { connections }),
    })
  }
}

/** v scaled to unit length (a copy), so cosine similarity is a dot product; null for a zero or broken vector. */
export function normalize(v: Float32Array): Float32Array | null {
  let sum = 0
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!
  if (!(sum > 0) || !Number.isFinite(sum)) return null
  const inv = 1 / Math.sqrt(sum)
  return v.map((x) => x * inv)
}

/** A vector as stored: its float32 bytes in the platform's order (little-endian on every supported host). */
export const toBlob = (v: Float32Array): Buffer => Buffer.from(v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength))

/**
 * The `n` rows of a packed matrix (`dims` floats per row, unit rows) most similar to unit vector
 * `q`, best first, rows with similarity ≤ 0 left out (nothing in common). `allow` filters rows.
 * A brute-force scan: n·dims multiply-adds, with a small sorted list of the best seen so far.
 */
export function nearest(
  matrix: Float32Array,
  dims: number,
  q: Float32Array,
  n: number,
  allow?: (row: number) => boolean,
): { row: number; similarity: number }[] {
  const best: { row: number; similarity: number }[] = []
  const rows = matrix.length / dims
  for (let r = 0; r < rows; r++) {
    if (allow && !allow(r)) continue
    const dot = dotAt(matrix, r * dims, q, dims)
    if (dot <= 0 || (best.length === n && dot <= best[n - 1]!.similarity)) continue
    let at = best.length
    while (at > 0 && best[at - 1]!.similarity < dot) at--
    best.splice(at, 0, { row: r, similarity: dot })
    if (best.length > n) best.pop()
  }
  return best
}

/** One row's dot product with q; four running sums let V8 overlap the multiply-adds (about twice as fast). */
function dotAt(m: Float32Array, base: number, q: Float32Array, dims: number): number {
  let a = 0
  let b = 0
  let c = 0
  let d = 0
  let i = 0
  for (; i + 3 < dims; i += 4) {
    a += m[base + i]! * q[i]!
    b += m[base + i + 1]! * q[i + 1]!
    c += m[base + i + 2]! * q[i + 2]!
    d += m[base + i + 3]! * q[i + 3]!
  }
  for (; i < dims; i++) a += m[base + i]! * q[i]!
  return a + b + c + d
}

/** Reciprocal Rank Fusion (Cormack et al., 2009): the constant that damps the top ranks' weight. */
export const RRF_K = 60

/** Each key's fused score Σ 1 / (RRF_K + rank) over the ranked lists it appears in (ranks from 1). */
export function reciprocalRankFusion<K>(lists: readonly (readonly K[])[], k = RRF_K): Map<K, number> {
  const scores = new Map<K, number>()
  for (const list of lists) list.forEach((key, i) => scores.set(key, (scores.get(key) ?? 0) + 1 / (k + i + 1)))
  return scores
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
