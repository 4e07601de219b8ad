/// A subscription entering a status by Apple's clock (``StatusHistory``): "who went into
/// billing retry during the outage".
public struct StatusTransitionRow: Sendable, Hashable {
  /// Its place in its account's history, from 0, oldest first.
  public var ordinal: Int
  public var appAccountToken: String
  public var originalTransactionId: String
  /// The status left (nil for a subscription's first) and the one entered.
  public var from: Int32?
  public var to: Int32
  /// When it took effect by Apple's data (or the clock's crossing), and when the ledger could
  /// first tell it (the latest recording of the events it rests on).
  public var effectiveAt: Timestamp
  public var recordedAt: Timestamp
  /// The idempotency key of the event that caused it; nil when time passing did.
  public var cause: String?

  public init(
    ordinal: Int, appAccountToken: String, originalTransactionId: String, from: Int32?,
    to: Int32, effectiveAt: Timestamp, recordedAt: Timestamp, cause: String?
  ) {
    self.ordinal = ordinal
    self.appAccountToken = appAccountToken
    self.originalTransactionId = originalTransactionId
    self.from = from
    self.to = to
    self.effectiveAt = effectiveAt
    self.recordedAt = recordedAt
    self.cause = cause
  }
}

/// Which transitions a list holds: into `status`, that took effect in `[from, before)`.
public struct StatusTransitionFilter: Sendable, Hashable {
  public var status: Int32
  public var from: Timestamp
  public var before: Timestamp

  public init(status: Int32, from: Timestamp, before: Timestamp) {
    self.status = status
    self.from = from
    self.before = before
  }

  public var canonicalText: String {
    "status=\(status)&from=\(from.milliseconds)&before=\(before.milliseconds)"
  }
}

/// Where a page of transitions ends: newest first by when they took effect, then account and
/// place in its history.
public struct StatusTransitionKey: Sendable, Hashable {
  public var effectiveAt: Timestamp
  public var appAccountToken: String
  public var ordinal: Int

  public init(effectiveAt: Timestamp, appAccountToken: String, ordinal: Int) {
    self.effectiveAt = effectiveAt
    self.appAccountToken = appAccountToken
    self.ordinal = ordinal
  }

  public init(_ row: StatusTransitionRow) {
    self.init(
      effectiveAt: row.effectiveAt, appAccountToken: row.appAccountToken, ordinal: row.ordinal)
  }

  /// Whether `row` comes after this key in the list's order (newest first).
  public func precedes(_ row: StatusTransitionRow) -> Bool {
    (row.effectiveAt.milliseconds, row.appAccountToken, row.ordinal)
      < (effectiveAt.milliseconds, appAccountToken, ordinal)
  }
}
