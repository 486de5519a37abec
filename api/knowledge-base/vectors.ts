/**
 * The vector side of hybrid knowledge search: query embeddings with a fallback, the nearest chunks
 * of an environment, and the background catch-up that embeds chunks still without a vector.
 *
 * Indexing never waits on the provider: a new document is searchable by BM25 at once, and its
 * chunks are embedded by a catch-up pass run in the background right after. A pass that fails
 * (provider down, slow, refusing the key) leaves the rest of the chunks without vectors and marks
 * the organization's provider unavailable for a cooldown; the first search after the cooldown
 * whose query embedding succeeds starts a new pass. Each pass walks the environment's chunks in
 * rowid order, so a pass is linear in the environment's chunk count however often it stops.
 *
 * Searches compare the query with every vector of the environment (a brute-force scan: chunks ×
 * dimensions multiply-adds, some 20–40 ms per 10,000 chunks of 1,536 dimensions on a small server,
 * six times less at 256) held in memory as one Float32Array per environment (chunks × dimensions ×
 * 4 bytes: 61 MB for that example), read from SQLite on the first search after a document is added
 * or removed or a pass stored vectors (0.3–0.6 s for it). Environments are dropped least recently
 * searched first when the cache passes its byte budget.
 */
import type { Clock, Logger } from '../../core/index.js'
import type { Scope } from '../../db/index.js'
import type { KnowledgeVectorsRepo, VectorKind } from '../../db/repos/knowledge-vectors.js'
import { EmbeddingError, nearest, toBlob, type Embedder, type EmbedderFor } from './embeddings.js'

export interface VectorIndexOptions {
  repo: KnowledgeVectorsRepo
  embedderFor: EmbedderFor
  model: string
  /** The configured vector size; null: whatever the model answers (vectors of other sizes are ignored). */
  dimensions: number | null
  clock: Clock
  logger: Logger
  /** How long after a provider failure its organization's searches skip embeddings (BM25 at once). */
  cooldownMs?: number
  /** Chunks per embeddings request. */
  batchSize?: number
  /** Memory the cached vectors of all environments may take before the least recently searched go. */
  cacheBytes?: number
}

interface Cached {
  dims: number
  matrix: Float32Array
  rowids: Float64Array
  /** Index into `documents` per row (document ids are shared, not repeated per chunk). */
  documentOf: Uint32Array
  documents: string[]
  /** Chunks of the environment without a usable vector when this was read. */
  pending: number
  bytes: number
}

const keyOf = (s: Scope) => `${s.organizationId}/${s.environmentId}`
/** Consecutive refused batches after which a pass stops (the model or the request is wrong, not the input). */
const MAX_REFUSED_BATCHES = 3

export class VectorIndex {
  private readonly options: Required<VectorIndexOptions>
  private readonly kind: VectorKind
  private readonly cache = new Map<string, Cached>()
  private cachedBytes = 0
  private readonly passes = new Map<string, Promise<void>>()
  /** Scopes changed while their pass ran: it runs once more when it ends. */
  private readonly rerun = new Set<string>()
  /** Scopes whose last pass reached the end; a refused chunk is not tried again until the next change. */
  private readonly settled = new Set<string>()
  private readonly downUntil = new Map<string, number>()
  private readonly closing = new AbortController()

  constructor(options: VectorIndexOptions) {
    this.options = { cooldownMs: 30_000, batchSize: 64, cacheBytes: 256 * 1024 * 1024, ...options }
    this.kind = { model: options.model, dimensions: options.dimensions }
  }

  /**
   * The query's unit vector, or null when this search must do without (no key, the provider in its
   * cooldown, or failing now: logged). Rejects only with the signal's reason.
   */
  async embedQuery(organizationId: string, query: string, signal?: AbortSignal): Promise<Float32Array | null> {
    if (this.isDown(organizationId)) return null
    const embedder = this.embedder(organizationId)
    if (!embedder) return null
    try {
      const [vector] = await embedder.embed([query], 'query', signal)
      this.downUntil.delete(organizationId)
      return vector ?? null
    } catch (err) {
      signal?.throwIfAborted()
      const e = err instanceof EmbeddingError ? err : new EmbeddingError((err as Error).message, true)
      if (e.unavailable) this.markDown(organizationId)
      this.options.logger.warn(
        { organization_id: organizationId, err: e.message, ...(e.unavailable ? { retry_in_ms: this.options.cooldownMs } : {}) },
        'query embedding failed; this search is ranked by BM25 alone',
      )
      return null
    }
  }

  /**
   * Rowids of the scope's chunks nearest to `q`, best first (at most `n`); null when the scope has
   * no vector of q's size yet. Starts a catch-up pass when chunks are still without one.
   */
  nearest(scope: Scope, q: Float32Array, n: number, documentIds: readonly string[] | null): number[] | null {
    const entry = this.load(scope, q.length)
    const key = keyOf(scope)
    // A search that could embed its query finds the provider back: time to fill the gaps.
    if (entry.pending > 0 && !this.settled.has(key) && !this.passes.has(key)) this.catchUp(scope)
    if (!entry.rowids.length) return null
    let allow: ((row: number) => boolean) | undefined
    if (documentIds) {
      const wanted = new Set(entry.documents.flatMap((id, i) => (documentIds.includes(id) ? [i] : [])))
      allow = (row) => wanted.has(entry.documentOf[row]!)
    }
    return nearest(entry.matrix, entry.dims, q, n, allow).map((h) => entry.rowids[h.row]!)
  }

  /** A document was added to or removed from the scope: its cached vectors are stale. */
  changed(scope: Scope, added: boolean): void {
    this.drop(keyOf(scope))
    if (!added) return
    this.settled.delete(keyOf(scope))
    this.catchUp(scope)
  }

  /** Starts embedding the scope's chunks that have no vector, unless a pass runs or the provider is cooling down. */
  catchUp(scope: Scope): void {
    const key = keyOf(scope)
    if (this.closing.signal.aborted) return
    if (this.passes.has(key)) return void this.rerun.add(key)
    if (this.isDown(scope.organizationId)) return
    const pass = this.pass(scope, key)
      .catch((err: Error) =>
        this.options.logger.error(
          { organization_id: scope.organizationId, environment_id: scope.environmentId, err: err.message },
          'knowledge embedding pass failed',
        ),
      )
      .finally(() => {
        this.passes.delete(key)
        if (this.rerun.delete(key)) this.catchUp(scope)
      })
    this.passes.set(key, pass)
  }

  /** Resolves when no pass is running (tests; shutdown). */
  async idle(): Promise<void> {
    while (this.passes.size) await Promise.all(this.passes.values())
  }

  /** Stops the running passes at their next request and waits for them. */
  close(): Promise<void> {
    this.closing.abort(new Error('shutting down'))
    return this.idle()
  }

  private async pass(scope: Scope, key: string): Promise<void> {
    const org = scope.organizationId
    const embedder = this.embedder(org)
    if (!embedder) return
    const log = { organization_id: org, environment_id: scope.environmentId }
    let after = -1
    let stored = 0
    let refused = 0
    try {
      for (;;) {
        const batch = this.options.repo.unembedded(scope, this.kind, after, this.options.batchSize)
        if (!batch.length) return void this.settled.add(key)
        after = batch.at(-1)!.rowid
        let vectors: Float32Array[]
        try {
          // The title gives a chunk the context its text may leave implicit (BM25 indexes it too).
          vectors = await embedder.embed(
            batch.map((c) => `${c.title}\n\n${c.text}`),
            'index',
            this.closing.signal,
          )
        } catch (err) {
          if (this.closing.signal.aborted) return
          const e = err instanceof EmbeddingError ? err : new EmbeddingError((err as Error).message, true)
          if (e.unavailable || ++refused >= MAX_REFUSED_BATCHES) {
            this.markDown(org)
            this.options.logger.warn(
              { ...log, err: e.message, embedded: stored, retry_in_ms: this.options.cooldownMs },
              'embedding knowledge chunks stopped; the rest are found by BM25 alone until a later pass',
            )
            return
          }
          this.options.logger.warn(
            { ...log, err: e.message, chunks: batch.length },
            'the embeddings provider refused a batch of knowledge chunks; they are found by BM25 alone',
          )
          continue
        }
        refused = 0
        const rows = batch.map((c, i) => ({ rowid: c.rowid, vector: toBlob(vectors[i]!), dims: vectors[i]!.length }))
        stored += this.options.repo.store(this.options.model, rows, this.options.clock.now())
      }
    } finally {
      if (stored) this.drop(key)
    }
  }

  private load(scope: Scope, dims: number): Cached {
    const key = keyOf(scope)
    const hit = this.cache.get(key)
    if (hit && hit.dims === dims) {
      // Map order is the eviction order: a search moves its environment to the end.
      this.cache.delete(key)
      this.cache.set(key, hit)
      return hit
    }
    this.drop(key)
    const count = this.options.repo.count(scope, this.options.model, dims)
    const matrix = new Float32Array(count * dims)
    const bytes = new Uint8Array(matrix.buffer)
    const rowids = new Float64Array(count)
    const documentOf = new Uint32Array(count)
    const documents: string[] = []
    const documentIndex = new Map<string, number>()
    let n = 0
    for (const row of this.options.repo.load(scope, this.options.model, dims)) {
      if (n === count || row.vector.length !== dims * 4) continue
      bytes.set(row.vector, n * dims * 4)
      rowids[n] = row.rowid
      let d = documentIndex.get(row.document_id)
      if (d === undefined) documentIndex.set(row.document_id, (d = documents.push(row.document_id) - 1))
      documentOf[n++] = d
    }
    const entry: Cached = {
      dims,
      matrix: matrix.subarray(0, n * dims),
      rowids: rowids.subarray(0, n),
      documentOf: documentOf.subarray(0, n),
      documents,
      pending: this.options.repo.pending(scope, this.kind),
      bytes: matrix.byteLength + count * 12 + documents.length * 64,
    }
    this.cache.set(key, entry)
    this.cachedBytes += entry.bytes
    for (const [k, e] of this.cache) {
      if (this.cachedBytes <= this.options.cacheBytes || k === key) break
      this.cache.delete(k)
      this.cachedBytes -= e.bytes
    }
    return entry
  }

  private drop(key: string): void {
    const e = this.cache.get(key)
    if (!e) return
    this.cache.delete(key)
    this.cachedBytes -= e.bytes
  }

  private embedder(organizationId: string): Embedder | undefined {
    try {
      return this.options.embedderFor(organizationId)
    } catch (err) {
      this.options.logger.warn({ organization_id: organizationId, err: (err as Error).message }, 'no embeddings client for the organization; BM25 alone')
      return undefined
    }
  }

  private isDown(organizationId: string): boolean {
    const until = this.downUntil.get(organizationId)
    return until !== undefined && this.options.clock.now() < until
  }

  private markDown(organizationId: string): void {
    this.downUntil.set(organizationId, this.options.clock.now() + this.options.cooldownMs)
  }
}
