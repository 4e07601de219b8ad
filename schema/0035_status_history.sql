-- Each account's subscriptions' statuses by Apple's clock (projections/changes.md, "Status
-- history"): what the transitions list and outage grants select. The projector rewrites an
-- account's rows whole with its view, in the same statement; an erasure takes them with the
-- view. Existing views are projected again (their rules' fingerprint moved), which fills it.

CREATE TABLE storeledger.status_history (
  app_account_token text NOT NULL,
  ordinal integer NOT NULL,
  original_transaction_id text NOT NULL,
  from_status integer,
  to_status integer NOT NULL,
  effective_at_ms bigint NOT NULL,
  recorded_at_ms bigint NOT NULL,
  cause text
);

CREATE INDEX status_history_account ON storeledger.status_history (app_account_token);
CREATE INDEX status_history_entered
  ON storeledger.status_history (to_status, effective_at_ms DESC, app_account_token DESC,
    ordinal DESC);

GRANT SELECT, INSERT, DELETE ON storeledger.status_history TO storeledger_writer;
GRANT SELECT ON storeledger.status_history TO storeledger_reader;

-- Replaces the status histories of `p_tokens` with `p_entries` (a JSON array of rows; those of
-- other accounts are left out): the projector calls it for the views it stored, the rebuild
-- for each page, in the statement that stores the views.
CREATE FUNCTION storeledger.replace_status_history(p_tokens text[], p_entries jsonb)
RETURNS integer
LANGUAGE sql AS $$
  WITH cleared AS (
    DELETE FROM storeledger.status_history WHERE app_account_token = ANY(p_tokens)
  ), added AS (
    INSERT INTO storeledger.status_history (app_account_token, ordinal, original_transaction_id,
      from_status, to_status, effective_at_ms, recorded_at_ms, cause)
    SELECT e.token, e.ordinal, e.subscription, e.from_status, e.to_status, e.effective_ms,
      e.recorded_ms, e.cause
    FROM jsonb_to_recordset(p_entries) AS e(token text, ordinal integer, subscription text,
      from_status integer, to_status integer, effective_ms bigint, recorded_ms bigint,
      cause text)
    WHERE e.token = ANY(p_tokens)
    RETURNING 1
  )
  SELECT count(*)::integer FROM added
$$;

GRANT EXECUTE ON FUNCTION storeledger.replace_status_history(text[], jsonb)
  TO storeledger_writer;
