-- Webhook endpoints, and the delivery outbox with every attempt kept.
--
-- An endpoint belongs to one environment of an organization, like agents and documents: it
-- receives that environment's events, and the organization-wide ones (member.invited).
--
-- Secrets: the signing secret must be read back to sign, so it is sealed (AES-256-GCM, the
-- credential cipher; the additional data binds the organization, the endpoint and the purpose),
-- never hashed. During a rotation overlap the previous secret is kept sealed beside the current
-- one until `previous_secret_expires_at`. `auth_header` is sealed the same way and never read out
-- through the API.

CREATE TABLE webhook_endpoints (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  environment_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  url TEXT NOT NULL,
  description TEXT,
  -- JSON array of subscribed event types (each in the catalog).
  events TEXT NOT NULL,
  timeout_seconds INTEGER NOT NULL,
  -- JSON object of extra headers (names lower-cased), sent as they are.
  headers TEXT NOT NULL,
  enabled INTEGER NOT NULL,
  key_id TEXT NOT NULL,
  secret_sealed BLOB NOT NULL,
  previous_secret_sealed BLOB,
  previous_secret_expires_at INTEGER,
  auth_header_sealed BLOB,
  created_by TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX webhook_endpoints_scope ON webhook_endpoints(organization_id, environment_id);

-- One row per (event, endpoint). The body is stored exactly as sent, so a redelivery carries the
-- same bytes; only the timestamp and signature are new. Status: pending (waiting for an attempt),
-- sending (an attempt in flight), succeeded, failed. A row left in `sending` by a crash is sent
-- again at start-up.
CREATE TABLE webhook_deliveries (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  environment_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  endpoint_id INTEGER NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
  event_type TEXT NOT NULL,
  body TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'sending', 'succeeded', 'failed')),
  attempt_count INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX webhook_deliveries_list ON webhook_deliveries(organization_id, environment_id, id);
CREATE INDEX webhook_deliveries_queue ON webhook_deliveries(status, endpoint_id, id) WHERE status IN ('pending', 'sending');
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries(endpoint_id);

-- Every attempt: outcome succeeded, failed, or interrupted (the process stopped mid-attempt; the
-- delivery went back to pending). response_body holds at most the first 1 KiB of the answer.
CREATE TABLE webhook_attempts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  delivery_id INTEGER NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
  number INTEGER NOT NULL,
  trigger TEXT NOT NULL CHECK (trigger IN ('event', 'redeliver', 'resume')),
  signed_at INTEGER NOT NULL,
  started_at INTEGER NOT NULL,
  finished_at INTEGER,
  outcome TEXT CHECK (outcome IN ('succeeded', 'failed', 'interrupted')),
  response_status INTEGER,
  error TEXT,
  duration_ms REAL,
  response_body TEXT,
  UNIQUE (delivery_id, number)
);
