-- The support lists' columns of an account view are written with the view instead of being
-- generated from it. A generated column is computed again on every UPDATE of its row, and an
-- append bumps the row's `changes` on every event: seven jsonb walks (about 250 µs) paid by
-- every append, every projector write and every rebuilt row, for values that change only when
-- the view does. The projector and the rebuild compute them where the view is built (one rule,
-- StoreLedgerCore's AccountListRow) and store them beside it.
--
-- DROP EXPRESSION keeps every row's current values, so nothing is computed again here. A row
-- an append creates before any view exists gets the values of an empty view.

-- The live table and every version kept beside it (a retired rebuild's table carries the
-- expressions too, and they name the functions dropped below).
DO $$
DECLARE
  v_table regclass;
  v_column name;
BEGIN
  FOR v_table, v_column IN
    SELECT c.oid::regclass, a.attname
    FROM pg_attribute a
    JOIN pg_class c ON c.oid = a.attrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'storeledger' AND c.relname LIKE 'account\_views%' AND c.relkind = 'r'
      AND a.attgenerated = 's' AND a.attname LIKE 'list\_%' AND NOT a.attisdropped
    ORDER BY c.oid, a.attnum
  LOOP
    EXECUTE format('ALTER TABLE %s ALTER COLUMN %I DROP EXPRESSION', v_table, v_column);
  END LOOP;
END
$$;

ALTER TABLE storeledger.account_views
  ALTER COLUMN list_statuses SET DEFAULT '{}',
  ALTER COLUMN list_entitlements SET DEFAULT '{}',
  ALTER COLUMN list_products SET DEFAULT '{}',
  ALTER COLUMN list_storefronts SET DEFAULT '{}',
  ALTER COLUMN list_environments SET DEFAULT '{}',
  ALTER COLUMN list_changed_ms SET DEFAULT 0;

-- Nothing computes them in the database any more.
DROP FUNCTION storeledger.view_environments(jsonb);
DROP FUNCTION storeledger.view_texts(jsonb, text, text);
DROP FUNCTION storeledger.view_statuses(jsonb);
DROP FUNCTION storeledger.view_entitlements_in_force(jsonb);
DROP FUNCTION storeledger.view_next_expiry_ms(jsonb);

-- Stores rebuilt views, with their list columns, into the building table of p_version. Each
-- list arrives as one array literal per account (`{"a","b"}`), cast here.
DROP FUNCTION storeledger.store_rebuilt_account_views(integer, text, text[], bigint[], text[],
  bigint[], bigint[]);
CREATE FUNCTION storeledger.store_rebuilt_account_views(
  p_version integer, p_projection text, p_tokens text[], p_changes bigint[], p_views text[],
  p_from_ms bigint[], p_until_ms bigint[], p_statuses text[], p_entitlements text[],
  p_products text[], p_storefronts text[], p_environments text[], p_next_expiry_ms bigint[]
) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  v_count bigint;
BEGIN
  PERFORM storeledger.require_account_views_version(p_version, 'building', 'SL010');
  EXECUTE format(
    'INSERT INTO storeledger.%I AS v (app_account_token, changes, projected_changes, projection,'
    ' view, stable_from_ms, stable_until_ms, projected_at, list_statuses, list_entitlements,'
    ' list_products, list_storefronts, list_environments, list_next_expiry_ms, list_changed_ms)'
    ' SELECT t, c, c, $1, w::jsonb, f, u, now(), s::integer[], e::text[], p::text[], sf::text[],'
    '   en::text[], nx, coalesce(f, 0)'
    ' FROM unnest($2::text[], $3::bigint[], $4::text[], $5::bigint[], $6::bigint[],'
    '   $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::bigint[])'
    '   AS x(t, c, w, f, u, s, e, p, sf, en, nx)'
    ' ON CONFLICT (app_account_token) DO UPDATE SET changes = excluded.changes,'
    '   projected_changes = excluded.projected_changes, projection = excluded.projection,'
    '   view = excluded.view, stable_from_ms = excluded.stable_from_ms,'
    '   stable_until_ms = excluded.stable_until_ms, projected_at = excluded.projected_at,'
    '   list_statuses = excluded.list_statuses, list_entitlements = excluded.list_entitlements,'
    '   list_products = excluded.list_products, list_storefronts = excluded.list_storefronts,'
    '   list_environments = excluded.list_environments,'
    '   list_next_expiry_ms = excluded.list_next_expiry_ms,'
    '   list_changed_ms = excluded.list_changed_ms',
    'account_views_v' || p_version)
  USING p_projection, p_tokens, p_changes, p_views, p_from_ms, p_until_ms, p_statuses,
    p_entitlements, p_products, p_storefronts, p_environments, p_next_expiry_ms;
  GET DIAGNOSTICS v_count = ROW_COUNT;
  RETURN v_count;
END
$$;
ALTER FUNCTION storeledger.store_rebuilt_account_views(integer, text, text[], bigint[], text[],
  bigint[], bigint[], text[], text[], text[], text[], text[], bigint[]) OWNER TO storeledger_owner;
REVOKE EXECUTE ON FUNCTION storeledger.store_rebuilt_account_views(integer, text, text[],
  bigint[], text[], bigint[], bigint[], text[], text[], text[], text[], text[], bigint[])
  FROM PUBLIC;
GRANT EXECUTE ON FUNCTION storeledger.store_rebuilt_account_views(integer, text, text[],
  bigint[], text[], bigint[], bigint[], text[], text[], text[], text[], text[], bigint[])
  TO storeledger_writer;
