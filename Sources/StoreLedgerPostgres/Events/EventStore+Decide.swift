import Foundation
import Logging
import PostgresNIO
import StoreLedgerCore

extension EventStore {
  /// Decides what to append under the stream's lock, then appends it, in one transaction:
  /// `decide` reads what it needs on the transaction's connection (no append to `streamId`
  /// can slip in between) and returns the events to append, or throws to append nothing.
  /// A decided event whose key is already stored gives its original position
  /// (`wasDuplicate`), as ``append(_:to:expected:indexing:hook:)`` does.
  public func append(
    to streamId: String, indexing index: StreamIndex? = nil,
    deciding decide: @Sendable (PostgresConnection) async throws -> [NewEvent]
  ) async throws(EventStoreError) -> AppendResult {
    let client = try await primary()
    let result: AppendResult
    do {
      result = try await client.inTransaction(logger: logger) { connection in
        try await connection.query(
          "SELECT pg_advisory_xact_lock(hashtextextended(\(streamId), 0))", logger: logger
        ) { rows in for try await _ in rows {} }
        let events = try await Self.decided(decide, on: connection)
        try Self.validate(events, streamId: streamId)
        let query = Self.appendQuery(events, to: streamId, expected: .any, index: index)
        return try await connection.query(query, logger: logger) { rows in
          try await Self.result(of: rows, for: events, in: streamId)
        }
      }
    } catch let error as EventStoreError {
      throw error
    } catch {
      throw failure(error, while: "appending decided events")
    }
    try await hosts.confirmReplicated(on: client)
    if !result.wasDuplicate { await announcer?.announce() }
    return result
  }

  private static func decided(
    _ decide: @Sendable (PostgresConnection) async throws -> [NewEvent],
    on connection: PostgresConnection
  ) async throws -> [NewEvent] {
    do {
      return try await decide(connection)
    } catch {
      throw EventStoreError(
        .hookFailed, "the decision refused the command; nothing was appended", underlying: error)
    }
  }
}
