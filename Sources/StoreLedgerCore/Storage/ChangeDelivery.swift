import Foundation

/// One row of the delivery log.
public struct ChangeDelivery: Sendable, Hashable, Encodable {
  public var endpoint: String
  public var position: Int64
  public var state: DeliveryState
  public var attempts: Int
  public var lastStatus: Int?
  public var lastError: String?
  public var nextAttemptAt: Date
  public var deliveredAt: Date?

  public init(
    endpoint: String, position: Int64, state: DeliveryState, attempts: Int, lastStatus: Int?,
    lastError: String?, nextAttemptAt: Date, deliveredAt: Date?
  ) {
    self.endpoint = endpoint
    self.position = position
    self.state = state
    self.attempts = attempts
    self.lastStatus = lastStatus
    self.lastError = lastError
    self.nextAttemptAt = nextAttemptAt
    self.deliveredAt = deliveredAt
  }

  private enum Keys: String, CodingKey {
    case endpoint, position, state, attempts, lastStatus, lastError, nextAttemptAt, deliveredAt
  }

  /// Instants as Unix milliseconds, as every answer writes them.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Keys.self)
    try container.encode(endpoint, forKey: .endpoint)
    try container.encode(position, forKey: .position)
    try container.encode(state, forKey: .state)
    try container.encode(attempts, forKey: .attempts)
    try container.encode(lastStatus, forKey: .lastStatus)
    try container.encode(lastError, forKey: .lastError)
    try container.encode(Timestamp(nextAttemptAt).milliseconds, forKey: .nextAttemptAt)
    try container.encode(deliveredAt.map { Timestamp($0).milliseconds }, forKey: .deliveredAt)
  }
}
