import Foundation
import StoreLedgerCore

/// The event store is the ledger's ``EventLog`` on PostgreSQL.
extension EventStore: EventLog {
  public func append(_ events: [NewEvent], to stream: String, indexing index: StreamIndex?)
    async throws(EventStoreError) -> AppendResult
  {
    try await append(events, to: stream, expected: .any, indexing: index, hook: nil)
  }

  public func append(_ events: [NewEvent], to stream: String, expected: ExpectedVersion)
    async throws(EventStoreError) -> AppendResult
  {
    try await append(events, to: stream, expected: expected, indexing: nil, hook: nil)
  }

  public func append(
    to stream: String, indexing index: StreamIndex?, decidingOver account: String,
    _ decide: @escaping @Sendable ([LedgerEvent]) throws -> [NewEvent]
  ) async throws(EventStoreError) -> AppendResult {
    let logger = self.logger
    return try await append(to: stream, indexing: index) { connection in
      try decide(try await AccountEvents.read(account, on: connection, logger: logger))
    }
  }
}
