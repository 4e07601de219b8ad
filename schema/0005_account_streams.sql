-- Which streams hold an account's events: written in the same transaction as the event that
-- names the account (a signed appAccountToken, a forwarded one, a link), so a query for the
-- account reads its own writes. Rebuildable from the log.

CREATE TABLE storeledger.account_streams (
  app_account_token  text        NOT NULL CHECK (app_account_token <> ''),
  stream_id          text        NOT NULL CHECK (stream_id <> ''),
  first_seen_at      timestamptz NOT NULL DEFAULT statement_timestamp(),
  PRIMARY KEY (app_account_token, stream_id)
);

ALTER TABLE storeledger.account_streams OWNER TO storeledger_owner;
GRANT SELECT, INSERT ON storeledger.account_streams TO storeledger_writer;
GRANT SELECT ON storeledger.account_streams TO storeledger_reader;
