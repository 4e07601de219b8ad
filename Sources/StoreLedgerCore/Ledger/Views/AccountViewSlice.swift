import Foundation

/// One part of an account's stored view, as the account API returns it: its JSON as stored
/// (no decoding, no encoding again), with what tells whether the view is current.
public struct AccountViewSlice: Sendable {
  /// The parts a query returns.
  public enum Part: String, Sendable, CaseIterable {
    case entitlements, subscriptions, consumables
  }

  /// Appends that named the account.
  public var changes: Int64
  /// The `changes` the stored view includes.
  public var projectedChanges: Int64
  public var projection: String?
  /// The part, a JSON array (the whole view: an ``AccountSummary``); nil before the first
  /// projection.
  public var json: [UInt8]?
  public var interval: StableInterval

  public init(
    changes: Int64, projectedChanges: Int64, projection: String?, json: [UInt8]?,
    interval: StableInterval
  ) {
    self.changes = changes
    self.projectedChanges = projectedChanges
    self.projection = projection
    self.json = json
    self.interval = interval
  }

  /// A row's columns, its interval's ends in milliseconds (nil: unbounded).
  public init(
    changes: Int64, projectedChanges: Int64, projection: String?, json: [UInt8]?,
    from: Int64?, until: Int64?
  ) {
    self.init(
      changes: changes, projectedChanges: projectedChanges, projection: projection, json: json,
      interval: StableInterval(
        from: from.map(Timestamp.init(milliseconds:)),
        until: until.map(Timestamp.init(milliseconds:))))
  }

  /// Whether the part answers for `time`: the view includes every append that named the
  /// account, was computed by the same rules and catalog, and holds at `time`.
  public func isCurrent(at time: Timestamp, projection current: String) -> Bool {
    projectedChanges == changes && projection == current && interval.contains(time)
      && json != nil
  }

  /// The summary the whole view holds, if it is current at `time`.
  public func summary(at time: Timestamp, projection current: String) -> AccountSummary? {
    guard isCurrent(at: time, projection: current), let json else { return nil }
    return try? JSONDecoder().decode(AccountSummary.self, from: Data(json))
  }
}
