import Foundation
import StoreLedgerCore

/// A delivery waiting in one of the in-memory queues (a change to a webhook, a notification
/// to a relay target): leased when claimed, and given its outcome when recorded, the same way
/// for both.
protocol QueuedDelivery {
  var state: DeliveryState { get set }
  var attempts: Int { get set }
  var nextAttemptAt: Date { get set }
  var leasedUntil: Date? { get set }
  var firstAttemptAt: Date? { get set }
  var lastStatus: Int? { get set }
  var lastError: String? { get set }
  var deliveredAt: Date? { get set }
}

extension QueuedDelivery {
  /// Whether a claim at `now` may take it: pending, due, and not leased by another claim.
  func isDue(at now: Date) -> Bool {
    state == .pending && nextAttemptAt <= now && (leasedUntil.map { $0 < now } ?? true)
  }

  /// Leases it to a claim until `until`: one attempt more.
  mutating func lease(until: Date, now: Date) {
    leasedUntil = until
    attempts += 1
    firstAttemptAt = firstAttemptAt ?? now
  }

  /// What became of the claimed attempt (`delivered`, `pending` to retry at `retryAt`, or
  /// `dead`); the lease ends.
  mutating func record(
    state: DeliveryState, status: Int?, error: String?, retryAt: Date?, now: Date
  ) {
    self.state = state
    lastStatus = status
    lastError = error?.isEmpty == false ? error : nil
    leasedUntil = nil
    nextAttemptAt = retryAt ?? nextAttemptAt
    deliveredAt = state == .delivered ? now : nil
  }

  /// Queued again from the start, as if never attempted.
  mutating func requeue(at now: Date) {
    state = .pending
    attempts = 0
    nextAttemptAt = now
    leasedUntil = nil
    firstAttemptAt = nil
  }
}

/// An attempt's outcome as either queue's caller records it.
protocol DeliveryOutcome {
  var state: DeliveryState { get }
  var status: Int? { get }
  var error: String? { get }
  var retryAt: Date? { get }
}

extension ChangeDeliveryOutcome: DeliveryOutcome {}
extension RelayOutcome: DeliveryOutcome {}

extension Dictionary where Value: QueuedDelivery {
  /// Records each outcome on the delivery `key` names (an unknown one is passed over);
  /// returns how many were delivered.
  mutating func record<Outcome: DeliveryOutcome>(
    _ outcomes: [Outcome], key: (Outcome) -> Key, now: Date
  ) -> Int {
    var delivered = 0
    for outcome in outcomes {
      guard var delivery = self[key(outcome)] else { continue }
      delivery.record(
        state: outcome.state, status: outcome.status, error: outcome.error,
        retryAt: outcome.retryAt, now: now)
      self[key(outcome)] = delivery
      if outcome.state == .delivered { delivered += 1 }
    }
    return delivered
  }

  /// Removes the deliveries delivered before `cutoff`; returns how many.
  mutating func pruneDelivered(before cutoff: Date) -> Int {
    let old = filter {
      $0.value.state == .delivered && ($0.value.deliveredAt.map { $0 < cutoff } ?? false)
    }
    for key in old.keys { self[key] = nil }
    return old.count
  }
}
