-- Revenue analytics (projections/revenue.md), for warehouses and SQL tools: every purchase
-- chain's money as StoreLedger derives it from the signed log, kept current by the revenue
-- projector (its checkpoint is `revenue-analytics`) and made again by `storeledger rebuild`.
-- Derived data: rows of a chain are replaced whole whenever one of its events arrives, so
-- the writer may delete here (never in storeledger.events). Version 1 of the schema: a
-- later version adds columns or tables, never changes what one means.
--
-- Amounts are integers in milliunits (1/1000) of `currency`; `currency` is ISO 4217 (XXX
-- when Apple signed no price). Proceeds are estimates (30 %/15 % commission, no tax: the
-- library and the CLI take a tax table).

CREATE SCHEMA storeledger_analytics AUTHORIZATION storeledger_owner;
GRANT USAGE ON SCHEMA storeledger_analytics TO storeledger_writer, storeledger_reader;

-- One row per purchase chain (a subscription, or a one-time purchase).
CREATE TABLE storeledger_analytics.chains (
  chain                    text        PRIMARY KEY,
  original_transaction_id  text        NOT NULL,
  is_subscription          boolean     NOT NULL,
  -- When the chain first came into force: its cohort's month.
  first_start              timestamptz,
  -- The feed position of the newest event the rows were made from (export --after-position).
  position_tx              bigint      NOT NULL,
  position_seq             bigint      NOT NULL,
  recorded_at              timestamptz NOT NULL
);
CREATE INDEX chains_position ON storeledger_analytics.chains (position_tx, position_seq);

-- Time a subscription was in force without anything changing (rules P1–P5), with its
-- monthly value (V1–V3).
CREATE TABLE storeledger_analytics.periods (
  chain                    text        NOT NULL
    REFERENCES storeledger_analytics.chains ON DELETE CASCADE,
  original_transaction_id  text        NOT NULL,
  transaction_id           text        NOT NULL,
  starts_at                timestamptz NOT NULL,
  ends_at                  timestamptz NOT NULL,
  is_trial                 boolean     NOT NULL,
  monthly_value            bigint      NOT NULL,
  seats                    bigint      NOT NULL,
  currency                 text        NOT NULL,
  environment              text        NOT NULL,
  product_id               text,
  subscription_group       text,
  storefront               text,
  offer                    text        NOT NULL,
  CHECK (ends_at > starts_at)
);
CREATE INDEX periods_chain ON storeledger_analytics.periods (chain);
CREATE INDEX periods_time ON storeledger_analytics.periods (starts_at, ends_at);

-- Dated facts: charges, refunds, upgrade credits, and the lifecycle (new subscriptions,
-- trials, reactivations, product changes, churn by reason). A churn row is dated at the end
-- of the period it ends; until that end has passed it has not happened (the views and
-- functions below count only rows dated at or before now()).
CREATE TABLE storeledger_analytics.entries (
  chain                    text        NOT NULL
    REFERENCES storeledger_analytics.chains ON DELETE CASCADE,
  original_transaction_id  text        NOT NULL,
  transaction_id           text        NOT NULL,
  kind                     text        NOT NULL,
  occurred_at              timestamptz NOT NULL,
  amount                   bigint      NOT NULL CHECK (amount >= 0),
  proceeds                 bigint      NOT NULL,
  currency                 text        NOT NULL,
  environment              text        NOT NULL,
  product_id               text,
  subscription_group       text,
  storefront               text,
  offer                    text        NOT NULL
);
CREATE INDEX entries_chain ON storeledger_analytics.entries (chain);
CREATE INDEX entries_time ON storeledger_analytics.entries (occurred_at);

-- Charges: purchases, renewals and seat additions.
CREATE VIEW storeledger_analytics.transactions AS
  SELECT original_transaction_id, transaction_id, kind, occurred_at AS purchased_at,
         amount AS gross, proceeds AS estimated_proceeds, currency, environment, product_id,
         subscription_group, storefront, offer
    FROM storeledger_analytics.entries
   WHERE kind IN ('purchase', 'renewal', 'seat_addition');

-- Refunds (full, prorated, seats) and their reversals.
CREATE VIEW storeledger_analytics.refunds AS
  SELECT original_transaction_id, transaction_id, kind, occurred_at, amount,
         proceeds AS estimated_proceeds, currency, environment, product_id, storefront
    FROM storeledger_analytics.entries
   WHERE kind IN ('refund', 'refund_reversed');

-- Daily figures from `from_day` to `to_day` (inclusive, UTC days) per currency and
-- environment: stocks at each day's last millisecond, flows over the day. The same rules as
-- `storeledger metrics --by day` (without grouping).
CREATE FUNCTION storeledger_analytics.daily_metrics(from_day date, to_day date)
RETURNS TABLE (
  day date, currency text, environment text,
  active_subscriptions bigint, active_trials bigint, mrr bigint,
  new_subscriptions bigint, trial_starts bigint, trial_conversions bigint,
  reactivations bigint, churn_voluntary bigint, churn_billing bigint, churn_refund bigint,
  churn_other bigint, transactions bigint, gross_revenue bigint, refunds bigint,
  refund_amount bigint, net_revenue bigint, estimated_proceeds bigint
)
LANGUAGE sql STABLE AS $$
  WITH days AS (
    SELECT d::date AS day,
           (d + interval '1 day' - interval '1 millisecond') AS instant
      FROM generate_series(from_day::timestamp, to_day::timestamp, interval '1 day') AS d
  ),
  stocks AS (
    SELECT days.day, p.currency, p.environment,
           count(*) FILTER (WHERE NOT p.is_trial) AS active_subscriptions,
           count(*) FILTER (WHERE p.is_trial) AS active_trials,
           coalesce(sum(p.monthly_value) FILTER (WHERE NOT p.is_trial), 0) AS mrr
      FROM days
      JOIN storeledger_analytics.periods p
        ON p.starts_at <= days.instant AT TIME ZONE 'UTC' AND p.ends_at > days.instant AT TIME ZONE 'UTC'
     GROUP BY 1, 2, 3
  ),
  flows AS (
    SELECT (e.occurred_at AT TIME ZONE 'UTC')::date AS day, e.currency, e.environment,
           count(*) FILTER (WHERE kind = 'new_subscription') AS new_subscriptions,
           count(*) FILTER (WHERE kind = 'trial_started') AS trial_starts,
           count(*) FILTER (WHERE kind = 'trial_converted') AS trial_conversions,
           count(*) FILTER (WHERE kind = 'reactivated') AS reactivations,
           count(*) FILTER (WHERE kind = 'churn_voluntary') AS churn_voluntary,
           count(*) FILTER (WHERE kind = 'churn_billing') AS churn_billing,
           count(*) FILTER (WHERE kind = 'churn_refund') AS churn_refund,
           count(*) FILTER (WHERE kind = 'churn_other') AS churn_other,
           count(*) FILTER (WHERE kind IN ('purchase', 'renewal', 'seat_addition')) AS transactions,
           coalesce(sum(amount) FILTER (WHERE kind IN ('purchase', 'renewal', 'seat_addition')), 0) AS gross_revenue,
           count(*) FILTER (WHERE kind = 'refund') AS refunds,
           coalesce(sum(amount) FILTER (WHERE kind = 'refund'), 0) AS refund_amount,
           coalesce(sum(CASE WHEN kind IN ('purchase', 'renewal', 'seat_addition', 'refund_reversed') THEN amount
                             WHEN kind IN ('refund', 'upgrade_credit') THEN -amount END), 0) AS net_revenue,
           coalesce(sum(CASE WHEN kind IN ('purchase', 'renewal', 'seat_addition', 'refund_reversed') THEN proceeds
                             WHEN kind IN ('refund', 'upgrade_credit') THEN -proceeds END), 0) AS estimated_proceeds
      FROM storeledger_analytics.entries e
     WHERE e.occurred_at >= from_day::timestamp AT TIME ZONE 'UTC'
       AND e.occurred_at < (to_day + 1)::timestamp AT TIME ZONE 'UTC'
       AND e.occurred_at <= now()
     GROUP BY 1, 2, 3
  )
  SELECT coalesce(s.day, f.day), coalesce(s.currency, f.currency),
         coalesce(s.environment, f.environment),
         coalesce(s.active_subscriptions, 0), coalesce(s.active_trials, 0), coalesce(s.mrr, 0),
         coalesce(f.new_subscriptions, 0), coalesce(f.trial_starts, 0),
         coalesce(f.trial_conversions, 0), coalesce(f.reactivations, 0),
         coalesce(f.churn_voluntary, 0), coalesce(f.churn_billing, 0),
         coalesce(f.churn_refund, 0), coalesce(f.churn_other, 0), coalesce(f.transactions, 0),
         coalesce(f.gross_revenue, 0), coalesce(f.refunds, 0), coalesce(f.refund_amount, 0),
         coalesce(f.net_revenue, 0), coalesce(f.estimated_proceeds, 0)
    FROM stocks s
    FULL JOIN flows f USING (day, currency, environment)
   ORDER BY 1, 2, 3
$$;

-- The last 365 days, for tools that read views only.
CREATE VIEW storeledger_analytics.daily_metrics AS
  SELECT * FROM storeledger_analytics.daily_metrics(
    ((now() AT TIME ZONE 'UTC')::date - 364), (now() AT TIME ZONE 'UTC')::date);

ALTER TABLE storeledger_analytics.chains OWNER TO storeledger_owner;
ALTER TABLE storeledger_analytics.periods OWNER TO storeledger_owner;
ALTER TABLE storeledger_analytics.entries OWNER TO storeledger_owner;
ALTER VIEW storeledger_analytics.transactions OWNER TO storeledger_owner;
ALTER VIEW storeledger_analytics.refunds OWNER TO storeledger_owner;
ALTER VIEW storeledger_analytics.daily_metrics OWNER TO storeledger_owner;
ALTER FUNCTION storeledger_analytics.daily_metrics(date, date) OWNER TO storeledger_owner;
GRANT SELECT, INSERT, DELETE ON storeledger_analytics.chains, storeledger_analytics.periods,
  storeledger_analytics.entries TO storeledger_writer;
GRANT SELECT ON ALL TABLES IN SCHEMA storeledger_analytics TO storeledger_reader;
GRANT SELECT ON storeledger_analytics.transactions, storeledger_analytics.refunds,
  storeledger_analytics.daily_metrics TO storeledger_writer;
GRANT EXECUTE ON FUNCTION storeledger_analytics.daily_metrics(date, date)
  TO storeledger_writer, storeledger_reader;
