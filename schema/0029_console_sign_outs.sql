-- Console sessions signed out before they expired (docs/reference/console.md). A session is a
-- signed token every server with the same keys accepts; a sign-out recorded here ends it on
-- all of them, and on a server started later. Only the SHA-256 of the token is kept. Rows
-- past `expires_at` name tokens refused anyway, and are removed as sign-outs come.
CREATE TABLE storeledger.console_sign_outs (
  token_digest   text        PRIMARY KEY CHECK (token_digest ~ '^[0-9a-f]{64}$'),
  expires_at     timestamptz NOT NULL,
  signed_out_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX console_sign_outs_expiry ON storeledger.console_sign_outs (expires_at);

ALTER TABLE storeledger.console_sign_outs OWNER TO storeledger_owner;
GRANT SELECT, INSERT, DELETE ON storeledger.console_sign_outs TO storeledger_writer;
