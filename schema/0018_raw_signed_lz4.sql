-- Apple's signed originals are the log's largest column: a notification's JWS nests the
-- transaction's and the renewal info's, each carrying the same three-certificate chain, about
-- 19 KB in all. pglz (the default) finds no repeats within its 4 KB window and stores them
-- whole; lz4's 64 KB window finds the repeated chains: 11.7 KB instead of 18.9 KB for Apple's
-- real DID_RENEW (measured, docs/scaling.md). Only new rows are compressed this way; the text,
-- and so every hash, is unchanged. A server built without lz4 keeps pglz.
DO $$
BEGIN
  ALTER TABLE storeledger.events ALTER COLUMN raw_signed SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  RAISE NOTICE 'PostgreSQL was built without lz4: raw_signed stays compressed by pglz';
END
$$;
