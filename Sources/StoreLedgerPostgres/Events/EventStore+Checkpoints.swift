import PostgresNIO
import StoreLedgerCore

extension EventStore {
  /// Where the consumer `name` has got to; nil before its first save.
  public func checkpoint(_ name: String) async throws(EventStoreError) -> FeedPosition? {
    do {
      return try await primary().query(
        "SELECT tx_id::text, seq FROM storeledger.checkpoints WHERE name = \(name)",
        logger: logger
      ) { rows in
        var position: FeedPosition?
        for try await (transaction, sequence) in rows.decode((String, Int64).self) {
          position = FeedPosition(
            transactionId: try UInt64(transaction).orThrow(), sequence: sequence)
        }
        return position
      }
    } catch {
      throw failure(error, while: "reading a checkpoint")
    }
  }

  /// Moves `name` from `expected` (nil: it has none yet) to `position`, or throws
  /// `checkpointConflict` when it is no longer at `expected`: compare-and-swap, so two
  /// consumers never both believe they advanced it.
  public func moveCheckpoint(
    _ name: String, from expected: FeedPosition?, to position: FeedPosition
  ) async throws(EventStoreError) {
    let moved: Bool
    do {
      moved = try await compareAndSwap(name, from: expected, to: position)
    } catch let error where error.sqlState == "23505" {
      moved = false
    }
    guard moved else {
      throw EventStoreError(.checkpointConflict, "the checkpoint was moved by someone else")
    }
  }

  private func compareAndSwap(
    _ name: String, from expected: FeedPosition?, to position: FeedPosition
  )
    async throws(EventStoreError) -> Bool
  {
    let target = String(position.transactionId)
    let query: PostgresQuery
    if let expected {
      query = """
        UPDATE storeledger.checkpoints
        SET tx_id = \(target)::xid8, seq = \(position.sequence), updated_at = now()
        WHERE name = \(name) AND tx_id = \(String(expected.transactionId))::xid8
          AND seq = \(expected.sequence)
        RETURNING name
        """
    } else {
      query = """
        INSERT INTO storeledger.checkpoints (name, tx_id, seq)
        VALUES (\(name), \(target)::xid8, \(position.sequence))
        RETURNING name
        """
    }
    do {
      return try await primary().execute(query, logger: logger) == 1
    } catch {
      throw failure(error, while: "moving a checkpoint")
    }
  }
}
