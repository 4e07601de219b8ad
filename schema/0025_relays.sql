-- Relays: Apple's notifications sent on to other systems (a staging backend, a former vendor),
-- the signed body unchanged. Apple allows one notification URL per environment and app; a
-- relay target receives what that URL received.
--
-- A relay never touches the webhook's path: it reads notifications from the event log after
-- they committed (in feed order, below every running transaction, as the projectors read),
-- queues them per target here, and sends them from a service of its own. Every attempt and
-- its outcome is appended to the log (`ledger.relay_attempted.v1` in the stream
-- `relay:<target>`), so what a target received, and when, is in the audited log; these
-- tables are the queue and its bookkeeping.

-- A target, by its name. `url` may carry credentials in its query, so only `url_key` (host,
-- port and path) is ever shown, logged or recorded. `environments`: the environments relayed;
-- `notification_types`: the types relayed (null: every type, also ones this release does not
-- know). `enqueued_tx`/`enqueued_seq`: the feed position up to which notifications were
-- queued; a new target starts at the oldest transaction still running, so nothing that
-- commits after it was added is missed.
CREATE TABLE storeledger.relay_targets (
  name                text        PRIMARY KEY CHECK (name ~ '^[a-z0-9][a-z0-9_-]{0,62}$'),
  url                 text        NOT NULL,
  url_key             text        NOT NULL,
  environments        text[]      NOT NULL CHECK (cardinality(environments) > 0),
  notification_types  text[],
  enqueued_tx         xid8        NOT NULL,
  enqueued_seq        bigint      NOT NULL,
  -- Deliveries the target accepted, ever (delivered rows leave the queue).
  delivered_total     bigint      NOT NULL DEFAULT 0,
  created_at          timestamptz NOT NULL DEFAULT now(),
  created_by          text        NOT NULL
);

-- One row per target and notification (by the notification's idempotency key, so Apple's
-- retries of one notification are relayed once). `pending` until the target answered 2xx
-- (`delivered`) or retries ran out (`dead`). A claim leases the row, so servers relaying side
-- by side do not send it twice.
CREATE TABLE storeledger.relay_deliveries (
  target             text        NOT NULL
                                 REFERENCES storeledger.relay_targets (name) ON DELETE CASCADE,
  idempotency_key    text        NOT NULL,
  stream_id          text        NOT NULL,
  stream_version     bigint      NOT NULL,
  tx_id              xid8        NOT NULL,
  seq                bigint      NOT NULL,
  notification_type  text,
  environment        text,
  state              text        NOT NULL DEFAULT 'pending'
                                 CHECK (state IN ('pending', 'delivered', 'dead')),
  attempts           integer     NOT NULL DEFAULT 0,
  next_attempt_at    timestamptz NOT NULL DEFAULT now(),
  leased_until       timestamptz,
  first_attempt_at   timestamptz,
  last_attempt_at    timestamptz,
  last_status        integer,
  last_error         text,
  delivered_at       timestamptz,
  PRIMARY KEY (target, idempotency_key)
);

CREATE INDEX relay_deliveries_pending ON storeledger.relay_deliveries (target, tx_id, seq)
  WHERE state = 'pending';
CREATE INDEX relay_deliveries_dead ON storeledger.relay_deliveries (target, tx_id, seq)
  WHERE state = 'dead';

ALTER TABLE storeledger.relay_targets OWNER TO storeledger_owner;
ALTER TABLE storeledger.relay_deliveries OWNER TO storeledger_owner;
GRANT SELECT, INSERT, UPDATE, DELETE ON storeledger.relay_targets TO storeledger_writer;
GRANT SELECT, INSERT, UPDATE, DELETE ON storeledger.relay_deliveries TO storeledger_writer;
GRANT SELECT ON storeledger.relay_targets, storeledger.relay_deliveries TO storeledger_reader;
