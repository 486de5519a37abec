-- Calls (POST /api/v1/calls). A call is a session: the call's uuid is the session's id.
--  * workflow_id becomes nullable: NULL = a transient agent given inline (its definition and config
--    are the session's snapshot, as for every session).
--  * status 'pending': a web call created by POST /calls whose browser has not connected yet;
--    pending_until is when its token expires (then the call is failed, error_code not_connected).
--  * web_call_tokens.call_id binds a token to such a pending call; workflow_id becomes nullable
--    (a transient call's token names the call only).
-- SQLite cannot relax NOT NULL in place, so both tables are rebuilt. session_events is rebuilt
-- alongside so no row ever references a dropped table (dropping `sessions` under foreign keys would
-- otherwise cascade into its events).

CREATE TABLE sessions_v10 (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  environment_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  workflow_id TEXT REFERENCES workflows(id),
  workflow_version INTEGER,
  channel TEXT NOT NULL CHECK (channel IN ('chat', 'run', 'web', 'phone')),
  status TEXT NOT NULL CHECK (status IN ('pending', 'active', 'completed', 'failed')),
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
  updated_at INTEGER NOT NULL,
  pending_until INTEGER
);
INSERT INTO sessions_v10 (id, organization_id, environment_id, workflow_id, workflow_version, channel, status, disposition, definition, config,
  state, started_by_user, started_by_key, turn_count, prompt_tokens, completion_tokens, error_code, started_at, ended_at, updated_at)
SELECT id, organization_id, environment_id, workflow_id, workflow_version, channel, status, disposition, definition, config,
  state, started_by_user, started_by_key, turn_count, prompt_tokens, completion_tokens, error_code, started_at, ended_at, updated_at
FROM sessions;

CREATE TABLE session_events_v10 (
  session_id TEXT NOT NULL REFERENCES sessions_v10(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  kind TEXT NOT NULL,
  data TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (session_id, seq)
);
INSERT INTO session_events_v10 SELECT session_id, seq, kind, data, created_at FROM session_events;

DROP TABLE session_events;
DROP TABLE sessions;
-- Renaming rewrites session_events_v10's reference to the new name.
ALTER TABLE sessions_v10 RENAME TO sessions;
ALTER TABLE session_events_v10 RENAME TO session_events;
CREATE INDEX sessions_scope ON sessions(organization_id, environment_id, started_at DESC);
CREATE INDEX sessions_workflow ON sessions(workflow_id, started_at DESC);
CREATE INDEX sessions_pending ON sessions(pending_until) WHERE status = 'pending';

CREATE TABLE web_call_tokens_v10 (
  jti TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  environment_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  workflow_id TEXT,
  call_id TEXT REFERENCES sessions(id) ON DELETE CASCADE,
  variables TEXT,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  consumed_at INTEGER,
  CHECK (workflow_id IS NOT NULL OR call_id IS NOT NULL)
);
INSERT INTO web_call_tokens_v10 (jti, organization_id, environment_id, workflow_id, variables, created_at, expires_at, consumed_at)
SELECT jti, organization_id, environment_id, workflow_id, variables, created_at, expires_at, consumed_at FROM web_call_tokens;
DROP TABLE web_call_tokens;
ALTER TABLE web_call_tokens_v10 RENAME TO web_call_tokens;
CREATE INDEX web_call_tokens_expires ON web_call_tokens(expires_at);
