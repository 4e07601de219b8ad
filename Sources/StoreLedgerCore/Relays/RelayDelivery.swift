import Foundation

/// A relay delivery as the queue holds it: where it stands, for the dead-letter list.
public struct RelayDelivery: Sendable, Hashable, Codable {
  public let target: String
  public let notificationKey: String
  public let notificationType: String?
  public let environment: String?
  public let state: DeliveryState
  public let attempts: Int
  public let lastStatus: Int?
  public let lastError: String?
  public let nextAttemptAt: Date
  public let deliveredAt: Date?

  public init(
    target: String, notificationKey: String, notificationType: String?, environment: String?,
    state: DeliveryState, attempts: Int, lastStatus: Int?, lastError: String?, nextAttemptAt: Date,
    deliveredAt: Date?
  ) {
    self.target = target
    self.notificationKey = notificationKey
    self.notificationType = notificationType
    self.environment = environment
    self.state = state
    self.attempts = attempts
    self.lastStatus = lastStatus
    self.lastError = lastError
    self.nextAttemptAt = nextAttemptAt
    self.deliveredAt = deliveredAt
  }
}
