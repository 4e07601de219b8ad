-- The app this database serves, as `storeledger migrate` (or the first `serve`) was told:
-- every command reads it, so `storeledger entitlements TOKEN --database-url URL` answers for
-- the right app, with its catalog, without flags; a flag that contradicts it is refused.
-- One row. Root certificates are the base64 DER of the roots given (public certificates); null means
-- Apple's roots.
CREATE TABLE storeledger.app_configuration (
  singleton                            boolean     PRIMARY KEY DEFAULT true CHECK (singleton),
  bundle_id                            text        NOT NULL CHECK (bundle_id <> ''),
  app_apple_id                         bigint,
  environments                         text[]      NOT NULL,
  catalog                              jsonb,
  root_certificates                    text[],
  sandbox_entitles                     boolean     NOT NULL,
  rescinded_consent_ends_entitlements  boolean     NOT NULL,
  recorded_by                          text        NOT NULL,
  recorded_at                          timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE storeledger.app_configuration OWNER TO storeledger_owner;
GRANT SELECT, INSERT ON storeledger.app_configuration TO storeledger_writer;
GRANT SELECT ON storeledger.app_configuration TO storeledger_reader;
