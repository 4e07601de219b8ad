-- Every change carries two clocks: `effective_at_ms`, when it took effect by Apple's data
-- (projections/changes.md, "Effective time"), and `recorded_at`, when the ledger recorded
-- it. `occurred_at_ms` stays the derivation's instant, which orders the feed's appends.
-- Windows ("entered billing retry in the last 7 days", outage grants) select on the first.
--
-- Changes recorded before this migration were never given an effective time: theirs stays
-- null (the API says `"effectiveAt": null`), and no window selects them.

ALTER TABLE storeledger.changes ADD COLUMN effective_at_ms bigint;

DROP INDEX storeledger.changes_status_entered;
CREATE INDEX changes_status_entered
  ON storeledger.changes (new_value, effective_at_ms DESC, position DESC)
  WHERE change_type = 'subscription.status_changed';

DROP FUNCTION storeledger.append_changes(text[], bigint[], bigint[], bigint[], bigint[],
  bigint[], text[], bigint[], uuid[], text[], text[], text[], text[], bigint[], text[]);

-- As schema/0016's, with each change's effective time.
CREATE FUNCTION storeledger.append_changes(
  p_tokens text[], p_versions bigint[], p_events bigint[], p_counts bigint[], p_instants bigint[],
  p_due bigint[],
  c_tokens text[], c_ordinals bigint[], c_ids uuid[], c_types text[], c_subjects text[],
  c_old text[], c_new text[], c_occurred bigint[], c_causes text[], c_effective bigint[]
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
      subject, old_value, new_value, occurred_at_ms, cause, effective_at_ms)
    SELECT base + row_number() OVER (ORDER BY c.occurred, c.token, c.ordinal), c.id, c.token,
      c.ordinal, c.type, c.subject, NULLIF(c.old, ''), NULLIF(c.new, ''), c.occurred,
      NULLIF(c.cause, ''), c.effective
    FROM unnest(c_tokens, c_ordinals, c_ids, c_types, c_subjects, c_old, c_new, c_occurred,
      c_causes, c_effective) AS c(token, ordinal, id, type, subject, old, new, occurred, cause,
      effective)
    WHERE c.token = ANY(moved);
  END IF;
  RETURN QUERY SELECT unnest(moved);
END
$$;

ALTER FUNCTION storeledger.append_changes(text[], bigint[], bigint[], bigint[], bigint[],
  bigint[], text[], bigint[], uuid[], text[], text[], text[], text[], bigint[], text[], bigint[])
  OWNER TO storeledger_owner;
