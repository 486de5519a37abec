import type { Db } from '../database.js'
import { KnowledgeVectorsRepo } from './knowledge-vectors.js'
import type { PageRequest, Scope } from './workflows.js'

export interface KnowledgeDocumentRow {
  id: string
  organization_id: string
  environment_id: string
  title: string
  source: string | null
  content_type: string
  size_bytes: number
  text: string
  char_count: number
  /** JSON object. */
  metadata: string
  chunk_count: number
  created_by: string | null
  created_at: number
}

/** A document as listed: everything but its text. */
export type KnowledgeDocumentSummaryRow = Omit<KnowledgeDocumentRow, 'text'>

export interface NewKnowledgeChunk {
  id: string
  index: number
  text: string
  /** The index terms: the document title and the chunk text, folded by the caller. */
  foldedTitle: string
  foldedBody: string
}

export interface KnowledgeSearchRow {
  /** The chunk's integer rowid (its vector's key). */
  rowid: number
  chunk_id: string
  document_id: string
  chunk_index: number
  text: string
  title: string
  /** FTS5 bm25(): lower is better (negative). */
  bm25: number
}

const SCOPED = 'organization_id = @org AND environment_id = @env'
const SUMMARY_COLUMNS =
  'id, organization_id, environment_id, title, source, content_type, size_bytes, char_count, metadata, chunk_count, created_by, created_at'
/** Title matches count twice a body match (bm25 column weights follow the FTS column order). */
const WEIGHTS = '2.0, 1.0'
/** Rowids of a scope: scope_id * 2^30 + n (006_knowledge_base.sql); scope ids stay below 2^23 so rowids stay exact in JS. */
const SCOPE_ROWS = 2 ** 30
const MAX_SCOPE_ID = 2 ** 23

/** The best chunks of one rowid range; titles looked up for those alone, the scope checked again. */
const searchSql = (filter: string) =>
  `SELECT best.rid AS rowid, c.id AS chunk_id, c.document_id, c.chunk_index, c.text, d.title, best.bm25
   FROM (
     SELECT rowid AS rid, bm25(knowledge_fts, ${WEIGHTS}) AS bm25 FROM knowledge_fts
     WHERE knowledge_fts MATCH @match AND rowid BETWEEN @lo AND @hi ${filter}
     ORDER BY bm25 LIMIT @k
   ) best
   JOIN knowledge_chunks c ON c.rowid = best.rid
   JOIN knowledge_documents d ON d.id = c.document_id
   WHERE c.organization_id = @org AND c.environment_id = @env
   ORDER BY best.bm25, c.document_id, c.chunk_index`

/** An environment-scoped resource: every statement is bound to organization and environment. */
export class KnowledgeRepo {
  /** The chunks' embedding vectors (hybrid ranking), bound to the same rowid ranges. */
  readonly vectors: KnowledgeVectorsRepo
  private readonly insertDocStmt
  private readonly ensureScopeStmt
  private readonly scopeStmt
  private readonly advanceScopeStmt
  private readonly insertChunkStmt
  private readonly indexChunkStmt
  private readonly pageStmt
  private readonly totalStmt
  private readonly getStmt
  private readonly deleteStmt
  private readonly chunksOfStmt
  private readonly unindexStmt
  private readonly searchStmt
  private readonly searchDocsStmt
  private readonly countStmt

  constructor(private readonly db: Db) {
    this.vectors = new KnowledgeVectorsRepo(db, (s) => this.range(s))
    this.insertDocStmt = db.prepare(
      `INSERT INTO knowledge_documents (id, organization_id, environment_id, title, source, content_type, size_bytes, text, char_count, metadata, chunk_count, created_by, created_at)
       VALUES (@id, @organization_id, @environment_id, @title, @source, @content_type, @size_bytes, @text, @char_count, @metadata, @chunk_count, @created_by, @created_at)`,
    )
    this.ensureScopeStmt = db.prepare('INSERT INTO knowledge_scopes (organization_id, environment_id) VALUES (@org, @env) ON CONFLICT DO NOTHING')
    this.scopeStmt = db.prepare<{ org: string; env: string }, { id: number; next_seq: number }>(`SELECT id, next_seq FROM knowledge_scopes WHERE ${SCOPED}`)
    this.advanceScopeStmt = db.prepare('UPDATE knowledge_scopes SET next_seq = next_seq + @n WHERE id = @id')
    this.insertChunkStmt = db.prepare(
      `INSERT INTO knowledge_chunks (rowid, id, document_id, organization_id, environment_id, chunk_index, text)
       VALUES (@rowid, @id, @document_id, @org, @env, @index, @text)`,
    )
    this.indexChunkStmt = db.prepare('INSERT INTO knowledge_fts (rowid, title, body) VALUES (?, ?, ?)')
    this.pageStmt = db.prepare(`SELECT ${SUMMARY_COLUMNS} FROM knowledge_documents WHERE ${SCOPED} ORDER BY created_at DESC, id LIMIT @limit OFFSET @offset`)
    this.totalStmt = db.prepare<{ org: string; env: string }, { n: number }>(`SELECT count(*) AS n FROM knowledge_documents WHERE ${SCOPED}`)
    this.getStmt = db.prepare(`SELECT * FROM knowledge_documents WHERE ${SCOPED} AND id = @id`)
    this.deleteStmt = db.prepare(`DELETE FROM knowledge_documents WHERE ${SCOPED} AND id = @id`)
    this.chunksOfStmt = db.prepare<[string], { rowid: number; text: string }>('SELECT rowid, text FROM knowledge_chunks WHERE document_id = ?')
    this.unindexStmt = db.prepare("INSERT INTO knowledge_fts (knowledge_fts, rowid, title, body) VALUES ('delete', ?, ?, ?)")
    this.searchStmt = db.prepare(searchSql(''))
    this.searchDocsStmt = db.prepare(
      searchSql(
        'AND rowid IN (SELECT f.rowid FROM knowledge_chunks f WHERE f.document_id IN (SELECT value FROM json_each(@ids)) AND f.organization_id = @org AND f.environment_id = @env)',
      ),
    )
    this.countStmt = db.prepare<{ match: string; lo: number; hi: number; cap: number }, { n: number }>(
      'SELECT count(*) AS n FROM (SELECT 1 FROM knowledge_fts WHERE knowledge_fts MATCH @match AND rowid BETWEEN @lo AND @hi LIMIT @cap)',
    )
  }

  /** Stores a document with its chunks and their index rows, all or nothing. */
  insert(doc: Omit<KnowledgeDocumentRow, 'chunk_count' | 'char_count'>, chunks: readonly NewKnowledgeChunk[]): void {
    const org = doc.organization_id
    const env = doc.environment_id
    this.db.transaction(() => {
      this.insertDocStmt.run({ ...doc, char_count: doc.text.length, chunk_count: chunks.length })
      this.ensureScopeStmt.run({ org, env })
      const scope = this.scopeStmt.get({ org, env })!
      if (scope.id >= MAX_SCOPE_ID || scope.next_seq + chunks.length > SCOPE_ROWS) throw new Error('knowledge scope rowid space exhausted')
      for (const [i, c] of chunks.entries()) {
        const rowid = scope.id * SCOPE_ROWS + scope.next_seq + i
        this.insertChunkStmt.run({ rowid, id: c.id, document_id: doc.id, org, env, index: c.index, text: c.text })
        this.indexChunkStmt.run(rowid, c.foldedTitle, c.foldedBody)
      }
      this.advanceScopeStmt.run({ id: scope.id, n: chunks.length })
    })()
  }
  /** One page of the environment's documents, newest first; `id` orders documents added in the same millisecond. */
  page(s: Scope, at: PageRequest): { items: KnowledgeDocumentSummaryRow[]; total: number } {
    const scope = { org: s.organizationId, env: s.environmentId }
    return {
      items: this.pageStmt.all({ ...scope, limit: at.limit, offset: at.offset }) as KnowledgeDocumentSummaryRow[],
      total: this.totalStmt.get(scope)!.n,
    }
  }
  get(s: Scope, id: string): KnowledgeDocumentRow | undefined {
    return this.getStmt.get({ org: s.organizationId, env: s.environmentId, id }) as KnowledgeDocumentRow | undefined
  }
  /**
   * Removes a document, its chunks (cascade) and their index rows. A contentless index forgets a
   * row only when told the exact terms it holds, so `fold` must be the folding used at insert.
   */
  delete(s: Scope, id: string, fold: (text: string) => string): boolean {
    return this.db.transaction(() => {
      const doc = this.get(s, id)
      if (!doc) return false
      const title = fold(doc.title)
      for (const c of this.chunksOfStmt.all(doc.id)) this.unindexStmt.run(c.rowid, title, fold(c.text))
      return this.deleteStmt.run({ org: s.organizationId, env: s.environmentId, id }).changes === 1
    })()
  }
  /**
   * The `k` best chunks of the scope for an FTS5 MATCH expression, best first. `match` must be
   * built from quoted terms only (api/knowledge-base/search.ts), never from user syntax.
   */
  search(s: Scope, match: string, k: number, documentIds: readonly string[] | null): KnowledgeSearchRow[] {
    const range = this.range(s)
    if (!range) return []
    const params = { org: s.organizationId, env: s.environmentId, match, k, ...range }
    const rows = documentIds ? this.searchDocsStmt.all({ ...params, ids: JSON.stringify(documentIds) }) : this.searchStmt.all(params)
    return rows as KnowledgeSearchRow[]
  }
  /** How many chunks of the scope match, counted no further than `cap` (cheap for common terms). */
  countUpTo(s: Scope, match: string, cap: number): number {
    const range = this.range(s)
    return range ? this.countStmt.get({ match, cap, ...range })!.n : 0
  }

  private range(s: Scope): { lo: number; hi: number } | null {
    const scope = this.scopeStmt.get({ org: s.organizationId, env: s.environmentId })
    return scope ? { lo: scope.id * SCOPE_ROWS, hi: (scope.id + 1) * SCOPE_ROWS - 1 } : null
  }
}
