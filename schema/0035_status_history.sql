-- Each account's subscriptions' statuses by Apple's clock (projections/changes.md, "Status
-- history"): what the transitions list and outage grants select. The projector rewrites an
-- account's rows whole with its view, in the same statement; an erasure takes them with the
-- view. Existing views are projected again (their rules' fingerprint moved), which fills it.

CREATE TABLE storeledger.status_history (
  app_account_token text NOT NULL,
  ordinal integer NOT NULL,
  original_transaction_id text NOT NULL,
  from_status integer,
  to_status integer NOT NULL,
  effective_at_ms bigint NOT NULL,
  recorded_at_ms bigint NOT NULL,
  cause text
);

CREATE INDEX status_history_account ON storeledger.status_history (app_account_token);
CREATE INDEX status_history_entered
  ON storeledger.status_history (to_status, effective_at_ms DESC, app_account_token DESC,
    ordinal DESC);

GRANT SELECT, INSERT, DELETE ON storeledger.status_history TO storeledger_writer;
GRANT SELECT ON storeledger.status_history TO storeledger_reader;
