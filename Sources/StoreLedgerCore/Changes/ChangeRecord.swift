import Foundation

/// One stored change of the feed (`storeledger.changes`): an ``AccountChange`` with its global
/// position, its id (the same whenever the log is derived again), its place among its
/// account's changes, its two clocks and what caused it.
public struct ChangeRecord: Sendable, Hashable {
  public var position: Int64
  public var id: UUID
  public var ordinal: Int64
  public var change: AccountChange
  /// The derivation's instant (projections/changes.md O2): the order of the feed's appends.
  public var occurredAt: Timestamp
  /// When the change took effect by Apple's data (T1–T8): what windows select on. Nil for a
  /// change recorded before the ledger kept effective times (no window selects it).
  public var effectiveAt: Timestamp?
  /// The idempotency key of the event that caused it; nil when the clock did.
  public var cause: String?
  /// When the ledger recorded it.
  public var recordedAt: Date
  /// The app the change is of, on a server of several apps (not stored: each app has its own
  /// feed); nil otherwise. Ids are unique within an app.
  public var app: String?

  public init(
    position: Int64, id: UUID, ordinal: Int64, change: AccountChange, occurredAt: Timestamp,
    effectiveAt: Timestamp?, cause: String?, recordedAt: Date
  ) {
    self.position = position
    self.id = id
    self.ordinal = ordinal
    self.change = change
    self.occurredAt = occurredAt
    self.effectiveAt = effectiveAt
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
