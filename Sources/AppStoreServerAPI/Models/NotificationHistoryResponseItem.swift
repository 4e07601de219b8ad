import StoreLedgerCore

/// One notification in Get Notification History, with Apple's delivery attempts.
public struct NotificationHistoryResponseItem: Hashable, Sendable, Codable {
  /// The notification as originally sent.
  public var signedPayload: String?
  /// At most six: the first try and five retries.
  public var sendAttempts: [SendAttemptItem]?
  /// Deprecated by Apple in favour of `sendAttempts`.
  public var firstSendAttemptResult: SendAttemptResult?

  public init() {}
}
