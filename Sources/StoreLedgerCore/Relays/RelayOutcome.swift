import Foundation

/// What became of one relay attempt: `delivered`, `pending` (retried at `retryAt`) or `dead`.
public struct RelayOutcome: Sendable, Hashable {
  public let notificationKey: String
  public let state: DeliveryState
  public let status: Int?
  public let error: String?
  public let retryAt: Date?

  public init(
    notificationKey: String, state: DeliveryState, status: Int?, error: String?, retryAt: Date?
  ) {
    self.notificationKey = notificationKey
    self.state = state
    self.status = status
    self.error = error
    self.retryAt = retryAt
  }
}
