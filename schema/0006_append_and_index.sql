-- An append and its account index entries in one statement: an ingest that names accounts is
-- one round trip and one implicit transaction instead of BEGIN, append, index, COMMIT.
--
-- storeledger.append_events_indexed(… as append_events …, tokens, streams) appends like
-- append_events, then links every token to every given stream in storeledger.account_streams.
-- Index entries are facts that never change, so one already present is kept as it is.

CREATE FUNCTION storeledger.append_events_indexed(
  p_stream_id text, p_expected text, p_expected_version bigint, p_event_ids uuid[],
  p_keys text[], p_types text[], p_environments text[], p_apple_signed_ms bigint[],
  p_payloads jsonb[], p_raw_signed text[], p_metadata jsonb[],
  p_tokens text[], p_index_streams text[]
) RETURNS TABLE (
  idempotency_key text, event_id uuid, stream_version bigint, tx_id xid8, seq bigint,
  recorded_at timestamptz, stored_before boolean
)
LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan SET enable_seqscan = off
AS $$
BEGIN
  RETURN QUERY SELECT * FROM storeledger.append_events(
    p_stream_id, p_expected, p_expected_version, p_event_ids, p_keys, p_types, p_environments,
    p_apple_signed_ms, p_payloads, p_raw_signed, p_metadata);
  INSERT INTO storeledger.account_streams (app_account_token, stream_id)
  SELECT token, stream
  FROM unnest(p_tokens) AS token, unnest(p_index_streams) AS stream
  ON CONFLICT (app_account_token, stream_id) DO NOTHING;
END
$$;

ALTER FUNCTION storeledger.append_events_indexed(
  text, text, bigint, uuid[], text[], text[], text[], bigint[], jsonb[], text[], jsonb[], text[],
  text[]
) OWNER TO storeledger_owner;
REVOKE ALL ON FUNCTION storeledger.append_events_indexed(
  text, text, bigint, uuid[], text[], text[], text[], bigint[], jsonb[], text[], jsonb[], text[],
  text[]
) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION storeledger.append_events_indexed(
  text, text, bigint, uuid[], text[], text[], text[], bigint[], jsonb[], text[], jsonb[], text[],
  text[]
) TO storeledger_writer;
