import type { Db } from '../database.js'
import type { Scope } from './workflows.js'

/** A chunk still to embed: what the embedding model is given is its document's title and its text. */
export interface UnembeddedChunkRow {
  rowid: number
  title: string
  text: string
}

export interface StoredVectorRow {
  rowid: number
  document_id: string
  vector: Buffer
}

/** A chunk found by its vector alone, with what a search hit shows. */
export interface KnowledgeChunkRow {
  rowid: number
  chunk_id: string
  document_id: string
  chunk_index: number
  text: string
  title: string
}

/** Which vectors count: this model's, and of this size when one is configured (null: any size). */
export interface VectorKind {
  model: string
  dimensions: number | null
}

export type RowidRange = (s: Scope) => { lo: number; hi: number } | null

const SCOPED_CHUNK = 'c.rowid BETWEEN @lo AND @hi AND c.organization_id = @org AND c.environment_id = @env'
const NO_USABLE_VECTOR =
  'NOT EXISTS (SELECT 1 FROM knowledge_vectors v WHERE v.chunk_rowid = c.rowid AND v.model = @model AND (@dims IS NULL OR v.dimensions = @dims))'

/**
 * The vectors of knowledge chunks (007_knowledge_embeddings.sql). Every read is bound to one
 * environment twice: its rowid range, and the chunk's organization and environment columns.
 */
export class KnowledgeVectorsRepo {
  private readonly unembeddedStmt
  private readonly pendingStmt
  private readonly countStmt
  private readonly loadStmt
  private readonly storeStmt
  private readonly chunksStmt

  constructor(
    private readonly db: Db,
    private readonly range: RowidRange,
  ) {
    this.unembeddedStmt = db.prepare(
      `SELECT c.rowid AS rowid, d.title, c.text FROM knowledge_chunks c JOIN knowledge_documents d ON d.id = c.document_id
       WHERE ${SCOPED_CHUNK} AND c.rowid > @after AND ${NO_USABLE_VECTOR} ORDER BY c.rowid LIMIT @n`,
    )
    this.pendingStmt = db.prepare<Record<string, unknown>, { n: number }>(
      `SELECT count(*) AS n FROM knowledge_chunks c WHERE ${SCOPED_CHUNK} AND ${NO_USABLE_VECTOR}`,
    )
    const usable = 'v.chunk_rowid BETWEEN @lo AND @hi AND v.model = @model AND v.dimensions = @dims AND c.organization_id = @org AND c.environment_id = @env'
    this.countStmt = db.prepare<Record<string, unknown>, { n: number }>(
      `SELECT count(*) AS n FROM knowledge_vectors v JOIN knowledge_chunks c ON c.rowid = v.chunk_rowid WHERE ${usable}`,
    )
    this.loadStmt = db.prepare(
      `SELECT v.chunk_rowid AS rowid, c.document_id, v.vector FROM knowledge_vectors v JOIN knowledge_chunks c ON c.rowid = v.chunk_rowid WHERE ${usable}`,
    )
    // A chunk deleted while its batch was at the provider is skipped (no row to attach to).
    this.storeStmt = db.prepare(
      `INSERT INTO knowledge_vectors (chunk_rowid, model, dimensions, vector, created_at)
       SELECT @rowid, @model, @dims, @vector, @now WHERE EXISTS (SELECT 1 FROM knowledge_chunks WHERE rowid = @rowid)
       ON CONFLICT (chunk_rowid) DO UPDATE SET model = excluded.model, dimensions = excluded.dimensions, vector = excluded.vector, created_at = excluded.created_at`,
    )
    this.chunksStmt = db.prepare(
      `SELECT c.rowid AS rowid, c.id AS chunk_id, c.document_id, c.chunk_index, c.text, d.title
       FROM knowledge_chunks c JOIN knowledge_documents d ON d.id = c.document_id
       WHERE c.rowid IN (SELECT value FROM json_each(@ids)) AND c.organization_id = @org AND c.environment_id = @env`,
    )
  }

  /** Up to `n` chunks of the scope after rowid `after` without a usable vector, in rowid order. */
  unembedded(s: Scope, kind: VectorKind, after: number, n: number): UnembeddedChunkRow[] {
    const p = this.params(s, kind)
    return p ? (this.unembeddedStmt.all({ ...p, after, n }) as UnembeddedChunkRow[]) : []
  }

  /** How many chunks of the scope have no usable vector. */
  pending(s: Scope, kind: VectorKind): number {
    const p = this.params(s, kind)
    return p ? this.pendingStmt.get(p)!.n : 0
  }

  /** The scope's vectors of one model and size: how many, then each (streamed, not all held at once). */
  count(s: Scope, model: string, dims: number): number {
    const p = this.params(s, { model, dimensions: dims })
    return p ? this.countStmt.get(p)!.n : 0
  }
  load(s: Scope, model: string, dims: number): IterableIterator<StoredVectorRow> {
    const p = this.params(s, { model, dimensions: dims })
    return p ? (this.loadStmt.iterate(p) as IterableIterator<StoredVectorRow>) : [].values()
  }

  /** Stores (or replaces) vectors, all or nothing; returns how many found their chunk. */
  store(model: string, rows: readonly { rowid: number; vector: Buffer; dims: number }[], now: number): number {
    return this.db.transaction(() => {
      let stored = 0
      for (const r of rows) stored += this.storeStmt.run({ rowid: r.rowid, model, dims: r.dims, vector: r.vector, now }).changes
      return stored
    })()
  }

  /** The chunks of these rowids that belong to the scope (the others are dropped silently). */
  chunks(s: Scope, rowids: readonly number[]): KnowledgeChunkRow[] {
    if (!rowids.length) return []
    return this.chunksStmt.all({ org: s.organizationId, env: s.environmentId, ids: JSON.stringify(rowids) }) as KnowledgeChunkRow[]
  }

  private params(s: Scope, kind: VectorKind) {
    const range = this.range(s)
    return range && { org: s.organizationId, env: s.environmentId, model: kind.model, dims: kind.dimensions, ...range }
  }
}
