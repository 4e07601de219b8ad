-- The append path as one server-side function, so that an append without a hook is a single
-- round trip and a single implicit transaction, and its statements are planned once per session.
--
-- storeledger.append_events(stream, expected kind, expected version, per-event arrays) takes the
-- stream's advisory lock, returns the events whose keys are already stored (stored_before), and
-- inserts the others with the next versions and their hash chain. Errors:
--   SL002  an idempotency key is already used by another stream
--   SL003  the stream is not at the expected version (DETAIL: the stream's version)
-- Events with a stored key are never written again, and when every key is stored the expected
-- version is not checked: a retried append succeeds with the original positions.
--
-- The statement-level NOTIFY trigger of 0002 goes: NOTIFY takes a database-wide lock from
-- pre-commit until the commit has been flushed, which serialised every appending transaction.
-- Wake-ups are now sent by the engine after commit (see EventStore.AppendAnnouncer).

-- storeledger.event_digest is redefined with the same output as one PL/pgSQL expression: as
-- SQL functions calling SQL functions it was not inlined, and every transaction planned twelve
-- function bodies again (a quarter of an append's server time). PL/pgSQL keeps its plan for
-- the session.

DROP TRIGGER events_notify_appended ON storeledger.events;
DROP FUNCTION storeledger.notify_appended();

CREATE OR REPLACE FUNCTION storeledger.event_digest(
  prev_hash bytea, stream_id text, stream_version bigint, event_id uuid, idempotency_key text,
  event_type text, environment text, apple_signed_at timestamptz, recorded_at timestamptz,
  payload jsonb, raw_signed text, metadata jsonb
) RETURNS bytea
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
RETURN sha256(prev_hash || convert_to(
  coalesce(octet_length(stream_id)::text || ':' || stream_id, '~')
  || coalesce(octet_length(stream_version::text)::text || ':' || stream_version::text, '~')
  || coalesce(octet_length(event_id::text)::text || ':' || event_id::text, '~')
  || coalesce(octet_length(idempotency_key)::text || ':' || idempotency_key, '~')
  || coalesce(octet_length(event_type)::text || ':' || event_type, '~')
  || coalesce(octet_length(environment)::text || ':' || environment, '~')
  || coalesce(
       octet_length((extract(epoch FROM apple_signed_at AT TIME ZONE 'UTC') * 1000000)::bigint::text)::text
       || ':' || (extract(epoch FROM apple_signed_at AT TIME ZONE 'UTC') * 1000000)::bigint::text,
       '~')
  || coalesce(
       octet_length((extract(epoch FROM recorded_at AT TIME ZONE 'UTC') * 1000000)::bigint::text)::text
       || ':' || (extract(epoch FROM recorded_at AT TIME ZONE 'UTC') * 1000000)::bigint::text,
       '~')
  || coalesce(octet_length(payload::text)::text || ':' || payload::text, '~')
  || coalesce(octet_length(raw_signed)::text || ':' || raw_signed, '~')
  || coalesce(octet_length(metadata::text)::text || ':' || metadata::text, '~'),
  'UTF8'));
END
$$;

DROP FUNCTION storeledger.digest_time(timestamptz);
DROP FUNCTION storeledger.digest_field(text);

CREATE FUNCTION storeledger.append_events(
  p_stream_id text, p_expected text, p_expected_version bigint, p_event_ids uuid[],
  p_keys text[], p_types text[], p_environments text[], p_apple_signed_ms bigint[],
  p_payloads jsonb[], p_raw_signed text[], p_metadata jsonb[]
) RETURNS TABLE (
  idempotency_key text, event_id uuid, stream_version bigint, tx_id xid8, seq bigint,
  recorded_at timestamptz, stored_before boolean
)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  zero_hash constant bytea := decode(repeat('00', 32), 'hex');
  fresh int[];  -- positions in the arguments of the events to write; NULL: all of them
  stored_count bigint;
  stored_keys text[];
  head_version bigint;
  head_hash bytea;
  previous bytea[] := '{}';
  hashes bytea[] := '{}';
  signed_at timestamptz[] := '{}';
  positions int[] := '{}';
  recorded timestamptz := statement_timestamp();
  i int;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended(p_stream_id, 0));
  -- One statement, after the lock: how many keys are stored, and the stream's head.
  SELECT s.stored, h.stream_version, h.hash INTO stored_count, head_version, head_hash
  FROM (SELECT count(*) AS stored FROM storeledger.events e
        WHERE e.idempotency_key = ANY(p_keys)) AS s
  LEFT JOIN LATERAL (SELECT e.stream_version, e.hash FROM storeledger.events e
                     WHERE e.stream_id = p_stream_id
                     ORDER BY e.stream_version DESC LIMIT 1) AS h ON true;
  head_version := coalesce(head_version, 0);
  head_hash := coalesce(head_hash, zero_hash);

  IF stored_count > 0 THEN
    IF EXISTS (SELECT 1 FROM storeledger.events e
               WHERE e.idempotency_key = ANY(p_keys) AND e.stream_id <> p_stream_id) THEN
      RAISE EXCEPTION 'an idempotency key is already used by another stream'
        USING ERRCODE = 'SL002';
    END IF;
    RETURN QUERY
      SELECT e.idempotency_key, e.event_id, e.stream_version, e.tx_id, e.seq, e.recorded_at,
             true
      FROM storeledger.events e WHERE e.idempotency_key = ANY(p_keys);
    IF stored_count = cardinality(p_keys) THEN
      RETURN;
    END IF;
    -- Array work only, so the planner never considers a join against the whole log.
    stored_keys := ARRAY(
      SELECT e.idempotency_key FROM storeledger.events e WHERE e.idempotency_key = ANY(p_keys));
    fresh := ARRAY(
      SELECT k.n FROM generate_subscripts(p_keys, 1) AS k(n)
      WHERE p_keys[k.n] <> ALL(stored_keys) ORDER BY k.n);
  END IF;

  IF NOT (p_expected = 'any'
          OR (p_expected = 'no_stream' AND head_version = 0)
          OR (p_expected = 'exact' AND head_version = p_expected_version)) THEN
    RAISE EXCEPTION 'the stream is not at the expected version' USING ERRCODE = 'SL003',
      DETAIL = head_version::text;
  END IF;

  FOR n IN 1..coalesce(cardinality(fresh), cardinality(p_keys)) LOOP
    i := coalesce(fresh[n], n);
    positions[n] := i;
    signed_at[n] := CASE WHEN p_apple_signed_ms[i] < 0 THEN NULL
                         ELSE to_timestamp(0) + p_apple_signed_ms[i] * interval '1 millisecond' END;
    previous[n] := head_hash;
    head_hash := storeledger.event_digest(
      head_hash, p_stream_id, head_version + n, p_event_ids[i], p_keys[i], p_types[i],
      NULLIF(p_environments[i], ''), signed_at[n], recorded, p_payloads[i],
      NULLIF(p_raw_signed[i], ''), p_metadata[i]);
    hashes[n] := head_hash;
  END LOOP;

  RETURN QUERY
    INSERT INTO storeledger.events AS e (
      stream_id, stream_version, event_id, idempotency_key, event_type, environment,
      apple_signed_at, recorded_at, payload, raw_signed, metadata, prev_hash, hash)
    SELECT p_stream_id, head_version + f.n, p_event_ids[f.i], p_keys[f.i], p_types[f.i],
           NULLIF(p_environments[f.i], ''), signed_at[f.n], recorded, p_payloads[f.i],
           NULLIF(p_raw_signed[f.i], ''), p_metadata[f.i], previous[f.n], hashes[f.n]
    FROM unnest(positions) WITH ORDINALITY AS f(i, n)
    ORDER BY f.n
    RETURNING e.idempotency_key, e.event_id, e.stream_version, e.tx_id, e.seq, e.recorded_at,
              false;
END
$$;

ALTER FUNCTION storeledger.append_events(text, text, bigint, uuid[], text[], text[], text[],
  bigint[], jsonb[], text[], jsonb[]) OWNER TO storeledger_owner;
REVOKE ALL ON FUNCTION storeledger.append_events(text, text, bigint, uuid[], text[], text[],
  text[], bigint[], jsonb[], text[], jsonb[]) FROM PUBLIC;
-- Every statement above finds its rows through an index whatever the arguments, so one generic
-- plan per session serves all calls instead of planning each. Sequential scans are off inside
-- the function: a plan made while the log was small (a new database, before autovacuum's
-- first ANALYZE) would otherwise keep scanning the whole, grown table on every append.
ALTER FUNCTION storeledger.append_events(text, text, bigint, uuid[], text[], text[], text[],
  bigint[], jsonb[], text[], jsonb[])
  SET plan_cache_mode = force_generic_plan SET enable_seqscan = off;
GRANT EXECUTE ON FUNCTION storeledger.append_events(text, text, bigint, uuid[], text[], text[],
  text[], bigint[], jsonb[], text[], jsonb[]) TO storeledger_writer;
