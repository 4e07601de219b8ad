# Samples PostgreSQL's wait events of every active client backend of a cluster every 10 ms,
# for finding what a benchmark's statements wait on (a core, the WAL flush, a lock).
#   wait_sampler_start URL   creates the sampler's table in URL's database and starts sampling
#   wait_sampler_stop URL [CONDITION]
#                            stops it and prints samples per wait and per statement, of the
#                            samples meeting the SQL CONDITION (over wait_samples' columns)
# A backend waiting on ClientRead is waiting for its client (the process under test), not
# working. The samples stay in public.wait_samples of URL's database for further questions.

wait_sampler_start() {
  local url="$1"
  psql "$url" -q -v ON_ERROR_STOP=1 <<'SQL'
CREATE TABLE IF NOT EXISTS public.wait_samples (
  at timestamptz, pid int, state text, wait_type text, wait_event text, query text);
TRUNCATE public.wait_samples;
CREATE OR REPLACE PROCEDURE public.sample_waits() LANGUAGE plpgsql AS $$
DECLARE
  instant timestamptz;
BEGIN
  LOOP
    instant := clock_timestamp();
    INSERT INTO public.wait_samples
    SELECT instant, pid, state, coalesce(wait_event_type, 'CPU'),
           coalesce(wait_event, '-'), left(regexp_replace(query, '\s+', ' ', 'g'), 60)
    FROM pg_stat_activity
    WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() AND state <> 'idle'
      AND application_name <> 'wait_sampler';
    COMMIT;
    PERFORM pg_stat_clear_snapshot();
    EXIT WHEN EXISTS (SELECT 1 FROM pg_stat_activity WHERE application_name = 'wait_sampler_stop');
    PERFORM pg_sleep(0.01);
  END LOOP;
END $$;
SQL
  PGAPPNAME=wait_sampler psql "$url" -q -c "CALL public.sample_waits()" &
  WAIT_SAMPLER_PID=$!
}

wait_sampler_stop() {
  local url="$1" condition="${2:-true}"
  PGAPPNAME=wait_sampler_stop psql "$url" -q -c "SELECT pg_sleep(0.1)" >/dev/null
  wait "$WAIT_SAMPLER_PID" 2>/dev/null || true
  psql "$url" -q -P pager=off <<SQL
CREATE TEMPORARY VIEW chosen AS SELECT * FROM public.wait_samples WHERE $condition;
SELECT count(DISTINCT at) AS instants, count(*) AS samples,
       round(count(*)::numeric / nullif(count(DISTINCT at), 0), 2) AS active_backends
FROM chosen;
SELECT wait_type, wait_event, count(*) AS samples,
       round(100.0 * count(*) / sum(count(*)) OVER (), 1) AS percent
FROM chosen GROUP BY 1, 2 ORDER BY 3 DESC LIMIT 15;
SELECT state, wait_type, wait_event, count(*) AS samples
FROM chosen GROUP BY 1, 2, 3 ORDER BY 4 DESC LIMIT 10;
SELECT query, state, wait_type, wait_event, count(*) AS samples
FROM chosen GROUP BY 1, 2, 3, 4 ORDER BY 5 DESC LIMIT 25;
SQL
}
