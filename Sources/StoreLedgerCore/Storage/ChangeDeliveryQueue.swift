import Foundation

/// The deliveries of changes to each webhook endpoint: queued from the feed, leased by one
/// server at a time, and logged with their outcome.
public protocol ChangeDeliveryQueue: Sendable {
  /// Registers `endpoint` (idempotent); a new one starts at the feed's head.
  func register(_ endpoint: String) async throws(EventStoreError)

  /// Queues up to `limit` changes appended since the endpoint's last queuing; returns how many.
  @discardableResult
  func enqueue(_ endpoint: String, limit: Int) async throws(EventStoreError) -> Int

  /// Leases up to `limit` due deliveries for `lease`, oldest first and at most one per account
  /// (a change waits while an older one of its account is pending), skipping those another
  /// server holds.
  func claim(_ endpoint: String, limit: Int, lease: Duration) async throws(EventStoreError)
    -> [ChangeDeliveryClaim]

  /// Records the outcomes of claimed attempts.
  func record(_ outcomes: [ChangeDeliveryOutcome], endpoint: String)
    async throws(EventStoreError)

  /// Deletes the endpoint's deliveries delivered longer than `age` ago; returns how many.
  @discardableResult
  func prune(_ endpoint: String, deliveredBefore age: Duration) async throws(EventStoreError)
    -> Int

  /// Queues every change from `position` on again for `endpoint`; returns how many.
  func resend(_ endpoint: String, from position: Int64) async throws(EventStoreError) -> Int

  /// Up to `limit` deliveries `filter` holds after `key`, the newest change first (then by
  /// endpoint); with how many it holds when `countTotal`.
  func deliveries(
    _ filter: ChangeDeliveryFilter, after key: ChangeDeliveryKey?, limit: Int, countTotal: Bool
  ) async throws(EventStoreError) -> ListRead<ChangeDelivery>

  /// The deliveries of the changes at `positions`, to every endpoint.
  func deliveries(ofPositions positions: [Int64]) async throws(EventStoreError)
    -> [ChangeDelivery]

  /// Per endpoint: delivered, retrying, waiting and dead deliveries, and the lag.
  func counts() async throws(EventStoreError) -> [ChangeDeliveryCounts]
}
