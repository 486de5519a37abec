-- Agents (workflows): one editable draft per agent and numbered, immutable published versions.
-- An agent lives in one environment; promotion copies it into another, sharing its lineage.

CREATE TABLE workflows (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  environment_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  -- Shared by an agent and every copy promoted from it: "the target environment already holds
  -- this agent" means a live agent of the same lineage is there.
  lineage_id TEXT NOT NULL,
  source_workflow_id TEXT,
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  template_id TEXT,
  draft_definition TEXT NOT NULL,
  draft_config TEXT NOT NULL,
  draft_updated_at INTEGER NOT NULL,
  latest_version INTEGER,
  archived_at INTEGER,
  -- Deleted agents are hidden, not erased, so past sessions and calls keep their agent and version.
  deleted_at INTEGER,
  created_by TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX workflows_scope ON workflows(organization_id, environment_id, deleted_at, archived_at, created_at);
CREATE UNIQUE INDEX workflows_lineage_env ON workflows(lineage_id, environment_id) WHERE deleted_at IS NULL;

CREATE TABLE workflow_versions (
  workflow_id TEXT NOT NULL REFERENCES workflows(id) ON DELETE CASCADE,
  version INTEGER NOT NULL,
  definition TEXT NOT NULL,
  config TEXT NOT NULL,
  published_at INTEGER NOT NULL,
  published_by TEXT,
  PRIMARY KEY (workflow_id, version)
);

CREATE TRIGGER workflow_versions_immutable BEFORE UPDATE ON workflow_versions
BEGIN SELECT RAISE(ABORT, 'published versions are immutable'); END;
