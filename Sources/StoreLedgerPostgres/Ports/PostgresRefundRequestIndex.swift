import Logging
import PostgresNIO
import StoreLedgerCore

/// Refund requests are indexed in `storeledger.consumption_requests`, written with their
/// streams' appends.
public struct PostgresRefundRequestIndex: RefundRequestIndex {
  let database: PostgresLedgerDatabase

  public init(_ database: PostgresLedgerDatabase) {
    self.database = database
  }

  public func dueRequests(now: Int64, limit: Int) async throws(EventStoreError) -> [String] {
    try await database.primary("reading due refund requests") { client, logger in
      try await RefundRequestStatements.due(now: now, limit: limit, on: client, logger: logger)
    }
  }

  public func requests(
    inStates states: [String], after key: RefundRequestKey?, limit: Int, countTotal: Bool
  ) async throws(EventStoreError) -> ListRead<RefundRequestKey> {
    try await database.primary("listing refund requests") { client, logger in
      try await RefundRequestStatements.list(
        states: states, after: key, limit: limit, countTotal: countTotal, on: client,
        logger: logger)
    }
  }

  public func requests(withId id: String) async throws(EventStoreError) -> [String] {
    try await database.primary("finding a refund request") { client, logger in
      try await RefundRequestStatements.find(id, on: client, logger: logger)
    }
  }

  public func requestCounts() async throws(EventStoreError) -> [RefundRequestCount] {
    try await database.primary("counting refund requests") { client, logger in
      try await RefundRequestStatements.counts(on: client, logger: logger).map {
        RefundRequestCount(state: $0.state, late: $0.late, decision: $0.decision, count: $0.count)
      }
    }
  }
}
