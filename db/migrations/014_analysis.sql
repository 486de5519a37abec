-- Post-call analysis (docs/analysis.md): one job per ended session whose agent asked for one,
-- worked by the in-process worker (api/analysis). The row is the job and, once done, its result.
--
-- status: pending (waiting, first try or a retry at next_attempt_at), running (claimed; a crash
-- leaves it so, and the next start puts it back to pending), then completed, failed or skipped.
-- attempts counts attempts started, so a job that keeps crashing the process still runs out.
CREATE TABLE analysis_jobs (
  session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  environment_id TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'running', 'completed', 'failed', 'skipped')),
  attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  next_attempt_at INTEGER NOT NULL,
  -- JSON: { summary, success_evaluation, structured_data, model, usage } once completed.
  result TEXT,
  error_code TEXT,
  error_message TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  finished_at INTEGER
);
CREATE INDEX analysis_jobs_due ON analysis_jobs(status, next_attempt_at);
