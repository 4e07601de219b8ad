import Foundation
import Logging
import PostgresNIO
import StoreLedgerCore

/// Targets live in `storeledger.relay_targets`, the queue in `storeledger.relay_deliveries`;
/// leases are row locks skipped by other servers; attempts are the log's events.
public struct PostgresRelayQueue: RelayQueue {
  let database: PostgresLedgerDatabase

  public init(_ database: PostgresLedgerDatabase) {
    self.database = database
  }

  public func addRelayTarget(_ target: RelayTarget) async throws(EventStoreError) -> Bool {
    try await database.primary("adding a relay target") { client, logger in
      try await RelayStatements.add(target, on: client, logger: logger)
    }
  }

  public func removeRelayTarget(named name: String) async throws(EventStoreError) -> Bool {
    try await database.primary("removing a relay target") { client, logger in
      try await RelayStatements.remove(name, on: client, logger: logger)
    }
  }

  public func relayTargets() async throws(EventStoreError) -> [RelayTarget] {
    try await database.primary("reading the relay targets") { client, logger in
      try await RelayStatements.targets(on: client, logger: logger)
    }
  }

  public func queueRelays(to target: String, limit: Int) async throws(EventStoreError) -> Int? {
    try await database.primary("queuing notifications to relay") { client, logger in
      try await RelayStatements.enqueue(target, limit: limit, on: client, logger: logger)
    }
  }

  public func claimRelays(to target: String, limit: Int, lease: Duration)
    async throws(EventStoreError) -> [RelayDeliveryClaim]
  {
    try await database.primary("claiming relays") { client, logger in
      try await RelayStatements.claim(
        target, limit: limit, lease: lease, on: client, logger: logger)
    }
  }

  public func recordRelays(_ outcomes: [RelayOutcome], to target: String)
    async throws(EventStoreError)
  {
    try await database.primary("recording relays") { client, logger in
      try await RelayStatements.record(outcomes, target: target, on: client, logger: logger)
    }
  }

  @discardableResult
  public func pruneRelays(to target: String, deliveredBefore age: Duration)
    async throws(EventStoreError) -> Int
  {
    try await database.primary("pruning relays") { client, logger in
      try await RelayStatements.prune(target, deliveredBefore: age, on: client, logger: logger)
    }
  }

  public func retryDeadRelays(to target: String) async throws(EventStoreError) -> Int {
    try await database.primary("queuing dead relays again") { client, logger in
      try await RelayStatements.retryDead(target, on: client, logger: logger)
    }
  }

  public func relayDeliveries(
    to target: String, state: DeliveryState?, after: String?, limit: Int, countTotal: Bool
  ) async throws(EventStoreError) -> ListRead<RelayDelivery> {
    try await database.primary("reading the relay queue") { client, logger in
      try await RelayStatements.deliveries(
        target: target, state: state?.rawValue, after: after, limit: limit,
        countTotal: countTotal, on: client, logger: logger)
    }
  }

  public func relayCounts() async throws(EventStoreError) -> [RelayTargetCounts] {
    try await database.primary("counting relays") { client, logger in
      try await RelayStatements.counts(on: client, logger: logger)
    }
  }

  public func relayAttempts(
    to target: String, notification: String?, before: Int64?, limit: Int, countTotal: Bool
  ) async throws(EventStoreError) -> ListRead<RecordedEvent> {
    try await database.primary("reading relay attempts") { client, logger in
      try await RelayStatements.attempts(
        target: target, notification: notification, before: before, limit: limit,
        countTotal: countTotal, on: client, logger: logger)
    }
  }
}
