-- The original JWS is base64url text, which pglz barely compresses (about a quarter) at a
-- high CPU price: compressing it was 4 % of the machine's time under webhook load. Stored out
-- of line, uncompressed. Existing rows keep their form; only new rows are affected.

ALTER TABLE storeledger.events ALTER COLUMN raw_signed SET STORAGE EXTERNAL;
