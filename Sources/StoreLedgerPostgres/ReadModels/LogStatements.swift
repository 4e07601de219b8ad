import Foundation
import Logging
import PostgresNIO
import StoreLedgerCore

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

  /// The newest rows of the log, newest first (the feed order's index), with the accounts of
  /// their streams. Erased rows are left out.
  package static func newest(limit: Int, on client: PostgresClient, logger: Logger)
    async throws -> [LogEntrySummary]
  {
    try await client.query(
      """
      SELECT e.recorded_at, e.event_type, e.stream_id,
        CASE WHEN e.event_type LIKE 'appstore.notification.%' THEN
          concat_ws('/', e.payload #>> '{notification,notificationType}',
            e.payload #>> '{notification,subtype}') END,
        coalesce((SELECT array_agg(a.app_account_token ORDER BY a.app_account_token)
          FROM storeledger.account_streams a WHERE a.stream_id = e.stream_id), '{}'),
        e.idempotency_key
      FROM storeledger.events e
      WHERE e.erased_by IS NULL
      ORDER BY e.tx_id DESC, e.seq DESC
      LIMIT \(Int64(limit))
      """, logger: logger
    ) { rows in
      var entries: [LogEntrySummary] = []
      for try await row in rows.decode((Date, String, String, String?, [String], String).self) {
        entries.append(
          LogEntrySummary(
            recordedAt: row.0, eventType: row.1, streamId: row.2, notification: row.3,
            accounts: row.4, key: row.5))
      }
      return entries
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
