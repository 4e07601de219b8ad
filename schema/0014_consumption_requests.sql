-- Refund requests. Each CONSUMPTION_REQUEST Apple sends opens a stream
-- `consumption:<env>:<notificationUUID>` whose events (ledger.consumption_*.v1) record the
-- answers StoreLedger sent and what became of them. This table indexes those streams for the
-- workers that answer them and for people who look at them: one row per request, its state
-- and when a worker should next look at it. Derived data, kept by a trigger in the appending
-- transaction (so it never disagrees with the log), and rebuilt from the log by
-- storeledger.rebuild_consumption_requests().

CREATE TABLE storeledger.consumption_requests (
  stream_id                text    PRIMARY KEY,
  request_id               text    NOT NULL,
  environment              text    NOT NULL,
  transaction_id           text    NOT NULL,
  original_transaction_id  text    NOT NULL,
  product_id               text,
  -- pending, sending, answered, expired, failed or skipped (ConsumptionRequest.Phase).
  state                    text    NOT NULL,
  requested_at_ms          bigint  NOT NULL,
  deadline_ms              bigint  NOT NULL,
  -- When a worker should look at the request next; null once it is over.
  due_at_ms                bigint,
  answered_at_ms           bigint,
  answered_late            boolean NOT NULL DEFAULT false,
  -- The stream's version the row reflects: a claim appends with exactly this version expected.
  version                  bigint  NOT NULL
);

CREATE INDEX consumption_requests_due ON storeledger.consumption_requests (due_at_ms)
  WHERE due_at_ms IS NOT NULL;
CREATE INDEX consumption_requests_listing
  ON storeledger.consumption_requests (state, requested_at_ms DESC);
CREATE INDEX consumption_requests_transaction
  ON storeledger.consumption_requests (transaction_id);

ALTER TABLE storeledger.consumption_requests OWNER TO storeledger_owner;
GRANT SELECT, INSERT, UPDATE, DELETE ON storeledger.consumption_requests TO storeledger_writer;
GRANT SELECT ON storeledger.consumption_requests TO storeledger_reader;

-- One event's effect on its request's row.
CREATE FUNCTION storeledger.index_consumption_event(
  p_stream_id text, p_version bigint, p_payload jsonb
) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO storeledger.consumption_requests AS r (
    stream_id, request_id, environment, transaction_id, original_transaction_id, product_id,
    state, requested_at_ms, deadline_ms, due_at_ms, version)
  SELECT p_stream_id, o->>'requestId', o->>'environment', o->>'transactionId',
    o->>'originalTransactionId', o->>'productId', p_payload->>'state',
    (o->>'requestedAt')::bigint, (o->>'deadline')::bigint, (p_payload->>'dueAt')::bigint,
    p_version
  FROM (SELECT p_payload->'requested' AS o) opened
  WHERE o IS NOT NULL
  ON CONFLICT (stream_id) DO NOTHING;

  UPDATE storeledger.consumption_requests
  SET state = p_payload->>'state', due_at_ms = (p_payload->>'dueAt')::bigint,
      version = p_version,
      answered_at_ms = coalesce((p_payload->'answered'->>'at')::bigint, answered_at_ms),
      answered_late = answered_late OR coalesce((p_payload->'answered'->>'late')::boolean, false)
  WHERE stream_id = p_stream_id AND version < p_version;
$$;

CREATE FUNCTION storeledger.index_consumption_trigger() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM storeledger.index_consumption_event(NEW.stream_id, NEW.stream_version, NEW.payload);
  RETURN NULL;
END
$$;

CREATE TRIGGER events_index_consumption AFTER INSERT ON storeledger.events
  FOR EACH ROW WHEN (NEW.event_type LIKE 'ledger.consumption\_%')
  EXECUTE FUNCTION storeledger.index_consumption_trigger();

-- The index again from the log (after a restore, or to check it).
CREATE FUNCTION storeledger.rebuild_consumption_requests() RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  event record;
  indexed bigint := 0;
BEGIN
  DELETE FROM storeledger.consumption_requests;
  FOR event IN
    SELECT stream_id, stream_version, payload FROM storeledger.events
    WHERE event_type LIKE 'ledger.consumption\_%' ORDER BY stream_id, stream_version
  LOOP
    PERFORM storeledger.index_consumption_event(
      event.stream_id, event.stream_version, event.payload);
    indexed := indexed + 1;
  END LOOP;
  RETURN indexed;
END
$$;
