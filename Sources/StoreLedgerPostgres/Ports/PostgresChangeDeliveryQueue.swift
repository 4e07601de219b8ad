import Foundation
import Logging
import PostgresNIO
import StoreLedgerCore

/// Deliveries live in `storeledger.change_deliveries`, endpoints in
/// `storeledger.change_endpoints`; leases are row locks skipped by other servers.
public struct PostgresChangeDeliveryQueue: ChangeDeliveryQueue {
  let database: PostgresLedgerDatabase

  public init(_ database: PostgresLedgerDatabase) {
    self.database = database
  }

  public func register(_ endpoint: String) async throws(EventStoreError) {
    try await database.primary("registering a changes webhook") { client, logger in
      try await ChangeDeliveryStatements.register(endpoint, on: client, logger: logger)
    }
  }

  @discardableResult
  public func enqueue(_ endpoint: String, limit: Int) async throws(EventStoreError) -> Int {
    try await database.primary("queuing changes") { client, logger in
      try await ChangeDeliveryStatements.enqueue(endpoint, limit: limit, on: client, logger: logger)
    }
  }

  public func claim(_ endpoint: String, limit: Int, lease: Duration)
    async throws(EventStoreError) -> [ChangeDeliveryClaim]
  {
    try await database.primary("claiming deliveries") { client, logger in
      try await ChangeDeliveryStatements.claim(
        endpoint, limit: limit, lease: lease, on: client, logger: logger)
    }
  }

  public func record(_ outcomes: [ChangeDeliveryOutcome], endpoint: String)
    async throws(EventStoreError)
  {
    try await database.primary("recording deliveries") { client, logger in
      try await ChangeDeliveryStatements.record(
        outcomes, endpoint: endpoint, on: client, logger: logger)
    }
  }

  @discardableResult
  public func prune(_ endpoint: String, deliveredBefore age: Duration)
    async throws(EventStoreError) -> Int
  {
    try await database.primary("pruning deliveries") { client, logger in
      try await ChangeDeliveryStatements.prune(
        endpoint, deliveredBefore: age, on: client, logger: logger)
    }
  }

  public func resend(_ endpoint: String, from position: Int64) async throws(EventStoreError)
    -> Int
  {
    try await database.primary("queuing changes again") { client, logger in
      try await ChangeDeliveryStatements.resend(
        endpoint, from: position, on: client, logger: logger)
    }
  }

  public func deliveries(
    _ filter: ChangeDeliveryFilter, after key: ChangeDeliveryKey?, limit: Int, countTotal: Bool
  ) async throws(EventStoreError) -> ListRead<ChangeDelivery> {
    try await database.primary("reading the delivery log") { client, logger in
      try await ChangeDeliveryStatements.log(
        filter, after: key, limit: limit, countTotal: countTotal, on: client, logger: logger)
    }
  }

  public func deliveries(ofPositions positions: [Int64]) async throws(EventStoreError)
    -> [ChangeDelivery]
  {
    try await database.primary("reading the delivery log") { client, logger in
      try await ChangeDeliveryStatements.log(positions: positions, on: client, logger: logger)
    }
  }

  public func counts() async throws(EventStoreError) -> [ChangeDeliveryCounts] {
    try await database.primary("counting deliveries") { client, logger in
      try await ChangeDeliveryStatements.counts(on: client, logger: logger)
    }
  }
}
