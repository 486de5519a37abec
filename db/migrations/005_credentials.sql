-- Per-organization provider credentials (spec: "Secrets are stored protected and returned masked
-- only"). One row per organization and provider; PUT replaces it in place.
--
-- Secret fields (API keys, tokens) live only in `sealed`: AES-256-GCM of their JSON, laid out as
-- iv (12 bytes) || tag (16 bytes) || ciphertext. The additional data binds the organization, the
-- provider and the exact `plain_fields` text, so a row moved to another organization or provider,
-- or a base URL changed behind the service's back, no longer decrypts. `key_id` names the key that
-- sealed the row, so keys can rotate without guessing.

CREATE TABLE credentials (
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  provider TEXT NOT NULL,
  -- Non-secret fields (base_url, organization) as JSON, shown as they are.
  plain_fields TEXT NOT NULL,
  key_id TEXT NOT NULL,
  sealed BLOB NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (organization_id, provider)
);
