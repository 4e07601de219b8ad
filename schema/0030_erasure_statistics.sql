-- After an erasure, the planner's statistics (`pg_stats`: most common values, histogram
-- bounds) may still quote the erased tokens and identifiers until the next ANALYZE, which
-- autovacuum runs only once enough rows changed. `analyze_after_erasure` samples again
-- every table of StoreLedger's schemas within the erasure's statement: rows the erasure
-- deleted or rewrote are not sampled (ANALYZE skips versions its own transaction deleted),
-- so the statistics it leaves quote only what is still there. It is a no-op unless the
-- erasure erased something.

CREATE OR REPLACE FUNCTION storeledger.analyze_after_erasure(p_outcome text)
RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
DECLARE
  v_table regclass;
  v_count bigint := 0;
BEGIN
  IF p_outcome IS DISTINCT FROM 'erased' THEN
    RETURN 0;
  END IF;
  FOR v_table IN
    SELECT c.oid::regclass FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname IN ('storeledger', 'storeledger_analytics') AND c.relkind IN ('r', 'p')
    ORDER BY c.oid
  LOOP
    EXECUTE format('ANALYZE %s', v_table);
    v_count := v_count + 1;
  END LOOP;
  RETURN v_count;
END
$$;

REVOKE ALL ON FUNCTION storeledger.analyze_after_erasure(text) FROM PUBLIC;
-- Whoever may erase may refresh the statistics after it: the server's role once granted
-- `erase_accounts`, as the owner always can.
GRANT EXECUTE ON FUNCTION storeledger.analyze_after_erasure(text) TO storeledger_writer;
