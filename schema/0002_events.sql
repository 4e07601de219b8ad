-- The event log: one append-only table.
--
-- Feed order is (tx_id, seq): tx_id is the appending transaction's id, assigned at its first
-- write, after the per-stream advisory lock; seq orders rows inside it. Readers stop at
-- pg_snapshot_xmin(pg_current_snapshot()), below which no transaction is still running, so a
-- late commit is never skipped.
--
-- Every row carries a per-stream hash chain: hash = sha256(prev_hash || canonical row content),
-- prev_hash of a stream's first event being 32 zero bytes. storeledger.event_digest defines the
-- canonical content once, for the append and for the check.

CREATE TABLE storeledger.events (
  stream_id        text        NOT NULL CHECK (stream_id <> ''),
  stream_version   bigint      NOT NULL CHECK (stream_version > 0),
  tx_id            xid8        NOT NULL DEFAULT pg_current_xact_id(),
  seq              bigint      NOT NULL GENERATED ALWAYS AS IDENTITY,
  event_id         uuid        NOT NULL,
  idempotency_key  text        NOT NULL CHECK (idempotency_key <> ''),
  event_type       text        NOT NULL CHECK (event_type ~ '^[A-Za-z][A-Za-z0-9_.]*\.v[0-9]+$'),
  environment      text,
  apple_signed_at  timestamptz,
  recorded_at      timestamptz NOT NULL,
  payload          jsonb       NOT NULL,
  raw_signed       text,
  metadata         jsonb       NOT NULL DEFAULT '{}',
  prev_hash        bytea       NOT NULL CHECK (octet_length(prev_hash) = 32),
  hash             bytea       NOT NULL CHECK (octet_length(hash) = 32),
  PRIMARY KEY (stream_id, stream_version),
  UNIQUE (idempotency_key),
  UNIQUE (event_id)
);

CREATE UNIQUE INDEX events_feed_order ON storeledger.events (tx_id, seq);

ALTER TABLE storeledger.events OWNER TO storeledger_owner;
GRANT SELECT, INSERT ON storeledger.events TO storeledger_writer;
GRANT SELECT ON storeledger.events TO storeledger_reader;

-- One field of the canonical encoding: its length in bytes, a colon, the text; ~ for NULL.
CREATE FUNCTION storeledger.digest_field(value text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE WHEN value IS NULL THEN '~' ELSE octet_length(value)::text || ':' || value END;

-- Times enter the digest as whole microseconds since 1970, independent of the session's TimeZone.
CREATE FUNCTION storeledger.digest_time(value timestamptz) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN storeledger.digest_field(
  (extract(epoch FROM value AT TIME ZONE 'UTC') * 1000000)::bigint::text);

CREATE FUNCTION storeledger.event_digest(
  prev_hash bytea, stream_id text, stream_version bigint, event_id uuid, idempotency_key text,
  event_type text, environment text, apple_signed_at timestamptz, recorded_at timestamptz,
  payload jsonb, raw_signed text, metadata jsonb
) RETURNS bytea
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN sha256(prev_hash || convert_to(
  storeledger.digest_field(stream_id)
  || storeledger.digest_field(stream_version::text)
  || storeledger.digest_field(event_id::text)
  || storeledger.digest_field(idempotency_key)
  || storeledger.digest_field(event_type)
  || storeledger.digest_field(environment)
  || storeledger.digest_time(apple_signed_at)
  || storeledger.digest_time(recorded_at)
  || storeledger.digest_field(payload::text)
  || storeledger.digest_field(raw_signed)
  || storeledger.digest_field(metadata::text),
  'UTF8'));

ALTER FUNCTION storeledger.digest_field(text) OWNER TO storeledger_owner;
ALTER FUNCTION storeledger.digest_time(timestamptz) OWNER TO storeledger_owner;
ALTER FUNCTION storeledger.event_digest(bytea, text, bigint, uuid, text, text, text, timestamptz,
  timestamptz, jsonb, text, jsonb) OWNER TO storeledger_owner;

-- Immutability: whoever has the privilege still cannot change or remove an event. Only the
-- owner can disable these triggers, which the hash chain then makes visible.
CREATE FUNCTION storeledger.reject_event_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'storeledger events are immutable: % is not allowed', TG_OP
    USING ERRCODE = 'SL001';
END
$$;
ALTER FUNCTION storeledger.reject_event_change() OWNER TO storeledger_owner;

CREATE TRIGGER events_reject_update_delete
  BEFORE UPDATE OR DELETE ON storeledger.events
  FOR EACH ROW EXECUTE FUNCTION storeledger.reject_event_change();

CREATE TRIGGER events_reject_truncate
  BEFORE TRUNCATE ON storeledger.events
  FOR EACH STATEMENT EXECUTE FUNCTION storeledger.reject_event_change();

-- A wake-up hint for feed readers; never the delivery mechanism.
CREATE FUNCTION storeledger.notify_appended() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('storeledger_events', '');
  RETURN NULL;
END
$$;
ALTER FUNCTION storeledger.notify_appended() OWNER TO storeledger_owner;

CREATE TRIGGER events_notify_appended
  AFTER INSERT ON storeledger.events
  FOR EACH STATEMENT EXECUTE FUNCTION storeledger.notify_appended();
