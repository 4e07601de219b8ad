import Foundation
import Logging
import PostgresNIO
import StoreLedgerCore

/// Console sign-outs live in `storeledger.console_sign_outs` (schema/0029), on the primary: a
/// session signed out must end at once on every server, never be read from a replica that lags.
public struct PostgresConsoleSignOutStore: ConsoleSignOutStore {
  let database: PostgresLedgerDatabase

  public init(_ database: PostgresLedgerDatabase) {
    self.database = database
  }

  public func recordSignOut(digest: String, expiresAt: Date) async throws(EventStoreError) {
    try await database.primary("recording a console sign-out") { client, logger in
      try await ConsoleSignOutStatements.record(
        digest: digest, expiresAt: expiresAt, on: client, logger: logger)
    }
  }

  public func isSignedOut(digest: String) async throws(EventStoreError) -> Bool {
    try await database.primary("reading console sign-outs") { client, logger in
      try await ConsoleSignOutStatements.isSignedOut(digest: digest, on: client, logger: logger)
    }
  }
}
