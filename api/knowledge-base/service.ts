import { randomUUID } from 'node:crypto'
import path from 'node:path'
import type { Clock } from '../../core/index.js'
import type { KnowledgeDocumentRow, KnowledgeDocumentSummaryRow, Repos, Scope } from '../../db/index.js'
import type { KnowledgeBase, KnowledgeHit } from '../../engine/graph-runtime/index.js'
import { ApiError } from '../http/errors.js'
import type { UploadedFile } from '../http/multipart.js'
import { ValidationError } from '../http/validation.js'
import type { Principal } from '../security/principal.js'
import { chunkText, DEFAULT_CHUNKING, type ChunkingOptions } from './chunking.js'
import { CONTENT_TYPES, detectKind, extractText, normalizeText } from './parsers.js'
import { MAX_TEXT_CHARS, type DocumentCreateT, type DocumentDetailT, type DocumentResponseT, type SearchHitResponseT, type SearchRequestT } from './schema.js'
import { SCORED_MATCHES_BUDGET, affordableGroups, foldForIndex, queryTerms, scoreOf, snippet, termGroups, type Term } from './search.js'

const iso = (ms: number) => new Date(ms).toISOString()
const scopeOf = (p: Principal): Scope => ({ organizationId: p.organizationId, environmentId: p.environmentId })

function response(row: KnowledgeDocumentSummaryRow): DocumentResponseT {
  return {
    id: row.id, title: row.title, source: row.source, content_type: row.content_type, size_bytes: row.size_bytes,
    char_count: row.char_count, chunk_count: row.chunk_count, metadata: JSON.parse(row.metadata) as Record<string, unknown>,
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
  chunkId: string
  chunkIndex: number
  documentId: string
  title: string
  text: string
  score: number
}

/** Documents of an environment: typed or uploaded text, chunked, indexed, searched with BM25. */
export class KnowledgeService {
  private readonly chunking: ChunkingOptions

  constructor(
    private readonly repos: Repos,
    private readonly clock: Clock,
    chunking: Partial<ChunkingOptions> = {},
  ) {
    this.chunking = { ...DEFAULT_CHUNKING, ...chunking }
  }

  create(p: Principal, input: DocumentCreateT): DocumentResponseT {
    const text = normalizeText(input.text)
    return this.store(p, {
      title: input.title, source: input.source ?? null, contentType: CONTENT_TYPES.text,
      sizeBytes: Buffer.byteLength(input.text), text, metadata: input.metadata,
    })
  }

  /** Reads the file by its kind; the text must come out non-empty and within MAX_TEXT_CHARS. */
  async upload(p: Principal, file: UploadedFile, title?: string): Promise<DocumentResponseT> {
    const kind = detectKind(file.filename, file.mimeType)
    const text = await extractText(kind, file.data)
    if (!text) throw new ValidationError([{ type: 'empty_document', loc: ['body', 'file'], msg: 'No text could be extracted (a scanned PDF needs OCR, which is not supported).' }])
    const name = path.basename(file.filename)
    return this.store(p, {
      title: title ?? (name.slice(0, name.length - path.extname(name).length).trim().slice(0, 200) || 'Untitled'),
      source: name || null, contentType: CONTENT_TYPES[kind], sizeBytes: file.data.length, text, metadata: {},
    })
  }

  list(p: Principal): DocumentResponseT[] {
    return this.repos.knowledge.list(scopeOf(p)).map(response)
  }

  detail(p: Principal, id: string): DocumentDetailT {
    const row = this.row(p, id)
    return { ...response(row), text: row.text }
  }

  remove(p: Principal, id: string): void {
    if (!this.repos.knowledge.delete(scopeOf(p), id, foldForIndex)) throw new ApiError('not_found')
  }

  /** Best chunks first; a query with no searchable word (only punctuation) finds nothing. */
  search(p: Principal, req: SearchRequestT): SearchHitResponseT[] {
    const terms = queryTerms(req.query)
    return this.hits(scopeOf(p), terms, req.top_k, req.document_ids ?? null).map((h) => ({
      score: h.score,
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
        return this.hits(scope, queryTerms(query), k, documentIds ?? null).map((h) => ({
          document_id: h.documentId, chunk_id: h.chunkId, text: h.text, score: h.score,
        }))
      },
    }
  }

  private hits(scope: Scope, terms: Term[], k: number, documentIds: readonly string[] | null): Hit[] {
    let groups = termGroups(terms)
    if (!groups.length || documentIds?.length === 0) return []
    if (groups.length > 1) {
      const counted = groups.map((group) => ({ group, matches: this.repos.knowledge.countUpTo(scope, group, SCORED_MATCHES_BUDGET + 1) }))
      groups = affordableGroups(counted)
    }
    return this.repos.knowledge.search(scope, groups.join(' OR '), k, documentIds).map((r) => ({
      chunkId: r.chunk_id, chunkIndex: r.chunk_index, documentId: r.document_id, title: r.title, text: r.text, score: scoreOf(r.bm25),
    }))
  }

  private store(p: Principal, doc: NewDocument): DocumentResponseT {
    if (doc.text.length > MAX_TEXT_CHARS) throw new ApiError('file_too_large', `The document's text is longer than ${MAX_TEXT_CHARS} characters.`)
    const id = randomUUID()
    const foldedTitle = foldForIndex(doc.title)
    const chunks = chunkText(doc.text, this.chunking).map((c) => ({
      id: randomUUID(), index: c.index, text: c.text, foldedTitle, foldedBody: foldForIndex(c.text),
    }))
    const row: Omit<KnowledgeDocumentRow, 'chunk_count' | 'char_count'> = {
      id, organization_id: p.organizationId, environment_id: p.environmentId, title: doc.title, source: doc.source,
      content_type: doc.contentType, size_bytes: doc.sizeBytes, text: doc.text, metadata: JSON.stringify(doc.metadata),
      created_by: p.userId, created_at: this.clock.now(),
    }
    this.repos.knowledge.insert(row, chunks)
    return response(this.row(p, id))
  }

  private row(p: Principal, id: string): KnowledgeDocumentRow {
    const row = this.repos.knowledge.get(scopeOf(p), id)
    if (!row) throw new ApiError('not_found')
    return row
  }
}
