import Foundation

/// Relay targets and the queue of notifications waiting to reach them (the port a storage
/// offers when it can relay; PostgreSQL does). The attempts themselves are events in the log.
public protocol RelayQueue: Sendable {
  /// Adds `target`, starting at the oldest transaction still running (nothing that commits
  /// later is missed); false when a target of that name exists.
  func addRelayTarget(_ target: RelayTarget) async throws(EventStoreError) -> Bool

  /// Removes the target and its queue; false when there is none of that name.
  func removeRelayTarget(named name: String) async throws(EventStoreError) -> Bool

  /// Every target, by name.
  func relayTargets() async throws(EventStoreError) -> [RelayTarget]

  /// Queues up to `limit` events' worth of the target's notifications appended since its last
  /// queuing; nil when the target no longer exists.
  func queueRelays(to target: String, limit: Int) async throws(EventStoreError) -> Int?

  /// Leases up to `limit` due deliveries for `lease`, oldest first, skipping those another
  /// server holds.
  func claimRelays(to target: String, limit: Int, lease: Duration) async throws(EventStoreError)
    -> [RelayDeliveryClaim]

  /// Records the outcomes of claimed attempts.
  func recordRelays(_ outcomes: [RelayOutcome], to target: String) async throws(EventStoreError)

  /// Deletes the target's deliveries delivered longer than `age` ago; returns how many.
  @discardableResult
  func pruneRelays(to target: String, deliveredBefore age: Duration) async throws(EventStoreError)
    -> Int

  /// Queues the target's dead deliveries again; returns how many.
  func retryDeadRelays(to target: String) async throws(EventStoreError) -> Int

  /// Up to `limit` of the queue's rows of one target (of one state when given) after the row
  /// of the notification `after` (its idempotency key), newest notification first; with how
  /// many the target's list holds when `countTotal`.
  func relayDeliveries(
    to target: String, state: DeliveryState?, after: String?, limit: Int, countTotal: Bool
  ) async throws(EventStoreError) -> ListRead<RelayDelivery>

  /// Each target's counts.
  func relayCounts() async throws(EventStoreError) -> [RelayTargetCounts]

  /// The target's recorded attempts, newest first: those before stream version `before` when
  /// given, of one notification (its key) when given; with how many the target's attempts (of
  /// that notification) are in all, before or not, when `countTotal`.
  func relayAttempts(
    to target: String, notification: String?, before: Int64?, limit: Int, countTotal: Bool
  ) async throws(EventStoreError) -> ListRead<RecordedEvent>
}
