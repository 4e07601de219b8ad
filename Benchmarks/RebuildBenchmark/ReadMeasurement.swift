import BenchmarkSupport
import Foundation
import Logging
import PostgresNIO

/// The ceiling: reading the rows the rebuild reads, as text, in one streamed statement (a
/// cursor in all but name: PostgresNIO asks for rows as it consumes them), decoding nothing.
enum ReadMeasurement {
  /// The rows the rebuild folds: every event of every account's streams, account by account.
  static func accountRows(on client: PostgresClient, logger: Logger) async throws -> Int {
    try await client.withConnection { connection in
      let rows = try await connection.query(
        """
        SELECT a.app_account_token, e.payload::text, e.recorded_at, e.idempotency_key
        FROM storeledger.account_streams a
        JOIN storeledger.events e ON e.stream_id = a.stream_id
        ORDER BY a.app_account_token, e.stream_id, e.stream_version
        """, logger: logger)
      var (count, bytes) = (0, 0)
      for try await (_, payload, _, _) in rows.decode((String, String, Date, String).self) {
        count += 1
        bytes &+= payload.utf8.count
      }
      precondition(bytes > 0)
      return count
    }
  }

  /// Every event row of the table, in stream order.
  static func tableRows(on client: PostgresClient, logger: Logger) async throws -> Int {
    try await client.withConnection { connection in
      let rows = try await connection.query(
        """
        SELECT payload::text, recorded_at, idempotency_key FROM storeledger.events
        ORDER BY stream_id, stream_version
        """, logger: logger)
      var count = 0
      for try await _ in rows.decode((String, Date, String).self) { count += 1 }
      return count
    }
  }
}
