-- What each live call has spent so far (docs/billing.md, "Credit"). The process holding a call
-- writes it at every credit check, and the call's row goes when its usage is settled (in the same
-- transaction as its debit), so every process compares the balance with the organization's live
-- calls in all processes, not only its own. A row not refreshed for three check intervals belongs
-- to a process that died: it is ignored, and swept at the organization's next check.
CREATE TABLE live_call_spend (
  call_id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  spent_minor INTEGER NOT NULL CHECK (spent_minor >= 0),
  updated_at INTEGER NOT NULL
);
CREATE INDEX live_call_spend_org ON live_call_spend(organization_id, updated_at);
