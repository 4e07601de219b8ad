-- Group commit: single-event appends to many streams in one transaction, so concurrent
-- ingests (webhook calls arriving together) share one commit and one WAL flush instead of
-- paying for one each.
--
-- storeledger.append_batch(per-item arrays, index pairs) appends item i (one event) to stream
-- p_streams[i] exactly as append_events_indexed would with expected version "any", and returns
-- its row with `item` = i. Locks are taken in one global order so that batches and single
-- appends never deadlock: streams in stream-id order, then index entries in (token, stream)
-- order, then account views in token order. Any error fails the whole batch (the caller then
-- appends the items one by one, so only the faulty one fails).
--
-- Index entries: p_index_items[k] names the item whose stream p_index_streams[k] the account
-- p_index_tokens[k] is linked to; items that stored something bump `changes` of every account
-- among their entries.

CREATE FUNCTION storeledger.append_batch(
  p_streams text[], p_event_ids uuid[], p_keys text[], p_types text[], p_environments text[],
  p_apple_signed_ms bigint[], p_payloads jsonb[], p_raw_signed text[], p_metadata jsonb[],
  p_index_items int[], p_index_tokens text[], p_index_streams text[]
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
        ARRAY[p_payloads[v_item]], ARRAY[p_raw_signed[v_item]], ARRAY[p_metadata[v_item]])
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
  text[], uuid[], text[], text[], text[], bigint[], jsonb[], text[], jsonb[], int[], text[],
  text[]
) OWNER TO storeledger_owner;
REVOKE ALL ON FUNCTION storeledger.append_batch(
  text[], uuid[], text[], text[], text[], bigint[], jsonb[], text[], jsonb[], int[], text[],
  text[]
) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION storeledger.append_batch(
  text[], uuid[], text[], text[], text[], bigint[], jsonb[], text[], jsonb[], int[], text[],
  text[]
) TO storeledger_writer;
