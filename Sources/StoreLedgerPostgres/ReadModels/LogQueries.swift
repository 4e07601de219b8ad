import Foundation
import Logging
import PostgresNIO

/// Questions about the log as a whole that the ledger's tools ask.
package enum LogQueries {
  /// Counts of events, streams and accounts (a full count: seconds on a large log).
  package static func counts(on client: PostgresClient, logger: Logger) async throws
    -> (events: Int, streams: Int, accounts: Int)
  {
    try await client.query(
      """
      SELECT (SELECT count(*) FROM storeledger.events),
        (SELECT count(DISTINCT stream_id) FROM storeledger.events),
        (SELECT count(*) FROM storeledger.account_views)
      """, logger: logger
    ) { rows in
      var counts = (events: 0, streams: 0, accounts: 0)
      for try await (events, streams, accounts) in rows.decode((Int, Int, Int).self) {
        counts = (events, streams, accounts)
      }
      return counts
    }
  }

  /// Every stream whose first event has `eventType`.
  package static func streams(
    startingWith eventType: String, on client: PostgresClient, logger: Logger
  )
    async throws -> [String]
  {
    try await AccountViews.strings(
      """
      SELECT stream_id FROM storeledger.events
      WHERE stream_version = 1 AND event_type = \(eventType)
      """, on: client, logger: logger)
  }

  /// Every purchase-chain stream (`sub:…`).
  package static func purchaseStreams(on client: PostgresClient, logger: Logger) async throws
    -> [String]
  {
    try await AccountViews.strings(
      "SELECT stream_id FROM storeledger.events WHERE stream_version = 1 AND stream_id LIKE 'sub:%'",
      on: client, logger: logger)
  }
}

extension LogQueries {
  /// Where the event with `key` is stored, and when; nil when the log has none.
  package static func event(withKey key: String, on client: PostgresClient, logger: Logger)
    async throws -> (streamId: String, streamVersion: Int64, recordedAt: Date)?
  {
    try await client.query(
      """
      SELECT stream_id, stream_version, recorded_at FROM storeledger.events
      WHERE idempotency_key = \(key)
      """, logger: logger
    ) { rows in
      var found: (String, Int64, Date)?
      for try await row in rows.decode((String, Int64, Date).self) { found = row }
      return found
    }
  }
}
