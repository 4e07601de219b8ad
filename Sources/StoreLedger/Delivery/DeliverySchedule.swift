import Foundation
import StoreLedgerCore

/// When an outbound delivery that failed is tried again, and when it is given up: the one
/// schedule of change webhooks (``ChangeDeliverer``) and relays (``Relayer``), each with its
/// own configuration.
struct DeliverySchedule: Sendable {
  /// The first retry's delay; each further one doubles it, up to `maximumDelay`.
  var initialDelay: Duration
  var maximumDelay: Duration
  /// After this long since the first attempt a delivery is dead-lettered.
  var retryFor: Duration

  /// The delay before attempt `attempt + 1`, after `attempt` failed: doubling from
  /// `initialDelay` up to `maximumDelay`, with ±20 % jitter so that receivers coming back
  /// are not met by every sender at once.
  func delay(after attempt: Int, jitter: Double = Double.random(in: 0.8...1.2)) -> TimeInterval {
    let base = initialDelay.timeInterval * pow(2, Double(max(0, attempt - 1)))
    return min(base, maximumDelay.timeInterval) * jitter
  }

  /// What failed attempt `attempt` (the first made at `firstAttemptAt`) leaves: pending until
  /// its retry, or dead once the retry would fall beyond `retryFor`.
  func afterFailure(
    attempt: Int, firstAttemptAt: Date, now: Date = Date(),
    jitter: Double = Double.random(in: 0.8...1.2)
  ) -> (state: DeliveryState, retryAt: Date?) {
    let retryAt = now.addingTimeInterval(delay(after: attempt, jitter: jitter))
    guard retryAt.timeIntervalSince(firstAttemptAt) <= retryFor.timeInterval else {
      return (.dead, nil)
    }
    return (.pending, retryAt)
  }
}
