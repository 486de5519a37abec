-- The organization's library of function tools (api/tools, docs/tools.md). A tool is an
-- organization-level resource, like credentials: every environment's agents may reference it.
--
-- Versions are immutable: every change writes the next `tool_versions` row and moves
-- `tools.latest_version`. An agent's draft runs the newest version; publishing an agent pins each
-- tool it references to the version it had then (the pin is written into the published
-- definition), so a published agent keeps the tool as it was.
--
-- Deleting is soft (`deleted_at`): the tool leaves the API and drafts can no longer use it, but
-- published versions pinned to it keep running it. Its name is free again at once.

CREATE TABLE tools (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  -- The newest version's name, kept here for the per-organization uniqueness below.
  name TEXT NOT NULL,
  latest_version INTEGER NOT NULL,
  created_by TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  deleted_at INTEGER
);
CREATE UNIQUE INDEX tools_live_name ON tools(organization_id, name) WHERE deleted_at IS NULL;
CREATE INDEX tools_organization ON tools(organization_id, deleted_at);

CREATE TABLE tool_versions (
  tool_id TEXT NOT NULL REFERENCES tools(id) ON DELETE CASCADE,
  version INTEGER NOT NULL,
  name TEXT NOT NULL,
  description TEXT NOT NULL,
  -- JSON Schema of the arguments object (the bounded subset, checked at save time).
  parameters TEXT NOT NULL,
  -- What runs, as JSON: {"type":"http",…} or {"type":"integration",…}; never any secret.
  runs TEXT NOT NULL,
  -- Write-only header values ({"name":"value"} JSON) sealed with the credential cipher; the
  -- additional data binds organization, tool and version. NULL: none.
  secret_headers_sealed BLOB,
  key_id TEXT,
  -- The secret headers' names (JSON array), shown; their values never are.
  secret_header_names TEXT NOT NULL DEFAULT '[]',
  created_by TEXT,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (tool_id, version)
);
