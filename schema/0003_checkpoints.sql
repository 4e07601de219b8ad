-- Where each feed consumer (projector) has got to, moved by compare-and-swap.

CREATE TABLE storeledger.checkpoints (
  name        text        PRIMARY KEY CHECK (name <> ''),
  tx_id       xid8        NOT NULL,
  seq         bigint      NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE storeledger.checkpoints OWNER TO storeledger_owner;
GRANT SELECT, INSERT, UPDATE ON storeledger.checkpoints TO storeledger_writer;
GRANT SELECT ON storeledger.checkpoints TO storeledger_reader;
