/// A subscription entering a status, as the change feed recorded it: "who went into billing
/// retry during the outage".
public struct StatusTransitionRow: Sendable, Hashable {
  /// The change's feed position.
  public var position: Int64
  public var appAccountToken: String
  public var originalTransactionId: String
  /// The status left (nil for a subscription's first) and the one entered.
  public var from: Int32?
  public var to: Int32
  /// When it took effect by Apple's data (or the clock's crossing) and when the feed
  /// recorded it.
  public var effectiveAt: Timestamp
  public var recordedAt: Timestamp
  /// The idempotency key of the event that caused it; nil when time passing did.
  public var cause: String?

  public init(
    position: Int64, appAccountToken: String, originalTransactionId: String, from: Int32?,
    to: Int32, effectiveAt: Timestamp, recordedAt: Timestamp, cause: String?
  ) {
    self.position = position
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

/// Where a page of transitions ends: newest first by occurrence, then feed position.
public struct StatusTransitionKey: Sendable, Hashable {
  public var effectiveAt: Timestamp
  public var position: Int64

  public init(effectiveAt: Timestamp, position: Int64) {
    self.effectiveAt = effectiveAt
    self.position = position
  }
}
