import { randomUUID } from 'node:crypto'
import path from 'node:path'
import type { Clock, Logger } from '../../core/index.js'
import type { KnowledgeDocumentRow, KnowledgeDocumentSummaryRow, PageRequest, Repos, Scope } from '../../db/index.js'
import type { KnowledgeBase, KnowledgeHit } from '../../engine/graph-runtime/index.js'
import { ApiError } from '../http/errors.js'
import type { UploadedFile } from '../http/multipart.js'
import { ValidationError } from '../http/validation.js'
import type { Principal } from '../security/principal.js'
import type { EntitlementGuard } from '../entitlements/index.js'
import { chunkText, DEFAULT_CHUNKING, type ChunkingOptions } from './chunking.js'
import { embeddersFor, reciprocalRankFusion } from './embeddings.js'
import { CONTENT_TYPES, detectKind, extractText, normalizeText } from './parsers.js'
import { MAX_TEXT_CHARS, type DocumentCreateT, type DocumentDetailT, type DocumentResponseT, type SearchHitResponseT, type SearchRequestT } from './schema.js'
import { SCORED_MATCHES_BUDGET, affordableGroups, foldForIndex, queryTerms, scoreOf, snippet, termGroups, type Term } from './search.js'
import { VectorIndex } from './vectors.js'

const iso = (ms: number) => new Date(ms).toISOString()
const scopeOf = (p: Principal): Scope => ({ organizationId: p.organizationId, environmentId: p.environmentId })

function response(row: KnowledgeDocumentSummaryRow): DocumentResponseT {
  return {
    id: row.id,
    title: row.title,
    source: row.source,
    content_type: row.content_type,
    size_bytes: row.size_bytes,
    char_count: row.char_count,
    chunk_count: row.chunk_count,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    created_at: iso(row.created_at),
  }
}

interface NewDocument {
  title: string
  source: string | null
  contentType: string
  sizeBytes: number
  text: string
  metadata: Record<string, unknown>
}

/** One best chunk of a search, before it is shaped for the API or the runtime. */
interface Hit {
  rowid: number
  chunkId: string
  chunkIndex: number
  documentId: string
  title: string
  text: string
  score: number
}

type Ranking = 'bm25' | 'hybrid'

/** How many of each ranking's best chunks are fused (a hit of neither list is never returned). */
const CANDIDATES = 50

export interface KnowledgeServiceOptions {
  /** The plan's document and byte limits (402 quota_exceeded). */
  quota: Pick<EntitlementGuard, 'assertKnowledgeRoom'>
  chunking?: Partial<ChunkingOptions>
  /** Hybrid ranking, on when `config.embeddingsModel` is set (api/knowledge-base/embeddings.ts). */
  embeddings?: Parameters<typeof embeddersFor>[0] & { cooldownMs?: number }
}

/**
 * Documents of an environment: typed or uploaded text, chunked, indexed, searched with BM25, and
 * with embeddings too when configured (hybrid ranking: api/knowledge-base/vectors.ts).
 */
export class KnowledgeService {
  private readonly chunking: ChunkingOptions
  private readonly vectors: VectorIndex | null = null
  private readonly logger: Logger | undefined

  constructor(
    private readonly repos: Repos,
    private readonly clock: Clock,
    private readonly options: KnowledgeServiceOptions,
  ) {
    this.chunking = { ...DEFAULT_CHUNKING, ...options.chunking }
    const e = options.embeddings
    const embedderFor = e && embeddersFor(e)
    this.logger = e?.logger
    if (e && embedderFor) {
      this.vectors = new VectorIndex({
        repo: repos.knowledge.vectors,
        embedderFor,
        model: e.config.embeddingsModel!,
        dimensions: e.config.embeddingsDimensions,
        clock,
        logger: e.logger,
        ...(e.cooldownMs !== undefined ? { cooldownMs: e.cooldownMs } : {}),
      })
    }
  }

  /** Resolves when no background embedding runs (tests). */
  idle(): Promise<void> {
    return this.vectors?.idle() ?? Promise.resolve()
  }

  /** Stops background embedding (shutdown). */
  close(): Promise<void> {
    return this.vectors?.close() ?? Promise.resolve()
  }

  create(p: Principal, input: DocumentCreateT): DocumentResponseT {
    const text = normalizeText(input.text)
    return this.store(p, {
      title: input.title,
      source: input.source ?? null,
      contentType: CONTENT_TYPES.text,
      sizeBytes: Buffer.byteLength(input.text),
      text,
      metadata: input.metadata,
    })
  }

  /** Reads the file by its kind; the text must come out non-empty and within MAX_TEXT_CHARS. */
  async upload(p: Principal, file: UploadedFile, title?: string): Promise<DocumentResponseT> {
    const kind = detectKind(file.filename, file.mimeType)
    const text = await extractText(kind, file.data)
    if (!text)
      throw new ValidationError([
        { type: 'empty_document', loc: ['body', 'file'], msg: 'No text could be extracted (a scanned PDF needs OCR, which is not supported).' },
      ])
    const name = path.basename(file.filename)
    return this.store(p, {
      title:
        title ??
        (name
          .slice(0, name.length - path.extname(name).length)
          .trim()
          .slice(0, 200) ||
          'Untitled'),
      source: name || null,
      contentType: CONTENT_TYPES[kind],
      sizeBytes: file.data.length,
      text,
      metadata: {},
    })
  }

  list(p: Principal, at: PageRequest): { items: DocumentResponseT[]; total: number } {
    const page = this.repos.knowledge.page(scopeOf(p), at)
    return { items: page.items.map(response), total: page.total }
  }

  detail(p: Principal, id: string): DocumentDetailT {
    const row = this.row(p, id)
    return { ...response(row), text: row.text }
  }

  remove(p: Principal, id: string): void {
    if (!this.repos.knowledge.delete(scopeOf(p), id, foldForIndex)) throw new ApiError('not_found')
    this.vectors?.changed(scopeOf(p), false)
  }

  /** Best chunks first; a query with no searchable word (only punctuation) finds nothing. */
  async search(p: Principal, req: SearchRequestT): Promise<SearchHitResponseT[]> {
    const terms = queryTerms(req.query)
    const { hits, ranking } = await this.rank(scopeOf(p), req.query, terms, req.top_k, req.document_ids ?? null)
    return hits.map((h) => ({
      score: h.score,
      ranking,
      snippet: snippet(h.text, terms),
      document: { id: h.documentId, title: h.title },
      chunk: { id: h.chunkId, index: h.chunkIndex, text: h.text },
    }))
  }

  /** The graph runtime's view of one environment's knowledge base (knowledge nodes, LLM grounding). */
  forScope(scope: Scope): KnowledgeBase {
    return {
      search: async (query: string, topK: number, signal: AbortSignal, documentIds?: string[]): Promise<KnowledgeHit[]> => {
        signal.throwIfAborted()
        const k = Math.min(50, Math.max(1, Math.floor(topK)))
        const { hits } = await this.rank(scope, query, queryTerms(query), k, documentIds ?? null, signal)
        return hits.map((h) => ({
          document_id: h.documentId,
          chunk_id: h.chunkId,
          text: h.text,
          score: h.score,
        }))
      },
    }
  }

  /**
   * BM25 alone; or, when embeddings are on and the query could be embedded, Reciprocal Rank Fusion
   * of the BM25 list and the nearest-vector list, so a chunk sharing no word with the query (only
   * its meaning) is found too. The vector side never fails a search: it falls back to BM25.
   */
  private async rank(
    scope: Scope,
    query: string,
    terms: Term[],
    k: number,
    documentIds: readonly string[] | null,
    signal?: AbortSignal,
  ): Promise<{ hits: Hit[]; ranking: Ranking }> {
    // A query with no letter or digit finds nothing, whatever an embedding would say.
    if (!terms.length || documentIds?.length === 0) return { hits: [], ranking: 'bm25' }
    const q = this.vectors && (await this.vectors.embedQuery(scope.organizationId, query, signal))
    if (!this.vectors || !q) return { hits: this.hits(scope, terms, k, documentIds), ranking: 'bm25' }
    const lexical = this.hits(scope, terms, CANDIDATES, documentIds)
    let semantic: number[] | null = null
    try {
      semantic = this.vectors.nearest(scope, q, CANDIDATES, documentIds)
    } catch (err) {
      this.logger?.warn(
        { organization_id: scope.organizationId, environment_id: scope.environmentId, err: (err as Error).message },
        'vector search failed; this search is ranked by BM25 alone',
      )
    }
    // No vectors in the environment yet: the ranking (and the score's meaning) stays BM25's.
    if (!semantic) return { hits: lexical.slice(0, k), ranking: 'bm25' }
    const byRowid = new Map(lexical.map((h) => [h.rowid, h]))
    for (const c of this.repos.knowledge.vectors.chunks(
      scope,
      semantic.filter((r) => !byRowid.has(r)),
    )) {
      byRowid.set(c.rowid, {
        rowid: c.rowid,
        chunkId: c.chunk_id,
        chunkIndex: c.chunk_index,
        documentId: c.document_id,
        title: c.title,
        text: c.text,
        score: 0,
      })
    }
    const lexicalRank = new Map(lexical.map((h, i) => [h.rowid, i]))
    const fused = [...reciprocalRankFusion([lexical.map((h) => h.rowid), semantic])].filter(([rowid]) => byRowid.has(rowid))
    // Equal fused scores: the better BM25 rank first, then the lower rowid, so results are stable.
    const rankOf = (rowid: number) => lexicalRank.get(rowid) ?? Infinity
    fused.sort((a, b) => b[1] - a[1] || rankOf(a[0]) - rankOf(b[0]) || a[0] - b[0])
    return { hits: fused.slice(0, k).map(([rowid, score]) => ({ ...byRowid.get(rowid)!, score: Number(score.toPrecision(6)) })), ranking: 'hybrid' }
  }

  private hits(scope: Scope, terms: Term[], k: number, documentIds: readonly string[] | null): Hit[] {
    let groups = termGroups(terms)
    if (!groups.length || documentIds?.length === 0) return []
    if (groups.length > 1) {
      const counted = groups.map((group) => ({ group, matches: this.repos.knowledge.countUpTo(scope, group, SCORED_MATCHES_BUDGET + 1) }))
      groups = affordableGroups(counted)
    }
    return this.repos.knowledge.search(scope, groups.join(' OR '), k, documentIds).map((r) => ({
      rowid: r.rowid,
      chunkId: r.chunk_id,
      chunkIndex: r.chunk_index,
      documentId: r.document_id,
      title: r.title,
      text: r.text,
      score: scoreOf(r.bm25),
    }))
  }

  private store(p: Principal, doc: NewDocument): DocumentResponseT {
    if (doc.text.length > MAX_TEXT_CHARS) throw new ApiError('file_too_large', `The document's text is longer than ${MAX_TEXT_CHARS} characters.`)
    this.options.quota.assertKnowledgeRoom(p.organizationId, doc.sizeBytes)
    const id = randomUUID()
    const foldedTitle = foldForIndex(doc.title)
    const chunks = chunkText(doc.text, this.chunking).map((c) => ({
      id: randomUUID(),
      index: c.index,
      text: c.text,
      foldedTitle,
      foldedBody: foldForIndex(c.text),
    }))
    const row: Omit<KnowledgeDocumentRow, 'chunk_count' | 'char_count'> = {
      id,
      organization_id: p.organizationId,
      environment_id: p.environmentId,
      title: doc.title,
      source: doc.source,
      content_type: doc.contentType,
      size_bytes: doc.sizeBytes,
      text: doc.text,
      metadata: JSON.stringify(doc.metadata),
      created_by: p.userId,
      created_at: this.clock.now(),
    }
    this.repos.knowledge.insert(row, chunks)
    // Searchable by BM25 now; its vectors follow in the background (a provider outage never fails this).
    this.vectors?.changed(scopeOf(p), true)
    return response(this.row(p, id))
  }

  private row(p: Principal, id: string): KnowledgeDocumentRow {
    const row = this.repos.knowledge.get(scopeOf(p), id)
    if (!row) throw new ApiError('not_found')
    return row
  }
}
