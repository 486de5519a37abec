-- SIP trunks and phone numbers (issue #21).
--
-- Both belong to one environment of an organization, like agents and webhook endpoints: a number
-- is answered by the published version of an agent of its own environment, and a trunk's
-- registration events (sip.trunk.registered / sip.trunk.down) go to that environment's webhook
-- endpoints. A dev number on a test trunk and a prod number on the carrier's trunk stay apart.
--
-- The trunk password is sealed with the credential cipher (AES-256-GCM; the additional data binds
-- the organization and the trunk) and never read out through the API: reads say only whether one
-- is set.

CREATE TABLE sip_trunks (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  environment_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  -- The carrier's registrar / proxy: where REGISTER and outbound INVITEs go.
  host TEXT NOT NULL,
  port INTEGER NOT NULL CHECK (port BETWEEN 1 AND 65535),
  transport TEXT NOT NULL CHECK (transport IN ('udp', 'tcp')),
  -- host[:port] of an outbound proxy every request is routed through (a loose route), or NULL.
  outbound_proxy TEXT,
  -- The SIP domain in From / To / the REGISTER Request-URI; NULL means host.
  domain TEXT,
  username TEXT,
  -- Digest authentication user when it differs from the From user.
  auth_username TEXT,
  key_id TEXT,
  password_sealed BLOB,
  register INTEGER NOT NULL CHECK (register IN (0, 1)),
  register_expires_s INTEGER NOT NULL,
  -- JSON array of CIDRs whose unauthenticated INVITEs are taken as this trunk's.
  allowed_sources TEXT NOT NULL,
  -- Registration as last seen by the SIP service: unregistered | registering | registered | failed.
  registration_state TEXT NOT NULL DEFAULT 'unregistered',
  registration_error TEXT,
  registration_changed_at INTEGER,
  registered_until INTEGER,
  created_by TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX sip_trunks_scope ON sip_trunks(organization_id, environment_id);

-- A number is answered by one organization: an inbound INVITE is routed by its number alone, so
-- the number is unique across the server (E.164, with the leading +).
CREATE TABLE phone_numbers (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  environment_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  number TEXT NOT NULL UNIQUE,
  label TEXT,
  -- A trunk with numbers cannot be deleted (409); the service checks, the key backs it. NO ACTION,
  -- not RESTRICT: it is checked when the statement ends, so deleting an environment or an
  -- organization (which cascades to both tables) still works.
  trunk_id TEXT NOT NULL REFERENCES sip_trunks(id),
  -- The agent answering inbound calls (its published version), or NULL: calls are then refused.
  workflow_id TEXT REFERENCES workflows(id) ON DELETE SET NULL,
  created_by TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX phone_numbers_scope ON phone_numbers(organization_id, environment_id);
CREATE INDEX phone_numbers_trunk ON phone_numbers(trunk_id);
