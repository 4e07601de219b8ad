import Foundation

/// One leased delivery: the change's position and the attempt this is.
public struct ChangeDeliveryClaim: Sendable, Hashable {
  package var position: Int64
  package var attempt: Int
  package var firstAttemptAt: Date

  package init(position: Int64, attempt: Int, firstAttemptAt: Date) {
    self.position = position
    self.attempt = attempt
    self.firstAttemptAt = firstAttemptAt
  }
}
