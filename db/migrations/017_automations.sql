-- Automations (docs/automations.md): when an event of the webhook catalog happens in an
-- environment, run an integration action with fields mapped from the event's payload.
--
-- An automation belongs to one environment of an organization, like a webhook endpoint: it sees
-- that environment's events, and the organization-wide ones (member.invited). `filter` is a JSON
-- Logic expression over the payload (null: every event of the type); `input` is the action's input
-- as a mapping (mustache templates and {"$value": "path"} copies), rendered at each attempt.
CREATE TABLE automations (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  environment_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  description TEXT,
  event_type TEXT NOT NULL,
  filter TEXT,
  integration TEXT NOT NULL,
  action TEXT NOT NULL,
  input TEXT NOT NULL,
  enabled INTEGER NOT NULL,
  created_by TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX automations_scope ON automations(organization_id, environment_id, created_at);
CREATE INDEX automations_trigger ON automations(organization_id, event_type) WHERE enabled = 1;

-- One run per (automation, event): event_key is a digest of the event (type, time, payload), so
-- the same event announced twice still runs once. The payload is kept as `{ event, data }`, the
-- shape a webhook receives, so a retry renders the same values.
--
-- status: pending (waiting for next_attempt_at), running (an attempt in flight; a crash leaves it
-- so and the next start makes it pending again), succeeded, failed. attempts counts attempts
-- started; automatic retries are counted from budget_from (the attempt count when a retry was last
-- asked for), so a retry asked for gets a fresh budget. pending_reason names what the next attempt
-- is: event (the first), backoff (an automatic retry), retry (asked for) or resume (after a stop).
CREATE TABLE automation_runs (
  id TEXT PRIMARY KEY,
  automation_id TEXT NOT NULL REFERENCES automations(id) ON DELETE CASCADE,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  environment_id TEXT NOT NULL,
  event_type TEXT NOT NULL,
  event_key TEXT NOT NULL,
  payload TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'running', 'succeeded', 'failed')),
  pending_reason TEXT NOT NULL CHECK (pending_reason IN ('event', 'backoff', 'retry', 'resume')),
  attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  budget_from INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  finished_at INTEGER,
  UNIQUE (automation_id, event_key)
);
CREATE INDEX automation_runs_list ON automation_runs(automation_id, created_at);
-- The worker's queue (its WHERE is the due query's, so the planner takes it) and the retention sweep.
CREATE INDEX automation_runs_due ON automation_runs(next_attempt_at) WHERE status = 'pending';
CREATE INDEX automation_runs_finished ON automation_runs(finished_at) WHERE finished_at IS NOT NULL;

-- Every attempt of a run: the input actually sent (null when the mapping could not be rendered),
-- the action's output or error, and its timing. outcome null while in flight; interrupted when the
-- process stopped mid-attempt.
CREATE TABLE automation_attempts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id TEXT NOT NULL REFERENCES automation_runs(id) ON DELETE CASCADE,
  number INTEGER NOT NULL,
  trigger TEXT NOT NULL CHECK (trigger IN ('event', 'backoff', 'retry', 'resume')),
  started_at INTEGER NOT NULL,
  finished_at INTEGER,
  outcome TEXT CHECK (outcome IN ('succeeded', 'failed', 'interrupted')),
  input TEXT,
  output TEXT,
  error_code TEXT,
  error_message TEXT,
  duration_ms INTEGER,
  UNIQUE (run_id, number)
);
