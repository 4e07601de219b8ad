-- A write to a purchase chain counts for every account holding the chain, not only for the
-- accounts its event names. Apple's notifications about a purchase made without an
-- appAccountToken, and linked to an account afterwards (a link, or an app transaction's
-- account), name no account: a refund of such a purchase moved no account's `changes`, so the
-- account's stored view still looked current and answered from before the refund until the
-- projector came by. Both append functions now count the write, in the same statement as
-- before, for the accounts named and for every account already indexed under the stream
-- (account_streams_stream); a write to a stream no account holds costs one index probe more.
-- Same signatures and results: servers of the previous release call them unchanged.

CREATE OR REPLACE FUNCTION storeledger.append_events_indexed(
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
    -- The accounts named and every account holding the stream, in token order, so two
    -- appends counting the same accounts lock their rows alike.
    INSERT INTO storeledger.account_views AS v (app_account_token, changes)
    SELECT counted.token, 1
    FROM (
      SELECT token FROM unnest(p_tokens) AS token
      UNION
      SELECT s.app_account_token FROM storeledger.account_streams s
      WHERE s.stream_id = p_stream_id
    ) AS counted
    ORDER BY counted.token
    ON CONFLICT (app_account_token) DO UPDATE SET changes = v.changes + 1;
  END IF;
END
$$;

CREATE OR REPLACE FUNCTION storeledger.append_batch(
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
#variable_conflict use_column
DECLARE
  zero_hash constant bytea := decode(repeat('00', 32), 'hex');
  recorded timestamptz := statement_timestamp();
  head_streams text[];
  head_versions bigint[];
  head_hashes bytea[];
  stored_keys text[];
  stored_streams text[];
  written_keys text[] := '{}';
  written_streams text[] := '{}';
  w_items int[] := '{}';
  w_versions bigint[] := '{}';
  w_signed timestamptz[] := '{}';
  w_previous bytea[] := '{}';
  w_hashes bytea[] := '{}';
  v_item int;
  v_stream text;
  v_head int;
  v_at int;
BEGIN
  -- Streams in one order for every batch, so two batches never wait on each other in turn.
  PERFORM pg_advisory_xact_lock(hashtextextended(s.stream, 0))
  FROM (SELECT DISTINCT stream FROM unnest(p_streams) AS stream ORDER BY stream) AS s;

  SELECT array_agg(s.stream), array_agg(coalesce(h.stream_version, 0)),
         array_agg(coalesce(h.hash, zero_hash))
  INTO head_streams, head_versions, head_hashes
  FROM (SELECT DISTINCT stream FROM unnest(p_streams) AS stream) AS s
  LEFT JOIN LATERAL (SELECT e.stream_version, e.hash FROM storeledger.events e
                     WHERE e.stream_id = s.stream
                     ORDER BY e.stream_version DESC LIMIT 1) AS h ON true;

  SELECT coalesce(array_agg(e.idempotency_key), '{}'), coalesce(array_agg(e.stream_id), '{}')
  INTO stored_keys, stored_streams
  FROM storeledger.events e WHERE e.idempotency_key = ANY(p_keys);

  FOR v_item IN
    SELECT s.ord::int FROM unnest(p_streams) WITH ORDINALITY AS s(stream, ord)
    ORDER BY s.stream, s.ord
  LOOP
    v_stream := p_streams[v_item];
    v_at := array_position(stored_keys, p_keys[v_item]);
    IF v_at IS NULL THEN
      v_at := array_position(written_keys, p_keys[v_item]);
      IF v_at IS NULL THEN
        v_head := array_position(head_streams, v_stream);
        head_versions[v_head] := head_versions[v_head] + 1;
        w_items := w_items || v_item;
        w_versions := w_versions || head_versions[v_head];
        w_signed := w_signed || CASE WHEN p_apple_signed_ms[v_item] < 0 THEN NULL
          ELSE to_timestamp(0) + p_apple_signed_ms[v_item] * interval '1 millisecond' END;
        w_previous := w_previous || head_hashes[v_head];
        head_hashes[v_head] := storeledger.event_digest(
          head_hashes[v_head], v_stream, head_versions[v_head], p_event_ids[v_item],
          p_keys[v_item], p_types[v_item], NULLIF(p_environments[v_item], ''),
          w_signed[cardinality(w_signed)], recorded, p_payloads[v_item],
          NULLIF(p_raw_signed[v_item], ''), p_metadata[v_item],
          NULLIF(p_claims[v_item], '')::jsonb);
        w_hashes := w_hashes || head_hashes[v_head];
        written_keys := written_keys || p_keys[v_item];
        written_streams := written_streams || v_stream;
        CONTINUE;
      END IF;
      IF written_streams[v_at] <> v_stream THEN
        RAISE EXCEPTION 'an idempotency key is already used by another stream'
          USING ERRCODE = 'SL002';
      END IF;
    ELSIF stored_streams[v_at] <> v_stream THEN
      RAISE EXCEPTION 'an idempotency key is already used by another stream'
        USING ERRCODE = 'SL002';
    END IF;
  END LOOP;

  RETURN QUERY
    WITH written AS (
      INSERT INTO storeledger.events AS e (
        stream_id, stream_version, event_id, idempotency_key, event_type, environment,
        apple_signed_at, recorded_at, payload, raw_signed, metadata, claims, prev_hash, hash)
      SELECT p_streams[w.i], w_versions[w.n], p_event_ids[w.i], p_keys[w.i], p_types[w.i],
             NULLIF(p_environments[w.i], ''), w_signed[w.n], recorded, p_payloads[w.i],
             NULLIF(p_raw_signed[w.i], ''), p_metadata[w.i], NULLIF(p_claims[w.i], '')::jsonb,
             w_previous[w.n], w_hashes[w.n]
      FROM unnest(w_items) WITH ORDINALITY AS w(i, n)
      ORDER BY w.n
      RETURNING e.idempotency_key, e.event_id, e.stream_version, e.tx_id, e.seq, e.recorded_at
    ), found AS (
      SELECT w.idempotency_key, w.event_id, w.stream_version, w.tx_id, w.seq, w.recorded_at
      FROM written w
      UNION ALL
      SELECT e.idempotency_key, e.event_id, e.stream_version, e.tx_id, e.seq, e.recorded_at
      FROM storeledger.events e WHERE e.idempotency_key = ANY(stored_keys)
    )
    SELECT k.item::int, f.idempotency_key, f.event_id, f.stream_version, f.tx_id, f.seq,
           f.recorded_at, NOT (k.item::int = ANY(w_items))
    FROM unnest(p_keys) WITH ORDINALITY AS k(key, item)
    JOIN found f ON f.idempotency_key = k.key;

  INSERT INTO storeledger.account_streams (app_account_token, stream_id)
  SELECT DISTINCT e.token, e.stream
  FROM unnest(p_index_items, p_index_tokens, p_index_streams) AS e(item, token, stream)
  ORDER BY e.token, e.stream
  ON CONFLICT (app_account_token, stream_id) DO NOTHING;
  -- Each written item counts once for the accounts it names and for every account holding its
  -- stream, in token order.
  INSERT INTO storeledger.account_views AS v (app_account_token, changes)
  SELECT changed.token, count(*)
  FROM (
    SELECT e.item, e.token
    FROM unnest(p_index_items, p_index_tokens) AS e(item, token)
    WHERE e.item = ANY(w_items)
    UNION
    SELECT w.item, s.app_account_token
    FROM unnest(w_items) AS w(item)
    JOIN storeledger.account_streams s ON s.stream_id = p_streams[w.item]
  ) AS changed
  GROUP BY changed.token ORDER BY changed.token
  ON CONFLICT (app_account_token) DO UPDATE SET changes = v.changes + EXCLUDED.changes;
END
$$;
