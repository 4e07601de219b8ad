-- Versioned rebuilds of the per-account read model.
--
-- A rebuild projects every account from the log into a fresh table, account_views_v<N>, while
-- the live one keeps answering; then one transaction switches: the live table is renamed
-- account_views_v<M> (kept for comparison until dropped) and the new one becomes
-- storeledger.account_views. Every statement names the live table by that name, so the
-- appends' function and prepared queries are planned again against the new table.
--
-- The functions run as the owner (they create, rename and drop tables) and take only a version
-- number; table names are composed here, never by the caller.

CREATE TABLE storeledger.account_views_versions (
  version      integer     PRIMARY KEY CHECK (version > 0),
  -- building: being filled; live: storeledger.account_views; retired: kept as
  -- account_views_v<version>; dropped or abandoned: its table is gone.
  state        text        NOT NULL
    CHECK (state IN ('building', 'live', 'retired', 'dropped', 'abandoned')),
  projection   text,
  accounts     bigint,
  created_at   timestamptz NOT NULL DEFAULT now(),
  switched_at  timestamptz,
  retired_at   timestamptz
);
CREATE UNIQUE INDEX account_views_versions_one_live ON storeledger.account_views_versions (state)
  WHERE state = 'live';

ALTER TABLE storeledger.account_views_versions OWNER TO storeledger_owner;
GRANT SELECT ON storeledger.account_views_versions TO storeledger_writer, storeledger_reader;

INSERT INTO storeledger.account_views_versions (version, state, switched_at)
VALUES (1, 'live', now());

-- Refuses a version that is not in p_state (SQLSTATE p_code), so callers get a clear error.
CREATE FUNCTION storeledger.require_account_views_version(
  p_version integer, p_state text, p_code text
) RETURNS void
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  PERFORM 1 FROM storeledger.account_views_versions
  WHERE version = p_version AND state = p_state;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'account views version % is not %', p_version,
      CASE p_state WHEN 'building' THEN 'being built' ELSE p_state END
      USING ERRCODE = p_code;
  END IF;
END
$$;
ALTER FUNCTION storeledger.require_account_views_version(integer, text, text)
  OWNER TO storeledger_owner;

-- Starts a rebuild: abandons (drops) any unfinished one, creates an empty table shaped like
-- the live one, and returns its version.
CREATE FUNCTION storeledger.begin_account_views_rebuild() RETURNS integer
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
    'INCLUDING CONSTRAINTS INCLUDING INDEXES)', 'account_views_v' || v_version);
  EXECUTE format('GRANT SELECT, INSERT, UPDATE ON storeledger.%I TO storeledger_writer',
    'account_views_v' || v_version);
  EXECUTE format('GRANT SELECT ON storeledger.%I TO storeledger_reader',
    'account_views_v' || v_version);
  INSERT INTO storeledger.account_views_versions (version, state) VALUES (v_version, 'building');
  RETURN v_version;
END
$$;

-- Stores rebuilt views into the building table of p_version (one row per account).
CREATE FUNCTION storeledger.store_rebuilt_account_views(
  p_version integer, p_projection text, p_tokens text[], p_changes bigint[], p_views text[],
  p_from_ms bigint[], p_until_ms bigint[]
) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  v_count bigint;
BEGIN
  PERFORM storeledger.require_account_views_version(p_version, 'building', 'SL010');
  EXECUTE format(
    'INSERT INTO storeledger.%I AS v (app_account_token, changes, projected_changes, projection,'
    ' view, stable_from_ms, stable_until_ms, projected_at)'
    ' SELECT t, c, c, $1, w::jsonb, f, u, now()'
    ' FROM unnest($2::text[], $3::bigint[], $4::text[], $5::bigint[], $6::bigint[])'
    '   AS x(t, c, w, f, u)'
    ' ON CONFLICT (app_account_token) DO UPDATE SET changes = excluded.changes,'
    '   projected_changes = excluded.projected_changes, projection = excluded.projection,'
    '   view = excluded.view, stable_from_ms = excluded.stable_from_ms,'
    '   stable_until_ms = excluded.stable_until_ms, projected_at = excluded.projected_at',
    'account_views_v' || p_version)
  USING p_projection, p_tokens, p_changes, p_views, p_from_ms, p_until_ms;
  GET DIAGNOSTICS v_count = ROW_COUNT;
  RETURN v_count;
END
$$;

-- Makes version p_version live in one transaction. Appends wait on the live table's lock for
-- its duration; queries keep reading. Every account's `changes` is carried over from the live
-- table, so an account appended to while the rebuild ran is not current in the new table
-- (readers fold it themselves) until projected again: the function returns those accounts.
CREATE FUNCTION storeledger.switch_account_views(p_version integer)
RETURNS TABLE (app_account_token text)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  v_new text := 'account_views_v' || p_version;
  v_live integer;
BEGIN
  LOCK TABLE storeledger.account_views_versions IN EXCLUSIVE MODE;
  PERFORM storeledger.require_account_views_version(p_version, 'building', 'SL010');
  SELECT version INTO v_live FROM storeledger.account_views_versions WHERE state = 'live';
  LOCK TABLE storeledger.account_views IN EXCLUSIVE MODE;
  EXECUTE format(
    'INSERT INTO storeledger.%I AS n (app_account_token, changes)'
    ' SELECT l.app_account_token, l.changes FROM storeledger.account_views l'
    ' ON CONFLICT (app_account_token) DO UPDATE SET changes = excluded.changes'
    ' WHERE n.changes <> excluded.changes', v_new);
  EXECUTE format('ALTER TABLE storeledger.account_views RENAME TO %I', 'account_views_v' || v_live);
  EXECUTE format('ALTER TABLE storeledger.%I RENAME TO account_views', v_new);
  UPDATE storeledger.account_views_versions SET state = 'retired', retired_at = now()
  WHERE version = v_live;
  UPDATE storeledger.account_views_versions
  SET state = 'live', switched_at = now(),
    accounts = (SELECT count(*) FROM storeledger.account_views),
    projection = (SELECT min(v.projection) FROM storeledger.account_views v)
  WHERE version = p_version;
  RETURN QUERY
    SELECT v.app_account_token FROM storeledger.account_views v
    WHERE v.projected_changes <> v.changes ORDER BY 1;
END
$$;

-- Drops a retired version's table.
CREATE FUNCTION storeledger.drop_account_views_version(p_version integer) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  PERFORM storeledger.require_account_views_version(p_version, 'retired', 'SL011');
  EXECUTE format('DROP TABLE IF EXISTS storeledger.%I', 'account_views_v' || p_version);
  UPDATE storeledger.account_views_versions SET state = 'dropped' WHERE version = p_version;
END
$$;

-- Accounts whose view differs between the live table and a retired version's (the time each
-- was projected aside), for comparing a rebuild with what it replaced.
CREATE FUNCTION storeledger.account_views_differences(p_version integer)
RETURNS TABLE (app_account_token text, live jsonb, retired jsonb)
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  PERFORM storeledger.require_account_views_version(p_version, 'retired', 'SL011');
  RETURN QUERY EXECUTE format(
    'SELECT coalesce(l.app_account_token, r.app_account_token), l.view, r.view'
    ' FROM storeledger.account_views l FULL JOIN storeledger.%I r'
    '   ON r.app_account_token = l.app_account_token'
    ' WHERE l.view IS DISTINCT FROM r.view ORDER BY 1', 'account_views_v' || p_version);
END
$$;
ALTER FUNCTION storeledger.account_views_differences(integer) OWNER TO storeledger_owner;

ALTER FUNCTION storeledger.begin_account_views_rebuild() OWNER TO storeledger_owner;
ALTER FUNCTION storeledger.store_rebuilt_account_views(integer, text, text[], bigint[], text[],
  bigint[], bigint[]) OWNER TO storeledger_owner;
ALTER FUNCTION storeledger.switch_account_views(integer) OWNER TO storeledger_owner;
ALTER FUNCTION storeledger.drop_account_views_version(integer) OWNER TO storeledger_owner;
REVOKE EXECUTE ON FUNCTION storeledger.begin_account_views_rebuild(),
  storeledger.store_rebuilt_account_views(integer, text, text[], bigint[], text[], bigint[],
    bigint[]),
  storeledger.switch_account_views(integer), storeledger.drop_account_views_version(integer)
  FROM PUBLIC;
GRANT EXECUTE ON FUNCTION storeledger.begin_account_views_rebuild(),
  storeledger.store_rebuilt_account_views(integer, text, text[], bigint[], text[], bigint[],
    bigint[]),
  storeledger.switch_account_views(integer), storeledger.drop_account_views_version(integer)
  TO storeledger_writer;
