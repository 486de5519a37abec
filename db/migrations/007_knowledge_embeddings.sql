-- Embedding vectors of knowledge chunks, for hybrid ranking when OZAN_EMBEDDINGS_MODEL is set
-- (api/knowledge-base/vectors.ts). Without the variable the table stays empty and search is BM25.
--
-- One row per chunk, keyed by the chunk's integer rowid: that rowid lies in its environment's
-- rowid range (006_knowledge_base.sql), so one environment's vectors are one primary-key range
-- scan. A chunk without a row (or with a row of another model or size) has no usable vector yet:
-- the background catch-up embeds it and replaces the row. The cascade removes a chunk's vector
-- with the chunk, so deleting a document (or its environment) deletes its vectors.
CREATE TABLE knowledge_vectors (
  chunk_rowid INTEGER PRIMARY KEY REFERENCES knowledge_chunks(rowid) ON DELETE CASCADE,
  -- The model that made the vector: vectors of another model are not comparable and are ignored.
  model TEXT NOT NULL,
  dimensions INTEGER NOT NULL,
  -- `dimensions` float32 values, little-endian, scaled to unit length (cosine = dot product).
  vector BLOB NOT NULL,
  created_at INTEGER NOT NULL
);
