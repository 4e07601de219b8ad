-- The change feed (issue 23): every change of an account's derived state, with a global,
-- gap-free position, and its delivery to the backend's webhook endpoints.
--
-- Changes are derived data (projections/changes.md): the account projector compares each
-- account's projection before and after each of its events, and at each instant its answers
-- change by the clock, and appends what differs here. Positions are gap-free and commit in
-- order: they are taken from one counter row that every appending transaction updates (so a
-- transaction that rolls back gives its positions back, and the next one waits for it).

-- When a stream joined an account: events of the stream older than that are taken into the
-- account's changes at the join, not at their own place in the feed (so the changes of an
-- account are derived in an order that only ever grows at its end). Rows from before this
-- migration have none: they count as joined from the start.
ALTER TABLE storeledger.account_streams ADD COLUMN joined_tx xid8;
ALTER TABLE storeledger.account_streams ALTER COLUMN joined_tx SET DEFAULT pg_current_xact_id();

-- How far each account's changes are derived: the number of its events taken (in derivation
-- order), the number of changes appended (the next change's ordinal), the instant of the last
-- step, and when the clock next changes its answers. `version` moves on every update, so two
-- projectors deriving one account at once cannot both append. Kept apart from the views
-- (which a rebuild replaces): the changes are a feed with promised positions, never rebuilt.
CREATE TABLE storeledger.change_derivations (
  app_account_token  text    PRIMARY KEY,
  version            bigint  NOT NULL CHECK (version > 0),
  derived_events     bigint  NOT NULL CHECK (derived_events >= 0),
  derived_changes    bigint  NOT NULL CHECK (derived_changes >= 0),
  derived_ms         bigint,
  due_ms             bigint
);

CREATE INDEX change_derivations_due ON storeledger.change_derivations (due_ms)
  WHERE due_ms IS NOT NULL;

CREATE TABLE storeledger.changes (
  position           bigint      PRIMARY KEY CHECK (position > 0),
  change_id          uuid        NOT NULL UNIQUE,
  app_account_token  text        NOT NULL,
  -- The change's place among its account's changes, from 0.
  ordinal            bigint      NOT NULL CHECK (ordinal >= 0),
  change_type        text        NOT NULL,
  -- What the change is about (an entitlement, an originalTransactionId, a transactionId, a
  -- product) and its old and new values, as AccountChange holds them.
  subject            text        NOT NULL,
  old_value          text,
  new_value          text,
  occurred_at_ms     bigint      NOT NULL,
  -- The idempotency key of the event that caused it; null when the clock did.
  cause              text,
  recorded_at        timestamptz NOT NULL DEFAULT now(),
  UNIQUE (app_account_token, ordinal)
);

CREATE INDEX changes_recorded_at ON storeledger.changes (recorded_at);

CREATE TABLE storeledger.change_feed_head (
  only_row  boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  position  bigint  NOT NULL CHECK (position >= 0)
);
INSERT INTO storeledger.change_feed_head (position) VALUES (0);

-- Appends the changes of several accounts and moves their derivation markers, in one
-- statement: an account whose derivation `version` is no longer the expected one (another
-- projector derived it first) is left out with its changes. Returns the accounts moved.
-- Arrays cannot carry nulls from the client: '' and the smallest bigint stand for them.
CREATE FUNCTION storeledger.append_changes(
  p_tokens text[], p_versions bigint[], p_events bigint[], p_counts bigint[], p_instants bigint[],
  p_due bigint[],
  c_tokens text[], c_ordinals bigint[], c_ids uuid[], c_types text[], c_subjects text[],
  c_old text[], c_new text[], c_occurred bigint[], c_causes text[]
) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
  moved text[];
  base bigint;
  wanted bigint;
BEGIN
  WITH upserted AS (
    INSERT INTO storeledger.change_derivations AS d (app_account_token, version, derived_events,
      derived_changes, derived_ms, due_ms)
    SELECT u.token, u.version + 1, u.events, u.changes,
      NULLIF(u.instant, -9223372036854775808), NULLIF(u.due, -9223372036854775808)
    FROM unnest(p_tokens, p_versions, p_events, p_counts, p_instants, p_due)
      AS u(token, version, events, changes, instant, due)
    ORDER BY u.token
    ON CONFLICT (app_account_token) DO UPDATE SET version = excluded.version,
      derived_events = excluded.derived_events, derived_changes = excluded.derived_changes,
      derived_ms = excluded.derived_ms, due_ms = excluded.due_ms
    WHERE d.version = excluded.version - 1
    RETURNING d.app_account_token
  )
  SELECT coalesce(array_agg(app_account_token), '{}') INTO moved FROM upserted;

  SELECT count(*) INTO wanted FROM unnest(c_tokens) AS c(token) WHERE c.token = ANY(moved);
  IF wanted > 0 THEN
    UPDATE storeledger.change_feed_head SET position = position + wanted
    RETURNING position - wanted INTO base;
    INSERT INTO storeledger.changes (position, change_id, app_account_token, ordinal, change_type,
      subject, old_value, new_value, occurred_at_ms, cause)
    SELECT base + row_number() OVER (ORDER BY c.occurred, c.token, c.ordinal), c.id, c.token,
      c.ordinal, c.type, c.subject, NULLIF(c.old, ''), NULLIF(c.new, ''), c.occurred,
      NULLIF(c.cause, '')
    FROM unnest(c_tokens, c_ordinals, c_ids, c_types, c_subjects, c_old, c_new, c_occurred,
      c_causes) AS c(token, ordinal, id, type, subject, old, new, occurred, cause)
    WHERE c.token = ANY(moved);
  END IF;
  RETURN QUERY SELECT unnest(moved);
END
$$;

-- Webhook endpoints that receive the changes, by a key made from their URL (its host and
-- path: never its query or credentials). `enqueued_through`: the position up to which
-- deliveries were queued; a new endpoint starts at the feed's head.
CREATE TABLE storeledger.change_endpoints (
  endpoint          text        PRIMARY KEY,
  enqueued_through  bigint      NOT NULL,
  -- Deliveries the receiver accepted, ever (a counter: delivered rows leave the log).
  delivered_total   bigint      NOT NULL DEFAULT 0,
  created_at        timestamptz NOT NULL DEFAULT now()
);

-- The delivery log: one row per endpoint and change. `pending` until the receiver answered
-- 2xx (`delivered`) or retries ran out (`dead`). A claim leases the row so that servers
-- running delivery side by side do not send it twice; a crash between sending and recording
-- sends it again after the lease (receivers dedupe by the change's id).
CREATE TABLE storeledger.change_deliveries (
  endpoint           text        NOT NULL,
  position           bigint      NOT NULL,
  app_account_token  text        NOT NULL,
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
  PRIMARY KEY (endpoint, position)
);

CREATE INDEX change_deliveries_pending ON storeledger.change_deliveries (endpoint, position)
  WHERE state = 'pending';
CREATE INDEX change_deliveries_dead ON storeledger.change_deliveries (endpoint, position)
  WHERE state = 'dead';
CREATE INDEX change_deliveries_pending_account
  ON storeledger.change_deliveries (endpoint, app_account_token, position)
  WHERE state = 'pending';

ALTER TABLE storeledger.change_derivations OWNER TO storeledger_owner;
ALTER TABLE storeledger.changes OWNER TO storeledger_owner;
ALTER TABLE storeledger.change_feed_head OWNER TO storeledger_owner;
ALTER TABLE storeledger.change_endpoints OWNER TO storeledger_owner;
ALTER TABLE storeledger.change_deliveries OWNER TO storeledger_owner;
ALTER FUNCTION storeledger.append_changes(text[], bigint[], bigint[], bigint[], bigint[],
  bigint[], text[], bigint[], uuid[], text[], text[], text[], text[], bigint[], text[])
  OWNER TO storeledger_owner;
GRANT SELECT, INSERT, UPDATE ON storeledger.change_derivations TO storeledger_writer;
GRANT SELECT, INSERT ON storeledger.changes TO storeledger_writer;
GRANT SELECT, UPDATE ON storeledger.change_feed_head TO storeledger_writer;
GRANT SELECT, INSERT, UPDATE ON storeledger.change_endpoints TO storeledger_writer;
GRANT SELECT, INSERT, UPDATE, DELETE ON storeledger.change_deliveries TO storeledger_writer;
GRANT SELECT ON storeledger.change_derivations, storeledger.changes, storeledger.change_feed_head, storeledger.change_endpoints,
  storeledger.change_deliveries TO storeledger_reader;
