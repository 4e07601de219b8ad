-- Lists across accounts: what each account's view holds, as columns the planner keeps
-- statistics for and indexes can answer, so a support list ("who is in billing retry", "who
-- holds pro", "whose period ends this week") reads an index rather than every view.
--
-- The columns are generated from the view, so every writer of a view (the projector, a
-- rebuild, an erasure's delete) keeps them true without knowing they exist. Arrays rather than
-- jsonb containment: ANALYZE keeps element frequencies of arrays, so the planner knows that
-- "status 1" matches most accounts (walk the newest-first index and filter) and "status 3"
-- few (read the GIN index, then sort).
--
-- A list is newest first by the time the account's view last changed (stable_from_ms: the
-- start of the interval the stored view holds for; 0 when it holds from the beginning), then
-- by token, so a page cursor is the last row's pair.

CREATE FUNCTION storeledger.view_texts(p_view jsonb, p_array text, p_field text)
RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT coalesce(array_agg(DISTINCT x.value ORDER BY x.value), '{}')
  FROM jsonb_array_elements(
    CASE WHEN jsonb_typeof(p_view -> p_array) = 'array' THEN p_view -> p_array ELSE '[]' END
  ) AS e(item)
  CROSS JOIN LATERAL (SELECT e.item ->> p_field) AS x(value)
  WHERE x.value IS NOT NULL AND x.value <> ''
$$;

CREATE FUNCTION storeledger.view_statuses(p_view jsonb) RETURNS integer[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT coalesce(array_agg(DISTINCT (e.item ->> 'status')::integer
    ORDER BY (e.item ->> 'status')::integer), '{}')
  FROM jsonb_array_elements(
    CASE WHEN jsonb_typeof(p_view -> 'subscriptions') = 'array' THEN p_view -> 'subscriptions'
      ELSE '[]' END
  ) AS e(item)
  WHERE e.item ->> 'status' ~ '^-?[0-9]{1,9}$'
$$;

CREATE FUNCTION storeledger.view_entitlements_in_force(p_view jsonb) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT coalesce(array_agg(DISTINCT e.item ->> 'entitlement'
    ORDER BY e.item ->> 'entitlement'), '{}')
  FROM jsonb_array_elements(
    CASE WHEN jsonb_typeof(p_view -> 'entitlements') = 'array' THEN p_view -> 'entitlements'
      ELSE '[]' END
  ) AS e(item)
  WHERE e.item ->> 'active' = 'true' AND e.item ->> 'entitlement' IS NOT NULL
$$;

CREATE FUNCTION storeledger.view_environments(p_view jsonb) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT coalesce(array_agg(DISTINCT x.value ORDER BY x.value), '{}')
  FROM (
    SELECT unnest(storeledger.view_texts(p_view, 'subscriptions', 'environment'))
    UNION ALL
    SELECT unnest(storeledger.view_texts(p_view, 'entitlements', 'environment'))
    UNION ALL
    SELECT jsonb_array_elements_text(
      CASE WHEN jsonb_typeof(c.item -> 'environments') = 'array' THEN c.item -> 'environments'
        ELSE '[]' END)
    FROM jsonb_array_elements(
      CASE WHEN jsonb_typeof(p_view -> 'consumables') = 'array' THEN p_view -> 'consumables'
        ELSE '[]' END
    ) AS c(item)
  ) AS x(value)
  WHERE x.value IS NOT NULL AND x.value <> ''
$$;

-- The earliest end of a current period among the account's active subscriptions (status 1):
-- "whose subscription ends in this window".
CREATE FUNCTION storeledger.view_next_expiry_ms(p_view jsonb) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT min((e.item ->> 'expiresDate')::bigint)
  FROM jsonb_array_elements(
    CASE WHEN jsonb_typeof(p_view -> 'subscriptions') = 'array' THEN p_view -> 'subscriptions'
      ELSE '[]' END
  ) AS e(item)
  WHERE e.item ->> 'status' = '1' AND e.item ->> 'expiresDate' ~ '^-?[0-9]{1,18}$'
$$;

ALTER FUNCTION storeledger.view_texts(jsonb, text, text) OWNER TO storeledger_owner;
ALTER FUNCTION storeledger.view_statuses(jsonb) OWNER TO storeledger_owner;
ALTER FUNCTION storeledger.view_entitlements_in_force(jsonb) OWNER TO storeledger_owner;
ALTER FUNCTION storeledger.view_environments(jsonb) OWNER TO storeledger_owner;
ALTER FUNCTION storeledger.view_next_expiry_ms(jsonb) OWNER TO storeledger_owner;

ALTER TABLE storeledger.account_views
  ADD COLUMN list_statuses integer[]
    GENERATED ALWAYS AS (storeledger.view_statuses(view)) STORED,
  ADD COLUMN list_entitlements text[]
    GENERATED ALWAYS AS (storeledger.view_entitlements_in_force(view)) STORED,
  ADD COLUMN list_products text[]
    GENERATED ALWAYS AS (
      storeledger.view_texts(view, 'subscriptions', 'productId')
      || storeledger.view_texts(view, 'consumables', 'productId')) STORED,
  ADD COLUMN list_storefronts text[]
    GENERATED ALWAYS AS (storeledger.view_texts(view, 'subscriptions', 'storefront')) STORED,
  ADD COLUMN list_environments text[]
    GENERATED ALWAYS AS (storeledger.view_environments(view)) STORED,
  ADD COLUMN list_next_expiry_ms bigint
    GENERATED ALWAYS AS (storeledger.view_next_expiry_ms(view)) STORED,
  ADD COLUMN list_changed_ms bigint
    GENERATED ALWAYS AS (coalesce(stable_from_ms, 0)) STORED;

CREATE INDEX account_views_list_newest
  ON storeledger.account_views (list_changed_ms DESC, app_account_token DESC);
CREATE INDEX account_views_list_statuses ON storeledger.account_views USING gin (list_statuses);
CREATE INDEX account_views_list_entitlements
  ON storeledger.account_views USING gin (list_entitlements);
CREATE INDEX account_views_list_products ON storeledger.account_views USING gin (list_products);
CREATE INDEX account_views_list_storefronts
  ON storeledger.account_views USING gin (list_storefronts);
CREATE INDEX account_views_list_environments
  ON storeledger.account_views USING gin (list_environments);
CREATE INDEX account_views_list_next_expiry
  ON storeledger.account_views (list_next_expiry_ms, app_account_token)
  WHERE list_next_expiry_ms IS NOT NULL;
-- A token's prefix (support pastes a part of one): the primary key's collation may not order
-- by bytes, this index does.
CREATE INDEX account_views_token_prefix
  ON storeledger.account_views (app_account_token text_pattern_ops);

-- Subscriptions entering a status in a window are the status changes with that new value:
-- newest first, then by feed position (a page cursor is the last row's pair).
CREATE INDEX changes_status_entered
  ON storeledger.changes (new_value, occurred_at_ms DESC, position DESC)
  WHERE change_type = 'subscription.status_changed';

-- A rebuild's table carries the generated columns (as expressions, not copies), the list
-- indexes and the erasure's quarantine trigger (triggers are not copied by LIKE: without it, a
-- rebuilt live table would index a later notification of an erased account again).
CREATE OR REPLACE FUNCTION storeledger.begin_account_views_rebuild() RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  v_version integer;
  v_stale integer;
BEGIN
  LOCK TABLE storeledger.account_views_versions IN EXCLUSIVE MODE;
  FOR v_stale IN
    SELECT version FROM storeledger.account_views_versions WHERE state = 'building'
  LOOP
    EXECUTE format('DROP TABLE IF EXISTS storeledger.%I', 'account_views_v' || v_stale);
    UPDATE storeledger.account_views_versions SET state = 'abandoned', retired_at = now()
    WHERE version = v_stale;
  END LOOP;
  SELECT max(version) + 1 INTO v_version FROM storeledger.account_views_versions;
  EXECUTE format(
    'CREATE TABLE storeledger.%I (LIKE storeledger.account_views INCLUDING DEFAULTS '
    'INCLUDING GENERATED INCLUDING CONSTRAINTS INCLUDING INDEXES INCLUDING STATISTICS)',
    'account_views_v' || v_version);
  EXECUTE format('GRANT SELECT, INSERT, UPDATE ON storeledger.%I TO storeledger_writer',
    'account_views_v' || v_version);
  EXECUTE format('GRANT SELECT ON storeledger.%I TO storeledger_reader',
    'account_views_v' || v_version);
  EXECUTE format(
    'CREATE TRIGGER account_views_skip_quarantined BEFORE INSERT ON storeledger.%I'
    ' FOR EACH ROW EXECUTE FUNCTION storeledger.skip_quarantined_account()',
    'account_views_v' || v_version);
  INSERT INTO storeledger.account_views_versions (version, state) VALUES (v_version, 'building');
  RETURN v_version;
END
$$;

-- The live table may come from a rebuild that ran before rebuilt tables carried the trigger.
DROP TRIGGER IF EXISTS account_views_skip_quarantined ON storeledger.account_views;
CREATE TRIGGER account_views_skip_quarantined BEFORE INSERT ON storeledger.account_views
  FOR EACH ROW EXECUTE FUNCTION storeledger.skip_quarantined_account();
