import Foundation

/// A relay target's queue: delivered ever, retrying, waiting for a first attempt, dead, and how
/// long the oldest undelivered notification has waited.
public struct RelayTargetCounts: Sendable, Hashable, Codable {
  public let target: String
  public let delivered: Int
  public let retrying: Int
  public let waiting: Int
  public let dead: Int
  public let oldestPendingSeconds: Double

  public init(
    target: String, delivered: Int, retrying: Int, waiting: Int, dead: Int,
    oldestPendingSeconds: Double
  ) {
    self.target = target
    self.delivered = delivered
    self.retrying = retrying
    self.waiting = waiting
    self.dead = dead
    self.oldestPendingSeconds = oldestPendingSeconds
  }
}
