import Foundation
import Logging
import PostgresNIO
import StoreLedgerCore

/// Aliases live in `storeledger.account_aliases` (schema/0026).
public struct PostgresAccountAliasStore: AccountAliasStore {
  let database: PostgresLedgerDatabase

  public init(_ database: PostgresLedgerDatabase) {
    self.database = database
  }

  public func setAlias(_ alias: String, for token: String, by: String)
    async throws(EventStoreError) -> Bool
  {
    try await database.primary("setting an account's alias") { client, logger in
      do {
        return try await client.query(
          """
          INSERT INTO storeledger.account_aliases (alias, app_account_token, set_by)
          SELECT \(alias), \(token), \(by)
          WHERE NOT EXISTS (
            SELECT 1 FROM storeledger.account_aliases
            WHERE alias = \(alias) AND app_account_token <> \(token))
          ON CONFLICT (app_account_token) DO UPDATE
          SET alias = excluded.alias, set_by = excluded.set_by, set_at = now()
          RETURNING 1
          """, logger: logger
        ) { rows in
          for try await _ in rows { return true }
          return false
        }
      } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
        // Another account took the alias at the same moment.
        return false
      }
    }
  }

  public func removeAlias(of token: String) async throws(EventStoreError) -> String? {
    try await database.primary("removing an account's alias") { client, logger in
      try await client.query(
        """
        DELETE FROM storeledger.account_aliases WHERE app_account_token = \(token)
        RETURNING alias
        """, logger: logger
      ) { rows in
        for try await alias in rows.decode(String.self) { return alias }
        return nil
      }
    }
  }

  public func alias(of token: String) async throws(EventStoreError) -> String? {
    try await database.primary("reading an account's alias") { client, logger in
      try await client.query(
        "SELECT alias FROM storeledger.account_aliases WHERE app_account_token = \(token)",
        logger: logger
      ) { rows in
        for try await alias in rows.decode(String.self) { return alias }
        return nil
      }
    }
  }
}
