-- Accounts, organizations with their projects and environments, roles and memberships,
-- dashboard sessions with rotating refresh tokens, single-use email tokens, the mail outbox
-- and API keys. Times are Unix epoch milliseconds; secrets are stored only as SHA-256 hashes.

CREATE TABLE users (
  id TEXT PRIMARY KEY,
  email TEXT NOT NULL UNIQUE COLLATE NOCASE,
  name TEXT NOT NULL,
  password_hash TEXT NOT NULL,
  locale TEXT NOT NULL DEFAULT 'en',
  email_verified_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);

CREATE TABLE organizations (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);

CREATE TABLE projects (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  is_default INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL
);
CREATE INDEX projects_org ON projects(organization_id);

CREATE TABLE environments (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  slug TEXT NOT NULL CHECK (slug IN ('dev', 'staging', 'prod')),
  created_at INTEGER NOT NULL,
  UNIQUE (project_id, slug)
);
CREATE INDEX environments_org ON environments(organization_id);

-- Built-in roles have organization_id NULL and take their permissions from code
-- (api/rbac/permissions.ts) so the catalog can grow without a migration; custom roles keep a
-- JSON array of permission names.
CREATE TABLE roles (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  organization_id TEXT REFERENCES organizations(id) ON DELETE CASCADE,
  key TEXT NOT NULL,
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  permissions TEXT NOT NULL DEFAULT '[]',
  builtin INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX roles_org_key ON roles(ifnull(organization_id, ''), key);
INSERT INTO roles (id, organization_id, key, name, description, builtin, created_at) VALUES
  (1, NULL, 'owner', 'Owner', 'Everything, including ownership of the organization', 1, 0),
  (2, NULL, 'admin', 'Admin', 'Everything except changing owners', 1, 0),
  (3, NULL, 'developer', 'Developer', 'Build, publish and run agents; read organization settings', 1, 0),
  (4, NULL, 'viewer', 'Viewer', 'Read-only access', 1, 0);

CREATE TABLE org_members (
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  role_id INTEGER NOT NULL REFERENCES roles(id),
  created_at INTEGER NOT NULL,
  PRIMARY KEY (organization_id, user_id)
);
CREATE INDEX org_members_user ON org_members(user_id);

-- One row per signed-in dashboard session (a refresh-token family).
CREATE TABLE auth_sessions (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  revoked_at INTEGER,
  revoked_reason TEXT
);
CREATE INDEX auth_sessions_user ON auth_sessions(user_id);

CREATE TABLE refresh_tokens (
  token_hash TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES auth_sessions(id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  used_at INTEGER
);
CREATE INDEX refresh_tokens_session ON refresh_tokens(session_id);

CREATE TABLE email_tokens (
  token_hash TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  purpose TEXT NOT NULL CHECK (purpose IN ('verify_email', 'reset_password')),
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at INTEGER
);
CREATE INDEX email_tokens_user ON email_tokens(user_id, purpose);

CREATE TABLE mail_outbox (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  recipient TEXT NOT NULL,
  kind TEXT NOT NULL,
  subject TEXT NOT NULL,
  body_text TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  sent_at INTEGER,
  attempts INTEGER NOT NULL DEFAULT 0,
  last_error TEXT
);
CREATE INDEX mail_outbox_pending ON mail_outbox(sent_at) WHERE sent_at IS NULL;

CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  created_by TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  lookup TEXT NOT NULL UNIQUE,
  secret_hash TEXT NOT NULL,
  scopes TEXT, -- JSON array of scope names; NULL: inherits the creator's permissions at request time
  created_at INTEGER NOT NULL,
  expires_at INTEGER,
  last_used_at INTEGER
);
CREATE INDEX api_keys_org ON api_keys(organization_id);
