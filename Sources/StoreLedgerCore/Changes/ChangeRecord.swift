import Foundation

/// One stored change of the feed (`storeledger.changes`): an ``AccountChange`` with its global
/// position, its id (the same whenever the log is derived again), its place among its
/// account's changes, when it happened and what caused it.
public struct ChangeRecord: Sendable, Hashable {
  public var position: Int64
  public var id: UUID
  public var ordinal: Int64
  public var change: AccountChange
  public var occurredAt: Timestamp
  /// The idempotency key of the event that caused it; nil when the clock did.
  public var cause: String?
  public var recordedAt: Date
  /// The app the change is of, on a server of several apps (not stored: each app has its own
  /// feed); nil otherwise. Ids are unique within an app.
  public var app: String?

  public init(
    position: Int64, id: UUID, ordinal: Int64, change: AccountChange, occurredAt: Timestamp,
    cause: String?, recordedAt: Date
  ) {
    self.position = position
    self.id = id
    self.ordinal = ordinal
    self.change = change
    self.occurredAt = occurredAt
    self.cause = cause
    self.recordedAt = recordedAt
  }

  public var appAccountToken: String { change.appAccountToken ?? "" }
}

extension ChangeRecord {
  /// The same change, said to be of `app` (a server of several apps); unchanged for nil.
  public func of(app: String?) -> ChangeRecord {
    guard let app else { return self }
    var named = self
    named.app = app
    return named
  }
}
