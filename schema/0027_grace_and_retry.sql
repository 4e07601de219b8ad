-- Billing grace and billing retry in the revenue analytics (projections/revenue.md, P6, L7,
-- L8): a period in grace is in force (a row of `periods` flagged `in_grace`), a stretch in
-- billing retry is not (a row of `billing_retry`). Rows written before this version had no
-- grace: `storeledger rebuild` makes them again under these rules.

ALTER TABLE storeledger_analytics.periods
  ADD COLUMN in_grace boolean NOT NULL DEFAULT false;

-- Stretches in billing retry (status 3): not in force, not yet lost; valued at the lapsed
-- period's monthly value (what a recovery would bring back).
CREATE TABLE storeledger_analytics.billing_retry (
  chain                    text        NOT NULL
    REFERENCES storeledger_analytics.chains ON DELETE CASCADE,
  original_transaction_id  text        NOT NULL,
  transaction_id           text        NOT NULL,
  starts_at                timestamptz NOT NULL,
  ends_at                  timestamptz NOT NULL,
  is_trial                 boolean     NOT NULL,
  monthly_value            bigint      NOT NULL,
  currency                 text        NOT NULL,
  environment              text        NOT NULL,
  product_id               text,
  subscription_group       text,
  storefront               text,
  offer                    text        NOT NULL,
  CHECK (ends_at > starts_at)
);
CREATE INDEX billing_retry_chain ON storeledger_analytics.billing_retry (chain);
CREATE INDEX billing_retry_time ON storeledger_analytics.billing_retry (starts_at, ends_at);
ALTER TABLE storeledger_analytics.billing_retry OWNER TO storeledger_owner;
GRANT SELECT, INSERT, DELETE ON storeledger_analytics.billing_retry TO storeledger_writer;
GRANT SELECT ON storeledger_analytics.billing_retry TO storeledger_reader;

-- Why a charge was made, from Apple's own fields (K1–K7): initial, renewal, upgrade,
-- resubscribe, win_back, seat_addition; null for entries that are not charges.
ALTER TABLE storeledger_analytics.entries ADD COLUMN reason text;
