import StoreLedgerCore

/// One attempt to deliver a notification.
public struct SendAttemptItem: Hashable, Sendable, Codable {
  public var attemptDate: Timestamp?
  public var sendAttemptResult: SendAttemptResult?

  public init() {}
}
