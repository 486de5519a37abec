-- Knowledge base: documents of an environment, cut into overlapping chunks, searched with FTS5/BM25.
-- The full-text index holds a folded copy of each chunk (Turkish-aware lower case, diacritics
-- removed: api/knowledge-base/search.ts); the original text stays in knowledge_chunks for snippets.
-- The folding is part of the index format: a change to it must ship with a migration that rebuilds
-- knowledge_fts, since deletes recompute a chunk's folded text to remove its index entries.

CREATE TABLE knowledge_documents (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  environment_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  title TEXT NOT NULL,
  -- Where the text came from: the uploaded file's name, or what the creator said (a URL, …).
  source TEXT,
  content_type TEXT NOT NULL,
  size_bytes INTEGER NOT NULL,
  text TEXT NOT NULL,
  char_count INTEGER NOT NULL,
  metadata TEXT NOT NULL DEFAULT '{}',
  chunk_count INTEGER NOT NULL,
  created_by TEXT,
  created_at INTEGER NOT NULL
);
CREATE INDEX knowledge_documents_scope ON knowledge_documents(organization_id, environment_id, created_at);

-- Each environment that has documents gets a small integer scope id; its chunks take rowids
-- scope_id * 2^30 + n, so one environment's rows are one contiguous rowid range, and a search
-- restricts the full-text match to that range (FTS5 seeks to it) instead of filtering every hit.
CREATE TABLE knowledge_scopes (
  -- AUTOINCREMENT: a scope id (so a rowid range) is never handed out twice.
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  environment_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  next_seq INTEGER NOT NULL DEFAULT 0,
  UNIQUE (organization_id, environment_id)
);

-- The integer rowid is the FTS row's rowid; `id` is the chunk id shown on the wire.
CREATE TABLE knowledge_chunks (
  rowid INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  document_id TEXT NOT NULL REFERENCES knowledge_documents(id) ON DELETE CASCADE,
  organization_id TEXT NOT NULL,
  environment_id TEXT NOT NULL,
  chunk_index INTEGER NOT NULL,
  text TEXT NOT NULL,
  UNIQUE (document_id, chunk_index)
);

-- Contentless: the folded text is needed only as index terms. columnsize=0: no per-row token
-- counts, so bm25() skips a lookup per matching chunk (about 3.5x faster ranking) and does not
-- normalise by length, which matters little since chunks are cut to near-equal length. Deleting a
-- row takes FTS5's 'delete' command with the folded values it was indexed with (repos/knowledge.ts).
-- Index rows of an organization or environment removed by cascade stay behind, unreachable: their
-- scope's rowid range is never searched again. prefix='5': Turkish word forms match by their
-- first five letters (api/knowledge-base/search.ts).
CREATE VIRTUAL TABLE knowledge_fts USING fts5(
  title, body,
  content = '', columnsize = 0,
  tokenize = 'unicode61 remove_diacritics 2',
  prefix = '5'
);
