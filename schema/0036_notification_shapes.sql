-- What a notification is: its type (as the ledger's facts name it), the names of the object
-- members of Apple's claims (the body objects) and whether it named no app. The log's
-- notifications have a handful of distinct shapes, so the list of notifications a release does
-- not understand reads the index's distinct shapes, keeps those the release does not know and
-- fetches only their notifications, never every notification's payload. A member that is not
-- an object (or claims without a notification) gives an empty list of bodies, never an error:
-- an index expression that failed would refuse the append.
CREATE FUNCTION storeledger.notification_shape(p_stream_id text, p_payload jsonb, p_claims jsonb)
RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN jsonb_build_array(
  p_payload->'notification'->>'notificationType',
  -- jsonb keeps an object's keys in one order, so equal sets of bodies give equal arrays.
  CASE WHEN jsonb_typeof(p_claims->'notification') = 'object' THEN
    jsonb_path_query_array(p_claims->'notification',
      '$.keyvalue() ? (@.value.type() == "object").key', '{}', true)
  ELSE '[]'::jsonb END,
  left(p_stream_id, 9) = 'unrouted:');

CREATE INDEX events_notification_shape
  ON storeledger.events (storeledger.notification_shape(stream_id, payload, claims))
  WHERE event_type = 'appstore.notification.v3';
