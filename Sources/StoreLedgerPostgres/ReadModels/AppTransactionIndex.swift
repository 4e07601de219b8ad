import Logging
import PostgresNIO
import StoreLedgerCore

/// The statements of the app-download index (`storeledger.app_transactions`, schema/0015).
package enum AppTransactionIndex {
  /// The accounts holding a download: those a sighting of it named, and those holding a
  /// purchase chain it was seen with.
  package static func accounts(
    holdingDownload appTransactionId: String, environment: String, on client: PostgresClient,
    logger: Logger
  ) async throws -> [String] {
    try await AccountViewStatements.strings(
      """
      SELECT app_account_token FROM storeledger.app_transactions
      WHERE environment = \(environment) AND app_transaction_id = \(appTransactionId)
        AND app_account_token IS NOT NULL
      UNION
      SELECT s.app_account_token FROM storeledger.app_transactions a
      JOIN storeledger.account_streams s
        ON s.stream_id = 'sub:' || a.environment || ':' || a.original_transaction_id
      WHERE a.environment = \(environment) AND a.app_transaction_id = \(appTransactionId)
      """, on: client, logger: logger)
  }

  /// Notes many sightings in one statement, and returns the rows stored before for their
  /// appTransactionIds (what decides who holds each download).
  package static func note(
    _ sightings: [DownloadSighting], on client: PostgresClient, logger: Logger
  ) async throws -> [DownloadSighting] {
    let environments = sightings.map(\.environment)
    let ids = sightings.map(\.appTransactionId)
    let chains = sightings.map(\.chain)
    let tokens = sightings.map { $0.token ?? "" }
    return try await client.query(
      """
      WITH input AS (
        SELECT environment, app_transaction_id, original_transaction_id,
               nullif(app_account_token, '') AS app_account_token
        FROM unnest(\(environments)::text[], \(ids)::text[], \(chains)::text[], \(tokens)::text[])
          AS i(environment, app_transaction_id, original_transaction_id, app_account_token)
      ), noted AS (
        INSERT INTO storeledger.app_transactions AS a
          (environment, app_transaction_id, original_transaction_id, app_account_token)
        SELECT * FROM input
        ON CONFLICT (environment, app_transaction_id, original_transaction_id) DO UPDATE
          SET app_account_token = coalesce(EXCLUDED.app_account_token, a.app_account_token)
      )
      SELECT a.environment, a.app_transaction_id, a.original_transaction_id, a.app_account_token
      FROM storeledger.app_transactions a
      WHERE (a.environment, a.app_transaction_id) IN (
        SELECT DISTINCT environment, app_transaction_id FROM input)
      """, logger: logger
    ) { rows in
      var found: [DownloadSighting] = []
      for try await (environment, id, chain, token) in rows.decode(
        (String, String, String, String?).self)
      {
        found.append(
          DownloadSighting(
            environment: environment, appTransactionId: id, chain: chain, token: token))
      }
      return found
    }
  }
}
