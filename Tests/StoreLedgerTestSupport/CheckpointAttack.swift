import Foundation
import PostgresNIO
import StoreLedgerCore
import StoreLedgerPostgres

/// What a database superuser can do that the hash chain cannot show: rewrite a row and
/// recompute its stream's chain with the schema's own digest. The attack signed checkpoints
/// exist to catch.
public enum CheckpointAttack {
  struct AttackFailed: Error {}

  /// As the superuser: triggers off, the second debit's quantity changed, that row's and every
  /// later row's hash in its stream recomputed with the schema's own digest, triggers on.
  public static func rewriteSecondDebit(_ database: TestDatabase) async throws -> (String, Int64) {
    try await rewriteDebit(at: 1, database)
  }

  /// As ``rewriteSecondDebit(_:)``, for the debit `offset` debits after the first.
  public static func rewriteDebit(at offset: Int, _ database: TestDatabase) async throws -> (
    String, Int64
  ) {
    try await database.asAdmin { client in
      let (stream, version) = try await client.query(
        """
        SELECT stream_id, stream_version FROM storeledger.events
        WHERE event_type = \(EventTypes.debit) ORDER BY tx_id, seq OFFSET \(offset) LIMIT 1
        """, logger: TestDatabase.logger
      ) { rows in
        var found: (String, Int64)?
        for try await row in rows.decode((String, Int64).self) { found = row }
        guard let found else { throw AttackFailed() }
        return found
      }
      try await client.execute(
        "ALTER TABLE storeledger.events DISABLE TRIGGER events_reject_update_delete",
        logger: TestDatabase.logger)
      try await client.execute(
        """
        UPDATE storeledger.events SET payload = jsonb_set(payload, '{debit,quantity}', '1')
        WHERE stream_id = \(stream) AND stream_version = \(version)
        """, logger: TestDatabase.logger)
      let last = try await client.query(
        "SELECT max(stream_version) FROM storeledger.events WHERE stream_id = \(stream)",
        logger: TestDatabase.logger
      ) { rows in
        var last: Int64 = 0
        for try await value in rows.decode(Int64.self) { last = value }
        return last
      }
      for row in version...last {
        try await client.execute(
          """
          UPDATE storeledger.events AS e
          SET prev_hash = p.prev, hash = storeledger.event_digest(p.prev, e.stream_id,
            e.stream_version, e.event_id, e.idempotency_key, e.event_type, e.environment,
            e.apple_signed_at, e.recorded_at, e.payload, e.raw_signed, e.metadata, e.claims)
          FROM (SELECT coalesce(
                  (SELECT hash FROM storeledger.events
                   WHERE stream_id = \(stream) AND stream_version = \(row) - 1),
                  '\\x0000000000000000000000000000000000000000000000000000000000000000'::bytea)
                  AS prev) AS p
          WHERE e.stream_id = \(stream) AND e.stream_version = \(row)
          """, logger: TestDatabase.logger)
      }
      try await client.execute(
        "ALTER TABLE storeledger.events ENABLE TRIGGER events_reject_update_delete",
        logger: TestDatabase.logger)
      return (stream, version)
    }
  }
}
