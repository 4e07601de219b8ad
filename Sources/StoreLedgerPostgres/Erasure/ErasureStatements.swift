import Foundation
import Logging
import NIOCore
import PostgresNIO
import StoreLedgerCore

/// The statements of erasure (schema/0023): `storeledger.erase_accounts` does the work as the
/// owner role; the rest reads what the log records of erasures.
enum ErasureStatements {
  static func erase(_ request: ErasureRequest, on client: PostgresClient, logger: Logger)
    async throws -> ErasureReceipt
  {
    let receipt = try await eraseRows(request, on: client, logger: logger)
    await analyze(after: receipt, on: client, logger: logger)
    return receipt
  }

  /// Samples StoreLedger's tables again once the erasure committed, so the planner's
  /// statistics stop quoting erased values (ANALYZE skips the dead row versions). The
  /// erasure stands whatever happens here: a failure is logged, and autovacuum's next
  /// ANALYZE does the same later.
  private static func analyze(
    after receipt: ErasureReceipt, on client: PostgresClient, logger: Logger
  ) async {
    guard receipt.outcome == .erased else { return }
    do {
      try await client.execute("SELECT storeledger.analyze_after_erasure('erased')", logger: logger)
    } catch {
      logger.warning(
        """
        the erasure committed, but its statistics were not refreshed: run ANALYZE on the \
        storeledger schemas
        """,
        metadata: ["erasure": "\(receipt.erasureId)", "error": "\(String(reflecting: error))"])
    }
  }

  private static func eraseRows(
    _ request: ErasureRequest, on client: PostgresClient, logger: Logger
  )
    async throws -> ErasureReceipt
  {
    try await client.query(
      """
      WITH erased AS (
        SELECT outcome, erasure_id, erased_rows, erased_streams, rows_digest, erased_at
        FROM storeledger.erase_accounts(\(request.appAccountTokens), \(request.erasureId),
          \(request.requestedBy), \(request.reason), \(request.later.rawValue))
      ), history AS (
        -- The view's status history goes with the view.
        DELETE FROM storeledger.status_history
        WHERE app_account_token = ANY(\(request.appAccountTokens.map { $0.lowercased() })::text[])
          AND EXISTS (SELECT 1 FROM erased)
      ), aliases AS (
        -- The backend's alias of an erased account goes with it.
        DELETE FROM storeledger.account_aliases
        WHERE app_account_token = ANY(\(request.appAccountTokens.map { $0.lowercased() })::text[])
          AND EXISTS (SELECT 1 FROM erased)
      )
      SELECT * FROM erased
      """, logger: logger
    ) { rows in
      for try await (outcome, id, erasedRows, streams, digest, at) in rows.decode(
        (String, UUID?, Int64, Int64, ByteBuffer?, Date?).self)
      {
        return ErasureReceipt(
          outcome: try ErasureReceipt.Outcome(rawValue: outcome).orThrow(),
          erasureId: try id.orThrow(), erasedRows: erasedRows, erasedStreams: streams,
          rowsDigest: digest.map(hex),
          erasedAt: at)
      }
      throw EventStoreError(.databaseRejected, "the erasure returned no row")
    }
  }

  /// Every erasure event, with the erased rows that name it counted and digested again.
  static func erasures(on client: PostgresClient, logger: Logger) async throws
    -> [ErasureRecord]
  {
    try await client.query(
      """
      SELECT e.payload::text, coalesce(f.found, 0), f.digest
      FROM storeledger.events e
      LEFT JOIN LATERAL (
        SELECT count(*) AS found,
               sha256(coalesce(string_agg(r.hash, ''::bytea ORDER BY r.tx_id, r.seq),
                               ''::bytea)) AS digest
        FROM storeledger.events r
        WHERE r.erased_by IS NOT NULL
          AND r.erased_by::text = e.payload->>'erasureId'
      ) f ON true
      WHERE e.stream_id = 'erasures' AND e.event_type = 'ledger.account_erased.v1'
      ORDER BY e.stream_version
      """, logger: logger
    ) { rows in
      var records: [ErasureRecord] = []
      for try await (payload, found, digest) in rows.decode((String, Int64, ByteBuffer?).self) {
        records.append(
          try ErasureEvent(payload: Array(payload.utf8)).record(
            foundRows: found, foundDigest: digest.map(hex) ?? ""))
      }
      return records
    }
  }

  static func erasure(ofAccount token: String, on client: PostgresClient, logger: Logger)
    async throws -> UUID?
  {
    try await client.query(
      "SELECT erasure_id FROM storeledger.erasure_of_account(\(token))", logger: logger
    ) { rows in
      for try await id in rows.decode(UUID.self) { return id }
      return nil
    }
  }

  static func unrecorded(on client: PostgresClient, logger: Logger) async throws -> [UUID: Int64] {
    try await client.query(
      """
      SELECT r.erased_by, count(*) FROM storeledger.events r
      WHERE r.erased_by IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM storeledger.events e
        WHERE e.stream_id = 'erasures' AND e.event_type = 'ledger.account_erased.v1'
          AND e.payload->>'erasureId' = r.erased_by::text)
      GROUP BY r.erased_by
      """, logger: logger
    ) { rows in
      var found: [UUID: Int64] = [:]
      for try await (id, count) in rows.decode((UUID, Int64).self) { found[id] = count }
      return found
    }
  }

  private static func hex(_ bytes: ByteBuffer) -> String {
    bytes.readableBytesView.map { String(format: "%02x", $0) }.joined()
  }

  static func quarantinedIndexed(on client: PostgresClient, logger: Logger) async throws -> Int64 {
    try await client.query(
      "SELECT storeledger.quarantined_accounts_indexed()", logger: logger
    ) { rows in
      for try await count in rows.decode(Int64.self) { return count }
      return 0
    }
  }
}
