-- Tenancy and access: the organization's default environment, invitations, the append-only audit
-- trail and API request logs.

ALTER TABLE organizations ADD COLUMN default_environment TEXT NOT NULL DEFAULT 'dev'
  CHECK (default_environment IN ('dev', 'staging', 'prod'));

CREATE TABLE invitations (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  email TEXT NOT NULL COLLATE NOCASE,
  role_id INTEGER NOT NULL REFERENCES roles(id),
  token_hash TEXT NOT NULL UNIQUE,
  invited_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  accepted_at INTEGER,
  accepted_by TEXT REFERENCES users(id) ON DELETE SET NULL
);
-- At most one pending invitation per email and organization; re-inviting replaces it.
CREATE UNIQUE INDEX invitations_pending ON invitations(organization_id, email) WHERE accepted_at IS NULL;

CREATE TABLE audit_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  organization_id TEXT REFERENCES organizations(id) ON DELETE CASCADE,
  environment_id TEXT,
  actor_type TEXT NOT NULL CHECK (actor_type IN ('user', 'api_key', 'anonymous', 'system')),
  actor_id TEXT,
  actor_user_id TEXT,
  action TEXT NOT NULL,
  resource_type TEXT NOT NULL,
  resource_id TEXT,
  outcome TEXT NOT NULL DEFAULT 'success' CHECK (outcome IN ('success', 'failure')),
  ip TEXT,
  user_agent TEXT,
  request_id TEXT,
  metadata TEXT,
  created_at INTEGER NOT NULL
);
CREATE INDEX audit_events_org_time ON audit_events(organization_id, id DESC);

-- The audit trail is append-only: the database itself refuses changes. Rows leave only with
-- their organization (by cascade), so no delete trigger here.
CREATE TRIGGER audit_events_no_update BEFORE UPDATE ON audit_events
BEGIN SELECT RAISE(ABORT, 'audit_events is append-only'); END;

CREATE TABLE request_logs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  organization_id TEXT,
  environment_id TEXT,
  user_id TEXT,
  api_key_id TEXT,
  method TEXT NOT NULL,
  route TEXT NOT NULL,
  status INTEGER NOT NULL,
  duration_ms REAL NOT NULL,
  request_id TEXT NOT NULL,
  ip TEXT,
  created_at INTEGER NOT NULL
);
CREATE INDEX request_logs_org_time ON request_logs(organization_id, id DESC);
CREATE INDEX request_logs_time ON request_logs(created_at);
