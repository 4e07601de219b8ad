import Logging
import PostgresNIO
import StoreLedgerCore

/// The statements of the refund-request index (`storeledger.consumption_requests`,
/// schema/0014), which a trigger keeps in step with the requests' streams.
package enum RefundRequestStatements {
  /// The streams of open requests a worker should look at by `now` (Unix ms), the nearest
  /// deadline first.
  package static func due(now: Int64, limit: Int, on client: PostgresClient, logger: Logger)
    async throws -> [String]
  {
    try await streams(
      """
      SELECT stream_id FROM storeledger.consumption_requests
      WHERE due_at_ms <= \(now) ORDER BY deadline_ms LIMIT \(limit)
      """, on: client, logger: logger)
  }

  /// The streams of the requests in `states` (all when empty), newest first.
  package static func list(
    states: [String], after key: RefundRequestKey?, limit: Int, countTotal: Bool,
    on client: PostgresClient, logger: Logger
  ) async throws -> ListRead<RefundRequestKey> {
    // Newest first, then by stream: the page after `key` starts below its instant, or at it
    // with a later stream. The states filter is the listing index's leading column.
    let rows = try await client.query(
      """
      SELECT requested_at_ms, stream_id FROM storeledger.consumption_requests
      WHERE (cardinality(\(states)::text[]) = 0 OR state = ANY(\(states)::text[]))
        AND (\(key?.requestedAt)::bigint IS NULL
          OR requested_at_ms < \(key?.requestedAt)::bigint
          OR (requested_at_ms = \(key?.requestedAt)::bigint AND stream_id > \(key?.streamId)::text))
      ORDER BY requested_at_ms DESC, stream_id LIMIT \(limit)
      """, logger: logger
    ) { rows in
      var found: [RefundRequestKey] = []
      for try await (requestedAt, stream) in rows.decode((Int64, String).self) {
        found.append(RefundRequestKey(requestedAt: requestedAt, streamId: stream))
      }
      return found
    }
    guard countTotal else { return ListRead(rows: rows, total: nil) }
    let total = try await client.query(
      """
      SELECT count(*) FROM storeledger.consumption_requests
      WHERE cardinality(\(states)::text[]) = 0 OR state = ANY(\(states)::text[])
      """, logger: logger
    ) { rows in
      var total = 0
      for try await count in rows.decode(Int.self) { total = count }
      return total
    }
    return ListRead(rows: rows, total: total)
  }

  /// The request with `requestId` (the notification's UUID, any case), or those of a
  /// transaction.
  package static func find(_ id: String, on client: PostgresClient, logger: Logger)
    async throws -> [String]
  {
    try await streams(
      """
      SELECT stream_id FROM storeledger.consumption_requests
      WHERE lower(request_id) = lower(\(id)) OR transaction_id = \(id)
      ORDER BY requested_at_ms DESC LIMIT 50
      """, on: client, logger: logger)
  }

  /// The streams of the requests about purchases of the chain `originalTransactionId`.
  package static func streams(
    ofChain originalTransactionId: String, on client: PostgresClient, logger: Logger
  ) async throws -> [String] {
    try await streams(
      """
      SELECT stream_id FROM storeledger.consumption_requests
      WHERE original_transaction_id = \(originalTransactionId) ORDER BY stream_id
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
          AND e.event_type IN ('appstore.notification.v2', 'appstore.notification.v3')
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

  private static func streams(_ query: PostgresQuery, on client: PostgresClient, logger: Logger)
    async throws -> [String]
  {
    try await AccountViewStatements.strings(query, on: client, logger: logger)
  }
}
