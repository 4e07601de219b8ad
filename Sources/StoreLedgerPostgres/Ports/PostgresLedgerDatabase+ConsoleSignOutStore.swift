import Foundation
import Logging
import PostgresNIO
import StoreLedgerCore

/// Console sign-outs live in `storeledger.console_sign_outs` (schema/0029), on the primary: a
/// session signed out must end at once on every server, never be read from a replica that lags.
extension PostgresLedgerDatabase: ConsoleSignOutStore {
  public func recordSignOut(digest: String, expiresAt: Date) async throws(EventStoreError) {
    try await primary("recording a console sign-out") { client, logger in
      try await ConsoleSignOutStatements.record(
        digest: digest, expiresAt: expiresAt, on: client, logger: logger)
    }
  }

  public func isSignedOut(digest: String) async throws(EventStoreError) -> Bool {
    try await primary("reading console sign-outs") { client, logger in
      try await ConsoleSignOutStatements.isSignedOut(digest: digest, on: client, logger: logger)
    }
  }
}
