import StoreLedgerCore

/// Request a Test Notification.
public struct SendTestNotificationResponse: Hashable, Sendable, Codable {
  public var testNotificationToken: String?

  public init() {}
}
