import Foundation
import Logging
import PostgresNIO
import StoreLedgerCore

/// The events the account index (`storeledger.account_streams`, written with each append)
/// points to.
package enum AccountEvents {
  package static func read(
    _ token: String, environment: String? = nil, on client: PostgresClient, logger: Logger
  ) async throws -> [LedgerEvent] {
    try await client.query(query(token, environment: environment), logger: logger, reading: decode)
  }

  package static func read(_ token: String, on connection: PostgresConnection, logger: Logger)
    async throws -> [LedgerEvent]
  {
    try await connection.query(query(token), logger: logger, reading: decode)
  }

  package static func streams(of token: String, on client: PostgresClient, logger: Logger)
    async throws
    -> [String]
  {
    try await client.query(
      """
      SELECT stream_id FROM storeledger.account_streams
      WHERE app_account_token = \(token) ORDER BY stream_id
      """, logger: logger
    ) { rows in
      var streams: [String] = []
      for try await stream in rows.decode(String.self) { streams.append(stream) }
      return streams
    }
  }

  /// One index scan per stream of the account. Written as a LATERAL subquery with its own
  /// ORDER BY (which PostgreSQL does not flatten into a join): as a plain join, a planner
  /// without fresh statistics chose a hash join over a scan of the whole log for every query.
  private static func query(_ token: String, environment: String? = nil) -> PostgresQuery {
    guard let environment else {
      return """
        SELECT e.event_type, e.payload::text, e.recorded_at, e.idempotency_key
        FROM storeledger.account_streams a
        CROSS JOIN LATERAL (
          SELECT event_type, payload, recorded_at, idempotency_key, stream_version
          FROM storeledger.events WHERE stream_id = a.stream_id AND erased_by IS NULL
          ORDER BY stream_version
        ) e
        WHERE a.app_account_token = \(token)
        ORDER BY a.stream_id, e.stream_version
        """
    }
    return """
      SELECT e.event_type, e.payload::text, e.recorded_at, e.idempotency_key
      FROM storeledger.account_streams a
      CROSS JOIN LATERAL (
        SELECT event_type, payload, recorded_at, idempotency_key, stream_version
        FROM storeledger.events
        WHERE stream_id = a.stream_id AND erased_by IS NULL
          AND (environment IS NULL OR environment = \(environment))
        ORDER BY stream_version
      ) e
      WHERE a.app_account_token = \(token)
      ORDER BY a.stream_id, e.stream_version
      """
  }

  private static func decode(_ rows: StatementRows) async throws -> [LedgerEvent] {
    var events: [LedgerEvent] = []
    for try await (type, payload, recordedAt, key) in rows.decode(
      (String, String, Date, String).self)
    where !ConsumptionEvent.eventTypes.contains(type) {
      // A refund request's events sit in the account's index for its changes, not its fold.
      events.append(
        LedgerEvent(
          try EventCodec.body(eventType: type, payload: payload.utf8),
          recordedAt: Timestamp(recordedAt), key: key))
    }
    return events
  }
}
