import Foundation

/// The counts the console's overview shows, read in one go.
public struct ConsoleOverview: Sendable {
  package var accounts = 0
  package var subscriptionsByStatus: [Int: Int] = [:]
  package var entitlementsInForce: [String: Int] = [:]
  package var lastNotificationAt: Date?
  package var lastNotificationType: String?
  package var notificationsSince = 0

  package init() {}
}
