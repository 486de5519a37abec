-- Web-call tokens (POST /api/v1/calls/web-token): the signed JWT is the credential; this table
-- makes it single-use. The engine consumes a row when the browser connects
-- (UPDATE … WHERE consumed_at IS NULL AND expires_at > now), so a second connect with the same
-- token fails. Call variables travel here, not in the token, to keep the token (sent in the
-- WebSocket URL) short. Rows are pruned opportunistically a while after they expire.

CREATE TABLE web_call_tokens (
  jti TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  environment_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  workflow_id TEXT NOT NULL,
  -- JSON object of call variables, or NULL.
  variables TEXT,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  consumed_at INTEGER
);
CREATE INDEX web_call_tokens_expires ON web_call_tokens(expires_at);
