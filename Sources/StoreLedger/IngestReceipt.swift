import StoreLedgerCore

/// What an ingest stored (or had stored before).
public struct IngestReceipt: Sendable, Hashable {
  public var streamId: String
  public var idempotencyKey: String
  public var streamVersion: Int64
  /// The event was already stored: nothing new was written.
  public var wasDuplicate: Bool
  /// For notifications: Apple's `notificationType` (raw, also when unknown to us).
  public var notificationType: String? = nil
  /// A verified notification whose app could not be read, kept as unrouted evidence: it
  /// grants and revokes nothing (``SupportQueries/notUnderstood(limit:)`` lists it).
  public var unrouted: Bool = false
  /// For notifications: this release knows its type and every body object it carries.
  public var understood: Bool = true
}

extension IngestReceipt {
  /// The first (usually only) event of an append.
  init(_ result: AppendResult) {
    let stored = result.events[0]
    self.init(
      streamId: result.streamId, idempotencyKey: stored.idempotencyKey,
      streamVersion: stored.streamVersion, wasDuplicate: result.wasDuplicate)
  }
}
