-- Plans and feature flags (issue #22 items 2 and 3).
--
-- Plans themselves are not stored: the operator defines them in OZAN_PLANS_FILE (docs/entitlements.md),
-- read at start-up, so a plan's limits change with the file and a restart, never by an API call.
-- What is stored is which plan an organization is on, when the operator chose one (bin/ozan-plans.ts);
-- an organization without a row is on the file's default plan (the single unlimited plan when
-- there is no file). A key the file no longer defines stops start-up (api/entitlements/plans.ts).

CREATE TABLE organization_plans (
  organization_id TEXT PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
  plan_key TEXT NOT NULL,
  assigned_at INTEGER NOT NULL,
  -- Free text from the operator's command (who or why), never shown to the organization.
  note TEXT
);
CREATE INDEX organization_plans_key ON organization_plans(plan_key);

-- An organization's feature flags: the product's own switches (web_calls) and keys of its own.
-- A product flag without a row has its default value; a custom key exists only as a row.
CREATE TABLE feature_flags (
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  key TEXT NOT NULL,
  enabled INTEGER NOT NULL CHECK (enabled IN (0, 1)),
  description TEXT,
  updated_by TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (organization_id, key)
);
