import StoreLedgerCore

/// Get Test Notification Status.
public struct CheckTestNotificationResponse: Hashable, Sendable, Codable {
  public var signedPayload: String?
  public var sendAttempts: [SendAttemptItem]?
  /// Deprecated by Apple in favour of `sendAttempts`.
  public var firstSendAttemptResult: SendAttemptResult?

  public init() {}
}
