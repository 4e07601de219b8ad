import Foundation
import Logging
import PostgresNIO

/// The statements over `storeledger.console_sign_outs` (schema/0029).
enum ConsoleSignOutStatements {
  static func record(digest: String, expiresAt: Date, on client: PostgresClient, logger: Logger)
    async throws
  {
    // Expired rows go with each sign-out: the table holds at most a lifetime's sign-outs.
    try await client.query(
      """
      WITH pruned AS (
        DELETE FROM storeledger.console_sign_outs WHERE expires_at < now()
      )
      INSERT INTO storeledger.console_sign_outs (token_digest, expires_at)
      VALUES (\(digest), \(expiresAt))
      ON CONFLICT (token_digest) DO NOTHING
      """, logger: logger)
  }

  static func isSignedOut(digest: String, on client: PostgresClient, logger: Logger)
    async throws -> Bool
  {
    try await client.query(
      "SELECT 1 FROM storeledger.console_sign_outs WHERE token_digest = \(digest)",
      logger: logger
    ) { rows in
      for try await _ in rows { return true }
      return false
    }
  }
}
