import Logging
import PostgresNIO
import StoreLedgerCore

/// The statements of the refund-request index (`storeledger.consumption_requests`,
/// schema/0014), which a trigger keeps in step with the requests' streams.
package enum ConsumptionRequestIndex {
  /// One row of the index.
  package struct Row: Sendable, Hashable {
    package var streamId: String
    package var requestId: String
    package var environment: String
    package var transactionId: String
    package var originalTransactionId: String
    package var productId: String?
    package var state: String
    package var requestedAt: Int64
    package var deadline: Int64
    package var dueAt: Int64?
    package var answeredAt: Int64?
    package var answeredLate: Bool
    package var version: Int64
  }

  private static let columns = """
    stream_id, request_id, environment, transaction_id, original_transaction_id, product_id,
    state, requested_at_ms, deadline_ms, due_at_ms, answered_at_ms, answered_late, version
    """

  /// Open requests a worker should look at by `now` (Unix ms), the nearest deadline first.
  package static func due(now: Int64, limit: Int, on client: PostgresClient, logger: Logger)
    async throws -> [Row]
  {
    try await rows(
      """
      SELECT \(unescaped: columns) FROM storeledger.consumption_requests
      WHERE due_at_ms <= \(now) ORDER BY deadline_ms LIMIT \(limit)
      """, on: client, logger: logger)
  }

  /// Requests in `states` (all when empty), newest first, before `beforeRequestedAt`.
  package static func list(
    states: [String], limit: Int, on client: PostgresClient, logger: Logger
  ) async throws -> [Row] {
    if states.isEmpty {
      return try await rows(
        """
        SELECT \(unescaped: columns) FROM storeledger.consumption_requests
        ORDER BY requested_at_ms DESC, stream_id LIMIT \(limit)
        """, on: client, logger: logger)
    }
    return try await rows(
      """
      SELECT \(unescaped: columns) FROM storeledger.consumption_requests
      WHERE state = ANY(\(states)::text[])
      ORDER BY requested_at_ms DESC, stream_id LIMIT \(limit)
      """, on: client, logger: logger)
  }

  /// The request with `requestId` (the notification's UUID, any case), or those of a
  /// transaction.
  package static func find(_ id: String, on client: PostgresClient, logger: Logger)
    async throws -> [Row]
  {
    try await rows(
      """
      SELECT \(unescaped: columns) FROM storeledger.consumption_requests
      WHERE lower(request_id) = lower(\(id)) OR transaction_id = \(id)
      ORDER BY requested_at_ms DESC LIMIT 50
      """, on: client, logger: logger)
  }

  /// Requests by (state, answered late, Apple's decision after the request: `REFUND`,
  /// `REFUND_DECLINED` or none), counted. Apple's decision is the first such notification
  /// about the transaction signed at or after the request.
  package static func counts(on client: PostgresClient, logger: Logger) async throws
    -> [(state: String, late: Bool, decision: String?, count: Int)]
  {
    try await client.query(
      """
      SELECT r.state, r.answered_late, d.kind, count(*)::bigint
      FROM storeledger.consumption_requests r
      LEFT JOIN LATERAL (
        SELECT e.payload->'notification'->>'notificationType' AS kind
        FROM storeledger.events e
        WHERE e.stream_id = 'sub:' || r.environment || ':' || r.original_transaction_id
          AND e.event_type = 'appstore.notification.v2'
          AND e.payload->'notification'->>'notificationType' IN ('REFUND', 'REFUND_DECLINED')
          AND e.payload->'notification'->'transaction'->>'transactionId' = r.transaction_id
          AND (e.payload->'notification'->>'signedDate')::bigint >= r.requested_at_ms
        ORDER BY (e.payload->'notification'->>'signedDate')::bigint LIMIT 1
      ) d ON true
      GROUP BY 1, 2, 3
      """, logger: logger
    ) { rows in
      var counts: [(String, Bool, String?, Int)] = []
      for try await (state, late, kind, count) in rows.decode((String, Bool, String?, Int64).self) {
        counts.append((state, late, kind, Int(count)))
      }
      return counts
    }
  }

  private static func rows(_ query: PostgresQuery, on client: PostgresClient, logger: Logger)
    async throws -> [Row]
  {
    try await client.query(query, logger: logger) { rows in
      var found: [Row] = []
      for try await row in rows.decode(
        (
          String, String, String, String, String, String?, String, Int64, Int64, Int64?, Int64?,
          Bool, Int64
        ).self)
      {
        found.append(
          Row(
            streamId: row.0, requestId: row.1, environment: row.2, transactionId: row.3,
            originalTransactionId: row.4, productId: row.5, state: row.6, requestedAt: row.7,
            deadline: row.8, dueAt: row.9, answeredAt: row.10, answeredLate: row.11,
            version: row.12))
      }
      return found
    }
  }
}
