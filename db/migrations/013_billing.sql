-- Billing (docs/billing.md): what each ended session used and cost, the credit ledger, top-ups.
-- Money is integer minor units (cents) of the deployment's one currency.

-- One row per ended session or call: the engine's and runtime's own counts, and what they cost
-- by the price book of that moment (items: the itemised lines, JSON). Kept when the session or
-- its agent is deleted: a bill does not change afterwards.
CREATE TABLE billing_usage (
  session_id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  environment_id TEXT NOT NULL,
  workflow_id TEXT,
  channel TEXT NOT NULL,
  call_ms INTEGER NOT NULL CHECK (call_ms >= 0),
  stt_audio_ms INTEGER NOT NULL CHECK (stt_audio_ms >= 0),
  prompt_tokens INTEGER NOT NULL CHECK (prompt_tokens >= 0),
  completion_tokens INTEGER NOT NULL CHECK (completion_tokens >= 0),
  tts_characters INTEGER NOT NULL CHECK (tts_characters >= 0),
  items TEXT NOT NULL,
  amount_minor INTEGER NOT NULL CHECK (amount_minor >= 0),
  currency TEXT NOT NULL,
  ended_at INTEGER NOT NULL
);
CREATE INDEX billing_usage_period ON billing_usage(organization_id, ended_at);

-- The credit ledger: append-only. The balance is the sum of amount_minor (credits positive,
-- debits negative); balance_after_minor is that sum just after the row, written in the same
-- immediate transaction, so the two cannot disagree.
CREATE TABLE credit_transactions (
  id TEXT PRIMARY KEY,
  seq INTEGER NOT NULL,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  kind TEXT NOT NULL CHECK (kind IN ('topup', 'grant', 'usage')),
  amount_minor INTEGER NOT NULL CHECK (amount_minor <> 0),
  balance_after_minor INTEGER NOT NULL,
  currency TEXT NOT NULL,
  description TEXT NOT NULL,
  session_id TEXT,
  provider TEXT,
  -- The payment provider's id of what paid (a Stripe event id): crediting twice is impossible.
  external_id TEXT,
  created_by_user TEXT,
  created_at INTEGER NOT NULL,
  UNIQUE (organization_id, seq)
);
CREATE UNIQUE INDEX credit_transactions_usage_once ON credit_transactions(session_id) WHERE kind = 'usage';
CREATE UNIQUE INDEX credit_transactions_paid_once ON credit_transactions(provider, external_id) WHERE external_id IS NOT NULL;
CREATE INDEX credit_transactions_list ON credit_transactions(organization_id, seq DESC);

CREATE TRIGGER credit_transactions_no_update BEFORE UPDATE ON credit_transactions
BEGIN SELECT RAISE(ABORT, 'credit_transactions is append-only'); END;
-- Deleting an organization removes its ledger by cascade (the organization is gone by then);
-- any other delete is refused.
CREATE TRIGGER credit_transactions_no_delete BEFORE DELETE ON credit_transactions
WHEN EXISTS (SELECT 1 FROM organizations WHERE id = OLD.organization_id)
BEGIN SELECT RAISE(ABORT, 'credit_transactions is append-only'); END;

-- Top-ups started with POST /billing/topup: pending until the provider confirms payment.
CREATE TABLE credit_topups (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  provider TEXT NOT NULL,
  amount_minor INTEGER NOT NULL CHECK (amount_minor > 0),
  currency TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'paid')),
  -- The provider's own id (a Checkout Session id), once it has one.
  external_id TEXT UNIQUE,
  created_by_user TEXT,
  created_by_key TEXT,
  created_at INTEGER NOT NULL,
  paid_at INTEGER
);
CREATE INDEX credit_topups_org ON credit_topups(organization_id, created_at DESC);

-- Payment-provider webhook events already handled (by their id): a replay changes nothing.
CREATE TABLE billing_events (
  provider TEXT NOT NULL,
  event_id TEXT NOT NULL,
  type TEXT NOT NULL,
  received_at INTEGER NOT NULL,
  PRIMARY KEY (provider, event_id)
);
