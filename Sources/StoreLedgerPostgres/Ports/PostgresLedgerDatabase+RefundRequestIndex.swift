import Logging
import PostgresNIO
import StoreLedgerCore

/// Refund requests are indexed in `storeledger.consumption_requests`, written with their
/// streams' appends.
extension PostgresLedgerDatabase: RefundRequestIndex {
  public func dueRequests(now: Int64, limit: Int) async throws(EventStoreError) -> [String] {
    let logger = self.logger
    return try await onPrimary("reading due refund requests") { client in
      try await RefundRequestStatements.due(now: now, limit: limit, on: client, logger: logger)
    }
  }

  public func requests(inStates states: [String], limit: Int) async throws(EventStoreError)
    -> [String]
  {
    let logger = self.logger
    return try await onPrimary("listing refund requests") { client in
      try await RefundRequestStatements.list(
        states: states, limit: limit, on: client, logger: logger)
    }
  }

  public func requests(withId id: String) async throws(EventStoreError) -> [String] {
    let logger = self.logger
    return try await onPrimary("finding a refund request") { client in
      try await RefundRequestStatements.find(id, on: client, logger: logger)
    }
  }

  public func requestCounts() async throws(EventStoreError) -> [RefundRequestCount] {
    let logger = self.logger
    return try await onPrimary("counting refund requests") { client in
      try await RefundRequestStatements.counts(on: client, logger: logger).map {
        RefundRequestCount(state: $0.state, late: $0.late, decision: $0.decision, count: $0.count)
      }
    }
  }
}
