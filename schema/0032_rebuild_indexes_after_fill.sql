-- A rebuild fills its table first and indexes it once, at the switch: entering each rebuilt
-- row into ten indexes as it is stored (five of them GIN, over the lists' arrays) cost more
-- than storing the rows. The building table has only its primary key (the rebuild's stores
-- answer conflicts on it); `switch_account_views` gives it every other index of the live
-- table, built over the filled rows, before it takes the live table's lock, so appends wait
-- no longer than they did.

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
    'INCLUDING GENERATED INCLUDING CONSTRAINTS INCLUDING STATISTICS)',
    'account_views_v' || v_version);
  EXECUTE format('ALTER TABLE storeledger.%I ADD PRIMARY KEY (app_account_token)',
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

-- The live table's secondary indexes, made on `p_table` when it has none (a table begun
-- before this migration came with them).
CREATE FUNCTION storeledger.index_like_live_account_views(p_table text) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  v_target regclass := format('storeledger.%I', p_table)::regclass;
  v_definition text;
  v_count integer := 0;
BEGIN
  IF EXISTS (SELECT 1 FROM pg_index WHERE indrelid = v_target AND NOT indisprimary) THEN
    RETURN 0;
  END IF;
  FOR v_definition IN
    SELECT pg_get_indexdef(i.indexrelid) FROM pg_index i
    WHERE i.indrelid = 'storeledger.account_views'::regclass AND NOT i.indisprimary
    ORDER BY i.indexrelid
  LOOP
    -- `CREATE [UNIQUE] INDEX name ON storeledger.account_views USING …`: the same index, on
    -- the new table, named by PostgreSQL.
    EXECUTE regexp_replace(v_definition,
      '^CREATE (UNIQUE )?INDEX \S+ ON storeledger\.account_views ',
      'CREATE \1INDEX ON ' || v_target::text || ' ');
    v_count := v_count + 1;
  END LOOP;
  RETURN v_count;
END
$$;
ALTER FUNCTION storeledger.index_like_live_account_views(text) OWNER TO storeledger_owner;
REVOKE EXECUTE ON FUNCTION storeledger.index_like_live_account_views(text) FROM PUBLIC;

CREATE OR REPLACE FUNCTION storeledger.switch_account_views(p_version integer)
RETURNS TABLE (app_account_token text)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  v_new text := 'account_views_v' || p_version;
  v_live integer;
BEGIN
  LOCK TABLE storeledger.account_views_versions IN EXCLUSIVE MODE;
  PERFORM storeledger.require_account_views_version(p_version, 'building', 'SL010');
  -- Indexed over the filled rows before the live table is locked: appends go on meanwhile.
  PERFORM storeledger.index_like_live_account_views(v_new);
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
