-- Making the revenue analytics again starts from empty tables. Deleting the chains emptied
-- them through the foreign keys' cascade, one deletion of the dependent rows per chain
-- (4 s for 205,882 chains); truncating the four tables together takes milliseconds. The
-- writer may delete rows but not truncate, so the owner's function does it.

CREATE FUNCTION storeledger_analytics.clear_revenue() RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
  TRUNCATE storeledger_analytics.chains, storeledger_analytics.periods,
    storeledger_analytics.entries, storeledger_analytics.billing_retry;
$$;
ALTER FUNCTION storeledger_analytics.clear_revenue() OWNER TO storeledger_owner;
REVOKE EXECUTE ON FUNCTION storeledger_analytics.clear_revenue() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION storeledger_analytics.clear_revenue() TO storeledger_writer;
