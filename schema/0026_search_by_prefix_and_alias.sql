-- Search by what support has: the start of a transaction id (the token's start has its index
-- in 0024), and the backend's own user id, when the backend told StoreLedger its mapping.

-- A transaction id's start, whatever the database's collation: text_pattern_ops compares
-- byte by byte, so `LIKE '2000000123%'` reads a range of this index.
CREATE INDEX events_transaction_id_prefix
  ON storeledger.events (storeledger.event_transaction_id(payload) text_pattern_ops)
  WHERE event_type LIKE 'appstore.%';

-- One alias per account and one account per alias: the backend's user id, set by API. It is
-- a lookup hint the backend gives, not evidence: kept here only, and removed with the
-- account when it is erased.
CREATE TABLE storeledger.account_aliases (
  alias              text        PRIMARY KEY CHECK (alias <> '' AND length(alias) <= 200),
  app_account_token  text        NOT NULL UNIQUE,
  set_at             timestamptz NOT NULL DEFAULT now(),
  set_by             text        NOT NULL
);

ALTER TABLE storeledger.account_aliases OWNER TO storeledger_owner;
GRANT SELECT, INSERT, UPDATE, DELETE ON storeledger.account_aliases TO storeledger_writer;
GRANT SELECT ON storeledger.account_aliases TO storeledger_reader;
