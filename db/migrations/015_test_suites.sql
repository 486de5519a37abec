-- Test suites (docs/test-suites.md): scripted and simulated callers with assertions, run against
-- an agent by the in-process worker (api/test-suites). A suite names its agent and keeps its
-- cases as one JSON document (validated by the API's schema, at most 50 cases).
CREATE TABLE test_suites (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  environment_id TEXT NOT NULL,
  name TEXT NOT NULL,
  description TEXT,
  -- The agent under test (agents are deleted softly: a suite of a deleted agent stays readable,
  -- and starting a run of it answers 409 suite_agent_missing).
  workflow_id TEXT NOT NULL REFERENCES workflows(id) ON DELETE CASCADE,
  -- What a run targets: the draft, a published version, or (both unset) the newest published one.
  use_draft INTEGER NOT NULL DEFAULT 0,
  version INTEGER,
  -- JSON: { live_tools, judge_model } suite-wide settings.
  settings TEXT NOT NULL,
  -- JSON array of cases.
  cases TEXT NOT NULL,
  created_by TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX test_suites_scope ON test_suites(organization_id, environment_id, created_at);

-- One run of a suite. The agent (definition and config of the version it resolved to) and the
-- cases are copied in at start, so editing the suite or the agent never changes a queued run.
-- status: queued (no case started), running, then passed (every case passed), failed (a case
-- failed or could not run).
CREATE TABLE test_runs (
  id TEXT PRIMARY KEY,
  suite_id TEXT NOT NULL REFERENCES test_suites(id) ON DELETE CASCADE,
  organization_id TEXT NOT NULL,
  environment_id TEXT NOT NULL,
  mode TEXT NOT NULL CHECK (mode IN ('text', 'voice')),
  status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'passed', 'failed')),
  workflow_id TEXT NOT NULL,
  workflow_version INTEGER,
  definition TEXT NOT NULL,
  config TEXT NOT NULL,
  settings TEXT NOT NULL,
  started_by_user TEXT,
  started_by_key TEXT,
  created_at INTEGER NOT NULL,
  started_at INTEGER,
  finished_at INTEGER
);
CREATE INDEX test_runs_suite ON test_runs(suite_id, created_at);
CREATE INDEX test_runs_scope_status ON test_runs(organization_id, environment_id, status);

-- A case of a run: the unit of work the worker claims. status: pending (waiting; a crash leaves
-- running, and the next start puts it back to pending until attempts run out), running, then
-- passed, failed (an assertion failed) or error (the case could not run: the reason says why).
CREATE TABLE test_run_cases (
  run_id TEXT NOT NULL REFERENCES test_runs(id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  name TEXT NOT NULL,
  -- JSON: the case as the suite held it when the run started.
  spec TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'running', 'passed', 'failed', 'error')),
  attempts INTEGER NOT NULL DEFAULT 0,
  -- JSON once finished: { transcript, assertions, path, variables, tool_calls, ended, metrics }.
  result TEXT,
  reason TEXT,
  error_code TEXT,
  queued_at INTEGER NOT NULL,
  started_at INTEGER,
  finished_at INTEGER,
  PRIMARY KEY (run_id, position)
);
CREATE INDEX test_run_cases_due ON test_run_cases(status, queued_at);
