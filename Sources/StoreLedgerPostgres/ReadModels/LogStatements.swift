import Foundation
import Logging
import PostgresNIO

/// Questions about the log as a whole that the ledger's tools ask.
package enum LogStatements {
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
    try await AccountViewStatements.strings(
      """
      SELECT stream_id FROM storeledger.events
      WHERE stream_version = 1 AND event_type = \(eventType)
      """, on: client, logger: logger)
  }

  /// Every purchase-chain stream (`sub:…`).
  package static func purchaseStreams(on client: PostgresClient, logger: Logger) async throws
    -> [String]
  {
    try await AccountViewStatements.strings(
      "SELECT stream_id FROM storeledger.events WHERE stream_version = 1 AND stream_id LIKE 'sub:%'",
      on: client, logger: logger)
  }
}

extension LogStatements {
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

extension LogStatements {
  /// Notifications of `type` in `stream` signed at or after `since` (Unix ms).
  package static func notificationCount(
    in stream: String, type: String, since: Int64, on client: PostgresClient, logger: Logger
  ) async throws -> Int {
    try await client.query(
      """
      SELECT count(*) FROM storeledger.events
      WHERE stream_id = \(stream) AND event_type IN ('appstore.notification.v2', 'appstore.notification.v3')
        AND payload->'notification'->>'notificationType' = \(type)
        AND (payload->'notification'->>'signedDate')::bigint >= \(since)
      """, logger: logger
    ) { rows in
      var count = 0
      for try await value in rows.decode(Int.self) { count = value }
      return count
    }
  }

  /// The counts of the RENEWAL_EXTENSION / SUMMARY notification of mass extension
  /// `requestIdentifier` in `stream`, when the log holds it.
  package static func extensionSummary(
    in stream: String, requestIdentifier: String, on client: PostgresClient, logger: Logger
  ) async throws -> (succeeded: Int64?, failed: Int64?)? {
    try await client.query(
      """
      SELECT (claims->'notification'->'summary'->>'succeededCount')::bigint,
             (claims->'notification'->'summary'->>'failedCount')::bigint
      FROM storeledger.events
      WHERE stream_id = \(stream) AND event_type IN ('appstore.notification.v2', 'appstore.notification.v3')
        AND claims->'notification'->'summary'->>'requestIdentifier' = \(requestIdentifier)
      LIMIT 1
      """, logger: logger
    ) { rows in
      var found: (Int64?, Int64?)?
      for try await row in rows.decode((Int64?, Int64?).self) { found = row }
      return found
    }
  }
}
