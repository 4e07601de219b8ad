-- An erasure locks every stream named after the accounts it erases (`offers:<token>`,
-- `consent:<token>`) before it reads them, as it locks the accounts' purchase streams: an
-- append racing it then waits for it, and no stream is left starting past version 1.
-- The function is otherwise the one of schema/0023; CREATE OR REPLACE keeps its owner and
-- its grants.

CREATE OR REPLACE FUNCTION storeledger.erase_accounts(
  p_tokens text[], p_erasure_id uuid, p_requested_by text, p_reason text, p_later text
) RETURNS TABLE (
  outcome text, erasure_id uuid, erased_rows bigint, erased_streams bigint,
  rows_digest bytea, erased_at timestamptz
)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
DECLARE
  v_tokens text[];
  v_known text[];
  v_unknown bigint;
  v_streams text[];
  v_ids text[];
  v_patterns text[];
  v_mentions uuid[];
  v_rows uuid[];
  v_whole text[];
  v_stream text;
  v_renamed text;
  v_shared_streams bigint;
  v_shared_accounts bigint;
  v_count bigint;
  v_stream_count bigint;
  v_digest bytea;
  v_previous uuid;
  v_version integer;
  v_at timestamptz := statement_timestamp();
BEGIN
  v_tokens := ARRAY(SELECT DISTINCT lower(t) FROM unnest(p_tokens) AS t ORDER BY 1);
  IF cardinality(v_tokens) = 0 OR EXISTS (SELECT 1 FROM unnest(v_tokens) t WHERE t = '')
     OR coalesce(btrim(p_reason), '') = '' OR coalesce(btrim(p_requested_by), '') = ''
     OR p_later IS NULL OR p_later NOT IN ('quarantine', 'attach') OR p_erasure_id IS NULL THEN
    RAISE EXCEPTION 'an erasure needs tokens, a reason, who asked and a rule for later data'
      USING ERRCODE = 'SL022';
  END IF;
  -- One erasure at a time; the accounts' rows in the views are locked before their streams,
  -- so an append naming them waits for the erasure to finish.
  PERFORM pg_advisory_xact_lock(hashtextextended('storeledger.erase_accounts', 0));
  PERFORM 1 FROM storeledger.account_views v
  WHERE v.app_account_token = ANY(v_tokens) ORDER BY v.app_account_token FOR UPDATE;

  v_streams := ARRAY(
    SELECT s FROM (
      SELECT a.stream_id AS s FROM storeledger.account_streams a
      WHERE a.app_account_token = ANY(v_tokens)
      UNION
      SELECT DISTINCT e.stream_id FROM storeledger.events e
      WHERE e.stream_id = ANY(ARRAY(SELECT 'consent:' || t FROM unnest(v_tokens) t))
    ) AS streams ORDER BY s);
  -- The streams named after the accounts are locked too, whether they hold rows yet or not:
  -- an offer signed for an account while it is erased appends to `offers:<token>`, and an
  -- append that lands between this erasure's read and its renaming of the stream would leave
  -- the stream starting at a version after 1, which the audit could never accept. One lock
  -- order for everything: sorted by name.
  PERFORM pg_advisory_xact_lock(hashtextextended(s, 0))
  FROM (
    SELECT unnest(v_streams) AS s
    UNION
    SELECT 'offers:' || t FROM unnest(v_tokens) AS t
    UNION
    SELECT 'consent:' || t FROM unnest(v_tokens) AS t
  ) AS locked ORDER BY s;

  -- Tokens the log holds something of; a token it holds nothing of was erased before (then
  -- there is nothing to do) or is unknown.
  v_known := ARRAY(
    SELECT t FROM unnest(v_tokens) AS t
    WHERE EXISTS (SELECT 1 FROM storeledger.account_streams a WHERE a.app_account_token = t)
       OR EXISTS (SELECT 1 FROM storeledger.account_views v WHERE v.app_account_token = t)
       OR EXISTS (SELECT 1 FROM storeledger.events e WHERE e.stream_id = 'consent:' || t));
  SELECT count(*) INTO v_unknown FROM unnest(v_tokens) AS t
  WHERE t <> ALL(v_known) AND NOT EXISTS (
    SELECT 1 FROM storeledger.erased_identifiers r
    WHERE r.keyed_hash = storeledger.erasure_keyed_hash('account', t));
  IF v_unknown > 0 THEN
    RAISE EXCEPTION 'no account with this appAccountToken is in the log'
      USING ERRCODE = 'SL020', DETAIL = v_unknown::text;
  END IF;
  IF cardinality(v_known) = 0 THEN
    SELECT r.erasure_id INTO v_previous FROM storeledger.erased_identifiers r
    WHERE r.keyed_hash = storeledger.erasure_keyed_hash('account', v_tokens[1]);
    RETURN QUERY SELECT 'already_erased'::text, v_previous, 0::bigint, 0::bigint,
      NULL::bytea, NULL::timestamptz;
    RETURN;
  END IF;

  -- Purchases the accounts share with others are theirs too: refused, nothing changed.
  SELECT count(DISTINCT a.stream_id), count(DISTINCT a.app_account_token)
  INTO v_shared_streams, v_shared_accounts
  FROM storeledger.account_streams a
  WHERE a.stream_id = ANY(v_streams) AND a.app_account_token <> ALL(v_tokens);
  IF v_shared_streams > 0 THEN
    RAISE EXCEPTION 'purchases of this account are also held by other accounts'
      USING ERRCODE = 'SL021', DETAIL = v_shared_streams || ' ' || v_shared_accounts;
  END IF;

  -- The identifiers the accounts' rows hold, and the tokens themselves.
  v_ids := ARRAY(
    SELECT DISTINCT id FROM (
      SELECT unnest(v_tokens) AS id
      UNION ALL
      SELECT found.value #>> '{}' FROM storeledger.events e,
        LATERAL (
          SELECT d.doc FROM (VALUES (e.payload), (e.claims)) AS d(doc) WHERE d.doc IS NOT NULL
        ) AS docs,
        LATERAL (
          SELECT jsonb_path_query(docs.doc, '$.**.transactionId')
          UNION ALL SELECT jsonb_path_query(docs.doc, '$.**.originalTransactionId')
          UNION ALL SELECT jsonb_path_query(docs.doc, '$.**.appTransactionId')
          UNION ALL SELECT jsonb_path_query(docs.doc, '$.**.webOrderLineItemId')
          UNION ALL SELECT jsonb_path_query(docs.doc, '$.**.appAccountToken')
        ) AS found(value)
      WHERE e.stream_id = ANY(v_streams) AND jsonb_typeof(found.value) IN ('string', 'number')
    ) AS ids
    WHERE id IS NOT NULL AND id <> '' ORDER BY id);

  -- Rows of other streams that name them (a lookup, a record of an action, unrouted
  -- evidence): theirs too, unless another account holds the stream.
  -- One pass: each row's text made once and read once for any identifier as a JSON string
  -- (an alternation of up to 200 identifiers, every character but letters and digits
  -- escaped; an account with more gets one more alternation a 200), its stream name's and
  -- key's parts compared as one array.
  v_patterns := ARRAY(
    SELECT '"(' || string_agg(regexp_replace(id, '([^A-Za-z0-9])', '\\\1', 'g'), '|') || ')"'
    FROM (SELECT id, (row_number() OVER (ORDER BY id) - 1) / 200 AS part
          FROM unnest(v_ids) AS id) AS numbered
    GROUP BY part ORDER BY part);
  v_mentions := ARRAY(
    SELECT e.event_id FROM storeledger.events e
    CROSS JOIN LATERAL (
      SELECT e.payload::text || coalesce(e.claims::text, '') || e.metadata::text AS body
    ) AS t
    WHERE e.erased_by IS NULL AND e.stream_id <> ALL(v_streams)
      AND (string_to_array(translate(e.stream_id, ',', ':'), ':') && v_ids
        OR string_to_array(translate(e.idempotency_key, ',', ':'), ':') && v_ids
        OR EXISTS (SELECT 1 FROM unnest(v_patterns) AS p WHERE t.body ~ p)));
  SELECT count(DISTINCT a.stream_id), count(DISTINCT a.app_account_token)
  INTO v_shared_streams, v_shared_accounts
  FROM storeledger.account_streams a
  WHERE a.stream_id IN (SELECT e.stream_id FROM storeledger.events e
                        WHERE e.event_id = ANY(v_mentions));
  IF v_shared_streams > 0 THEN
    RAISE EXCEPTION 'rows of other accounts name this account or its purchases'
      USING ERRCODE = 'SL021', DETAIL = v_shared_streams || ' ' || v_shared_accounts;
  END IF;

  v_rows := ARRAY(
    SELECT e.event_id FROM storeledger.events e
    WHERE e.stream_id = ANY(v_streams) AND e.erased_by IS NULL
    UNION SELECT unnest(v_mentions));
  SELECT count(*), count(DISTINCT e.stream_id),
         sha256(coalesce(string_agg(e.hash, ''::bytea ORDER BY e.tx_id, e.seq), ''::bytea))
  INTO v_count, v_stream_count, v_digest
  FROM storeledger.events e WHERE e.event_id = ANY(v_rows);
  -- Streams erased whole are renamed (their names hold the identifiers); the others keep
  -- their names, as does a stream an earlier erasure left partly erased (renaming it would
  -- leave its versions starting past 1).
  v_whole := ARRAY(
    SELECT DISTINCT e.stream_id FROM storeledger.events e
    WHERE e.event_id = ANY(v_rows)
      AND NOT EXISTS (
        SELECT 1 FROM storeledger.events k
        WHERE k.stream_id = e.stream_id
          AND (k.erased_by IS NOT NULL OR k.event_id <> ALL(v_rows))));

  -- Each row gets a random event id, and its key names that id.
  FOREACH v_stream IN ARRAY v_whole LOOP
    v_renamed := 'erased:' || gen_random_uuid()::text;
    UPDATE storeledger.events e
    SET payload = jsonb_build_object('erased', p_erasure_id::text),
        raw_signed = NULL, claims = NULL, metadata = '{}'::jsonb,
        event_id = fresh.id, idempotency_key = 'erased:' || fresh.id::text,
        stream_id = v_renamed, erased_by = p_erasure_id
    FROM (SELECT k.event_id AS old_id, gen_random_uuid() AS id
          FROM storeledger.events k WHERE k.stream_id = v_stream) AS fresh
    WHERE e.stream_id = v_stream AND e.event_id = fresh.old_id;
  END LOOP;
  UPDATE storeledger.events e
  SET payload = jsonb_build_object('erased', p_erasure_id::text),
      raw_signed = NULL, claims = NULL, metadata = '{}'::jsonb,
      event_id = fresh.id, idempotency_key = 'erased:' || fresh.id::text,
      erased_by = p_erasure_id
  FROM (SELECT old_id, gen_random_uuid() AS id FROM unnest(v_rows) AS old_id) AS fresh
  WHERE e.event_id = fresh.old_id AND e.erased_by IS NULL;

  -- Derived data: gone with the rows it was made from.
  DELETE FROM storeledger.account_streams a
  WHERE a.app_account_token = ANY(v_tokens) OR a.stream_id = ANY(v_whole);
  DELETE FROM storeledger.account_views v WHERE v.app_account_token = ANY(v_tokens);
  FOR v_version IN
    SELECT version FROM storeledger.account_views_versions
    WHERE state IN ('building', 'retired')
  LOOP
    EXECUTE format('DELETE FROM storeledger.%I WHERE app_account_token = ANY($1)',
      'account_views_v' || v_version) USING v_tokens;
  END LOOP;
  DELETE FROM storeledger.change_deliveries d WHERE d.app_account_token = ANY(v_tokens);
  DELETE FROM storeledger.changes c WHERE c.app_account_token = ANY(v_tokens);
  DELETE FROM storeledger.change_derivations d WHERE d.app_account_token = ANY(v_tokens);
  DELETE FROM storeledger.consumption_requests r
  WHERE r.stream_id = ANY(v_whole) OR r.transaction_id = ANY(v_ids)
     OR r.original_transaction_id = ANY(v_ids);
  DELETE FROM storeledger.app_transactions t
  WHERE t.app_account_token = ANY(v_tokens) OR t.original_transaction_id = ANY(v_ids)
     OR t.app_transaction_id = ANY(v_ids);
  -- A chain's periods and entries go with it (ON DELETE CASCADE).
  DELETE FROM storeledger_analytics.chains c
  WHERE c.chain = ANY(v_whole) OR c.original_transaction_id = ANY(v_ids);

  INSERT INTO storeledger.erased_identifiers AS r (keyed_hash, kind, erasure_id, later)
  SELECT storeledger.erasure_keyed_hash(k.kind, k.id), k.kind, p_erasure_id, p_later
  FROM (SELECT id, CASE WHEN id = ANY(v_tokens) THEN 'account' ELSE 'identifier' END AS kind
        FROM unnest(v_ids) AS id) AS k
  ON CONFLICT (keyed_hash) DO UPDATE SET erasure_id = excluded.erasure_id, later = excluded.later;

  -- The erasure itself, in the log: who asked, why, and what it covers; no personal data.
  PERFORM * FROM storeledger.append_events(
    'erasures', 'any', 0, ARRAY[p_erasure_id], ARRAY['erasure:' || p_erasure_id::text],
    ARRAY['ledger.account_erased.v1'], ARRAY[''], ARRAY[-1::bigint],
    ARRAY[jsonb_build_object(
      'erasureId', p_erasure_id::text, 'requestedBy', p_requested_by, 'reason', p_reason,
      'later', p_later, 'accounts', cardinality(v_tokens), 'rows', v_count,
      'streams', v_stream_count, 'rowsDigest', encode(v_digest, 'hex'),
      'erasedAt', (extract(epoch FROM v_at) * 1000)::bigint)],
    ARRAY[''], ARRAY['{"source":"erasure"}'::jsonb], ARRAY['']);

  RETURN QUERY SELECT 'erased'::text, p_erasure_id, v_count, v_stream_count, v_digest, v_at;
END
$$;
