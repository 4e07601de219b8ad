-- Named API keys with scopes. A key is `slk_<key_id>_<secret>`; only the SHA-256 of the secret
-- is kept (the secret is 32 random bytes, so a fast hash is enough). A revoked key stays, with
-- its name free for a new key.

CREATE TABLE storeledger.api_keys (
  key_id         text        PRIMARY KEY CHECK (key_id ~ '^[0-9a-f]{16}$'),
  name           text        NOT NULL CHECK (name ~ '^[A-Za-z0-9._-]{1,64}$'),
  scopes         text[]      NOT NULL CHECK (cardinality(scopes) > 0
                               AND scopes <@ ARRAY['read', 'write', 'console', 'admin']),
  secret_sha256  bytea       NOT NULL CHECK (octet_length(secret_sha256) = 32),
  created_at     timestamptz NOT NULL,
  revoked_at     timestamptz
);

CREATE UNIQUE INDEX api_keys_name_in_use ON storeledger.api_keys (name)
  WHERE revoked_at IS NULL;

ALTER TABLE storeledger.api_keys OWNER TO storeledger_owner;
GRANT SELECT, INSERT ON storeledger.api_keys TO storeledger_writer;
GRANT UPDATE (revoked_at) ON storeledger.api_keys TO storeledger_writer;
GRANT SELECT ON storeledger.api_keys TO storeledger_reader;
