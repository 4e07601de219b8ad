-- The support console (issue 24) finds an account by any transactionId its events hold, not
-- only by the originalTransactionId its streams are named after: an index on the transaction
-- id of Apple's events, read from their facts (event types appstore.*.v2 and .v3) or, for rows
-- of .v1, from the claims they hold as their payload.

CREATE FUNCTION storeledger.event_transaction_id(payload jsonb) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(
    payload #>> '{notification,transaction,transactionId}',
    payload #>> '{transaction,transaction,transactionId}',
    payload #>> '{status,transaction,transactionId}',
    payload #>> '{transaction,transactionId}',
    payload #>> '{notification,data,signedTransactionInfo,transactionId}')
$$;
ALTER FUNCTION storeledger.event_transaction_id(jsonb) OWNER TO storeledger_owner;

CREATE INDEX events_transaction_id ON storeledger.events (storeledger.event_transaction_id(payload))
  WHERE event_type LIKE 'appstore.%';
