import Foundation

/// One of the log's newest rows as the console's "today" page lists it: what it is, when it
/// was stored, and which accounts its stream belongs to. No payload.
public struct LogEntrySummary: Sendable, Hashable {
  public var recordedAt: Date
  public var eventType: String
  public var streamId: String
  /// A notification's type and subtype (`DID_RENEW`, `DID_FAIL_TO_RENEW/GRACE_PERIOD`); nil for
  /// other events.
  public var notification: String?
  /// The accounts its stream is indexed under (none for unrouted evidence).
  public var accounts: [String]
  /// The event's idempotency key, which the account page's evidence link names.
  public var key: String

  public init(
    recordedAt: Date, eventType: String, streamId: String, notification: String?,
    accounts: [String], key: String
  ) {
    self.recordedAt = recordedAt
    self.eventType = eventType
    self.streamId = streamId
    self.notification = notification
    self.accounts = accounts
    self.key = key
  }
}
