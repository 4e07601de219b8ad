-- Which purchase chains each app download (`appTransactionId`, one per Apple Account per app)
-- was seen with, and the account token Apple signed into them when there was one. A chain
-- signed without a token joins the account that holds its appTransactionId: StoreLedger
-- appends the link, as the backend would (`ledger.account_linked.v1`, source
-- "app-transaction-id"). Derived data, written at ingest.

CREATE TABLE storeledger.app_transactions (
  environment              text NOT NULL,
  app_transaction_id       text NOT NULL,
  original_transaction_id  text NOT NULL,
  app_account_token        text,
  PRIMARY KEY (environment, app_transaction_id, original_transaction_id)
);

ALTER TABLE storeledger.app_transactions OWNER TO storeledger_owner;
GRANT SELECT, INSERT, UPDATE ON storeledger.app_transactions TO storeledger_writer;
GRANT SELECT ON storeledger.app_transactions TO storeledger_reader;
