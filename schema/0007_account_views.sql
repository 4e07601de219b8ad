-- The per-account read model: what each account is entitled to, its subscriptions and its
-- consumable balances, as last projected from the log, and the span of time that answer holds
-- for (answers change with time only at instants the evidence names: an expiry, the end of a
-- grace period, a revocation date). Derived data: it can always be rebuilt from the log.
--
-- Read-your-writes: every append that names an account bumps its `changes` in the append's own
-- transaction; a view is current only while `projected_changes = changes`. Readers fold the
-- log themselves when it is not, so an answer never lags an ingest that has returned.

CREATE TABLE storeledger.account_views (
  app_account_token  text        PRIMARY KEY CHECK (app_account_token <> ''),
  -- Appends that named the account (duplicates excluded).
  changes            bigint      NOT NULL DEFAULT 0 CHECK (changes >= 0),
  -- The `changes` the stored view includes; -1 before the first projection.
  projected_changes  bigint      NOT NULL DEFAULT -1,
  -- Which rules and catalog computed the view: a view from other ones is not current.
  projection         text,
  view               jsonb,
  -- The stable interval of the view, Unix milliseconds: from (included) until (excluded);
  -- null is unbounded.
  stable_from_ms     bigint,
  stable_until_ms    bigint,
  projected_at       timestamptz,
  CHECK (projected_changes <= changes)
);

CREATE INDEX account_views_stable_until ON storeledger.account_views (stable_until_ms)
  WHERE stable_until_ms IS NOT NULL;
-- The projector asks which accounts a stream belongs to.
CREATE INDEX account_streams_stream ON storeledger.account_streams (stream_id);

ALTER TABLE storeledger.account_views OWNER TO storeledger_owner;
GRANT SELECT, INSERT, UPDATE ON storeledger.account_views TO storeledger_writer;
GRANT SELECT ON storeledger.account_views TO storeledger_reader;

-- Accounts indexed before this migration start out not projected.
INSERT INTO storeledger.account_views (app_account_token, changes)
SELECT DISTINCT app_account_token, 1 FROM storeledger.account_streams;

-- The indexed append now also bumps `changes` of every account it names, when it stored
-- something (a duplicate changes nothing, so it leaves the views current).
CREATE OR REPLACE FUNCTION storeledger.append_events_indexed(
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
DECLARE
  v_stored_something boolean := false;
BEGIN
  FOR idempotency_key, event_id, stream_version, tx_id, seq, recorded_at, stored_before IN
    SELECT * FROM storeledger.append_events(
      p_stream_id, p_expected, p_expected_version, p_event_ids, p_keys, p_types, p_environments,
      p_apple_signed_ms, p_payloads, p_raw_signed, p_metadata)
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
