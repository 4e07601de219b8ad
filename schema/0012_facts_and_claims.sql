-- Facts and their evidence (issue 21): a row's `payload` is now the event as the reducers need
-- it (small, versioned facts: event types appstore.*.v2), and Apple's verified claims, from
-- which the facts were made, sit beside it in the new column `claims` (NULL for the backend's
-- commands). Rows written before keep their form: their payload is the claims and their event
-- type appstore.*.v1; the engine reads them through its upcaster.
--
-- The hash chain covers `claims` from now on. A row without claims hashes exactly as before,
-- so every stored hash stays valid: the digest appends the claims only when there are some.
-- The append functions take the claims as one more array (text, '' for none).

ALTER TABLE storeledger.events ADD COLUMN claims jsonb;

CREATE FUNCTION storeledger.event_digest(
  prev_hash bytea, stream_id text, stream_version bigint, event_id uuid, idempotency_key text,
  event_type text, environment text, apple_signed_at timestamptz, recorded_at timestamptz,
  payload jsonb, raw_signed text, metadata jsonb, claims jsonb
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
  || coalesce(octet_length(metadata::text)::text || ':' || metadata::text, '~')
  || coalesce('claims' || octet_length(claims::text)::text || ':' || claims::text, ''),
  'UTF8'));
END
$$;
ALTER FUNCTION storeledger.event_digest(bytea, text, bigint, uuid, text, text, text, timestamptz,
  timestamptz, jsonb, text, jsonb, jsonb) OWNER TO storeledger_owner;

DROP FUNCTION storeledger.append_batch(
  text[], uuid[], text[], text[], text[], bigint[], jsonb[], text[], jsonb[], int[], text[],
  text[]);
DROP FUNCTION storeledger.append_events_indexed(
  text, text, bigint, uuid[], text[], text[], text[], bigint[], jsonb[], text[], jsonb[], text[],
  text[]);
DROP FUNCTION storeledger.append_events(text, text, bigint, uuid[], text[], text[], text[],
  bigint[], jsonb[], text[], jsonb[]);

CREATE FUNCTION storeledger.append_events(
  p_stream_id text, p_expected text, p_expected_version bigint, p_event_ids uuid[],
  p_keys text[], p_types text[], p_environments text[], p_apple_signed_ms bigint[],
  p_payloads jsonb[], p_raw_signed text[], p_metadata jsonb[], p_claims text[]
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
      NULLIF(p_raw_signed[i], ''), p_metadata[i], NULLIF(p_claims[i], '')::jsonb);
    hashes[n] := head_hash;
  END LOOP;

  RETURN QUERY
    INSERT INTO storeledger.events AS e (
      stream_id, stream_version, event_id, idempotency_key, event_type, environment,
      apple_signed_at, recorded_at, payload, raw_signed, metadata, claims, prev_hash, hash)
    SELECT p_stream_id, head_version + f.n, p_event_ids[f.i], p_keys[f.i], p_types[f.i],
           NULLIF(p_environments[f.i], ''), signed_at[f.n], recorded, p_payloads[f.i],
           NULLIF(p_raw_signed[f.i], ''), p_metadata[f.i], NULLIF(p_claims[f.i], '')::jsonb,
           previous[f.n], hashes[f.n]
    FROM unnest(positions) WITH ORDINALITY AS f(i, n)
    ORDER BY f.n
    RETURNING e.idempotency_key, e.event_id, e.stream_version, e.tx_id, e.seq, e.recorded_at,
              false;
END
$$;

ALTER FUNCTION storeledger.append_events(text, text, bigint, uuid[], text[], text[], text[],
  bigint[], jsonb[], text[], jsonb[], text[]) OWNER TO storeledger_owner;
REVOKE ALL ON FUNCTION storeledger.append_events(text, text, bigint, uuid[], text[], text[],
  text[], bigint[], jsonb[], text[], jsonb[], text[]) FROM PUBLIC;
-- Every statement above finds its rows through an index whatever the arguments, so one generic
-- plan per session serves all calls instead of planning each. Sequential scans are off inside
-- the function: a plan made while the log was small (a new database, before autovacuum's
-- first ANALYZE) would otherwise keep scanning the whole, grown table on every append.
ALTER FUNCTION storeledger.append_events(text, text, bigint, uuid[], text[], text[], text[],
  bigint[], jsonb[], text[], jsonb[], text[])
  SET plan_cache_mode = force_generic_plan SET enable_seqscan = off;
GRANT EXECUTE ON FUNCTION storeledger.append_events(text, text, bigint, uuid[], text[], text[],
  text[], bigint[], jsonb[], text[], jsonb[], text[]) TO storeledger_writer;

CREATE FUNCTION storeledger.append_events_indexed(
  p_stream_id text, p_expected text, p_expected_version bigint, p_event_ids uuid[],
  p_keys text[], p_types text[], p_environments text[], p_apple_signed_ms bigint[],
  p_payloads jsonb[], p_raw_signed text[], p_metadata jsonb[], p_claims text[],
  p_tokens text[], p_index_streams text[]
) RETURNS TABLE (
  idempotency_key text, event_id uuid, stream_version bigint, tx_id xid8, seq bigint,
  recorded_at timestamptz, stored_before boolean
)
LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan SET enable_seqscan = off
AS $$
DECLARE
  v_stored_something boolean := false;
BEGIN
  FOR idempotency_key, event_id, stream_version, tx_id, seq, recorded_at, stored_before IN
    SELECT * FROM storeledger.append_events(
      p_stream_id, p_expected, p_expected_version, p_event_ids, p_keys, p_types, p_environments,
      p_apple_signed_ms, p_payloads, p_raw_signed, p_metadata, p_claims)
  LOOP
    v_stored_something := v_stored_something OR NOT stored_before;
    RETURN NEXT;
  END LOOP;
  INSERT INTO storeledger.account_streams (app_account_token, stream_id)
  SELECT token, stream
  FROM unnest(p_tokens) AS token, unnest(p_index_streams) AS stream
  ON CONFLICT (app_account_token, stream_id) DO NOTHING;
  IF v_stored_something THEN
    -- In token order, so two appends naming the same accounts lock their rows alike.
    INSERT INTO storeledger.account_views AS v (app_account_token, changes)
    SELECT DISTINCT token, 1 FROM unnest(p_tokens) AS token ORDER BY token
    ON CONFLICT (app_account_token) DO UPDATE SET changes = v.changes + 1;
  END IF;
END
$$;

ALTER FUNCTION storeledger.append_events_indexed(
  text, text, bigint, uuid[], text[], text[], text[], bigint[], jsonb[], text[], jsonb[], text[],
  text[], text[]
) OWNER TO storeledger_owner;
REVOKE ALL ON FUNCTION storeledger.append_events_indexed(
  text, text, bigint, uuid[], text[], text[], text[], bigint[], jsonb[], text[], jsonb[], text[],
  text[], text[]
) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION storeledger.append_events_indexed(
  text, text, bigint, uuid[], text[], text[], text[], bigint[], jsonb[], text[], jsonb[], text[],
  text[], text[]
) TO storeledger_writer;

CREATE FUNCTION storeledger.append_batch(
  p_streams text[], p_event_ids uuid[], p_keys text[], p_types text[], p_environments text[],
  p_apple_signed_ms bigint[], p_payloads jsonb[], p_raw_signed text[], p_metadata jsonb[],
  p_claims text[], p_index_items int[], p_index_tokens text[], p_index_streams text[]
) RETURNS TABLE (
  item int, idempotency_key text, event_id uuid, stream_version bigint, tx_id xid8, seq bigint,
  recorded_at timestamptz, stored_before boolean
)
LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan SET enable_seqscan = off
AS $$
DECLARE
  v_item int;
  v_stored int[] := '{}';
BEGIN
  FOR v_item IN
    SELECT s.ord::int FROM unnest(p_streams) WITH ORDINALITY AS s(stream, ord)
    ORDER BY s.stream, s.ord
  LOOP
    FOR idempotency_key, event_id, stream_version, tx_id, seq, recorded_at, stored_before IN
      SELECT * FROM storeledger.append_events(
        p_streams[v_item], 'any', 0, ARRAY[p_event_ids[v_item]], ARRAY[p_keys[v_item]],
        ARRAY[p_types[v_item]], ARRAY[p_environments[v_item]], ARRAY[p_apple_signed_ms[v_item]],
        ARRAY[p_payloads[v_item]], ARRAY[p_raw_signed[v_item]], ARRAY[p_metadata[v_item]],
        ARRAY[p_claims[v_item]])
    LOOP
      item := v_item;
      IF NOT stored_before THEN v_stored := v_stored || v_item; END IF;
      RETURN NEXT;
    END LOOP;
  END LOOP;
  INSERT INTO storeledger.account_streams (app_account_token, stream_id)
  SELECT DISTINCT e.token, e.stream
  FROM unnest(p_index_items, p_index_tokens, p_index_streams) AS e(item, token, stream)
  ORDER BY e.token, e.stream
  ON CONFLICT (app_account_token, stream_id) DO NOTHING;
  INSERT INTO storeledger.account_views AS v (app_account_token, changes)
  SELECT changed.token, count(*)
  FROM (
    SELECT DISTINCT e.item, e.token
    FROM unnest(p_index_items, p_index_tokens) AS e(item, token)
    WHERE e.item = ANY(v_stored)
  ) AS changed
  GROUP BY changed.token ORDER BY changed.token
  ON CONFLICT (app_account_token) DO UPDATE SET changes = v.changes + EXCLUDED.changes;
END
$$;

ALTER FUNCTION storeledger.append_batch(
  text[], uuid[], text[], text[], text[], bigint[], jsonb[], text[], jsonb[], text[], int[],
  text[], text[]
) OWNER TO storeledger_owner;
REVOKE ALL ON FUNCTION storeledger.append_batch(
  text[], uuid[], text[], text[], text[], bigint[], jsonb[], text[], jsonb[], text[], int[],
  text[], text[]
) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION storeledger.append_batch(
  text[], uuid[], text[], text[], text[], bigint[], jsonb[], text[], jsonb[], text[], int[],
  text[], text[]
) TO storeledger_writer;

DROP FUNCTION storeledger.event_digest(bytea, text, bigint, uuid, text, text, text, timestamptz,
  timestamptz, jsonb, text, jsonb);
