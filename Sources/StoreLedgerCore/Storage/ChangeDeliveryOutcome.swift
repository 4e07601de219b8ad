import Foundation

/// What became of one delivery attempt.
public struct ChangeDeliveryOutcome: Sendable, Hashable {
  package var position: Int64
  /// delivered, pending (to retry at `retryAt`) or dead.
  package var state: DeliveryState
  package var status: Int?
  package var error: String?
  package var retryAt: Date?

  package init(position: Int64, state: DeliveryState, status: Int?, error: String?, retryAt: Date?)
  {
    self.position = position
    self.state = state
    self.status = status
    self.error = error
    self.retryAt = retryAt
  }
}
