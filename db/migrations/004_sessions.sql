-- Sessions (text chats, single text runs, and later voice and phone calls) and their events.
-- A session keeps a snapshot of the definition and config it runs, so editing or deleting the
-- agent never changes a running or past session.

CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  environment_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  workflow_id TEXT NOT NULL REFERENCES workflows(id),
  workflow_version INTEGER, -- NULL: the draft was run, by explicit request
  channel TEXT NOT NULL CHECK (channel IN ('chat', 'run', 'web', 'phone')),
  status TEXT NOT NULL CHECK (status IN ('active', 'completed', 'failed')),
  disposition TEXT,
  definition TEXT NOT NULL,
  config TEXT NOT NULL,
  state TEXT NOT NULL,
  started_by_user TEXT,
  started_by_key TEXT,
  turn_count INTEGER NOT NULL DEFAULT 0,
  prompt_tokens INTEGER NOT NULL DEFAULT 0,
  completion_tokens INTEGER NOT NULL DEFAULT 0,
  error_code TEXT,
  started_at INTEGER NOT NULL,
  ended_at INTEGER,
  updated_at INTEGER NOT NULL
);
CREATE INDEX sessions_scope ON sessions(organization_id, environment_id, started_at DESC);
CREATE INDEX sessions_workflow ON sessions(workflow_id, started_at DESC);

CREATE TABLE session_events (
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  kind TEXT NOT NULL,
  data TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (session_id, seq)
);
