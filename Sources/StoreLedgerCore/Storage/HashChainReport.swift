/// The outcome of checking the hash chain of a stream or of the whole log.
public struct HashChainReport: Sendable, Hashable {
  public struct Mismatch: Sendable, Hashable {
    public enum Reason: String, Sendable, Hashable {
      /// The row's content no longer hashes to its `hash`: it was changed.
      case contentChanged = "content_changed"
      /// `prev_hash` is not the previous row's `hash`: a row was changed, removed or inserted.
      case brokenLink = "broken_link"
      /// Versions are not 1, 2, 3, …: a row is missing.
      case versionGap = "version_gap"
    }

    public let streamId: String
    public let streamVersion: Int64
    public let position: FeedPosition
    public let reason: Reason

    package init(streamId: String, streamVersion: Int64, position: FeedPosition, reason: Reason) {
      self.streamId = streamId
      self.streamVersion = streamVersion
      self.position = position
      self.reason = reason
    }
  }

  public let checkedEvents: Int
  /// Rows among them that an erasure turned into tombstones: checked by their links (their
  /// content is gone, so their hash cannot be recomputed) and by their erasure's record.
  public let erasedEvents: Int
  /// Rows among them that are operators' grants (`ledger.grant.v1`): StoreLedger's own events,
  /// not Apple's evidence, counted so the audit can say so.
  public package(set) var grantEvents = 0
  /// Rows among them that record relays (targets added or removed, attempts to send Apple's
  /// notifications on): StoreLedger's own records of what it sent where.
  public package(set) var relayEvents = 0
  /// The first row, in feed order, that does not match; nil when the chain is intact.
  public let firstMismatch: Mismatch?

  public var isIntact: Bool { firstMismatch == nil }

  package init(checkedEvents: Int, erasedEvents: Int = 0, firstMismatch: Mismatch?) {
    self.checkedEvents = checkedEvents
    self.erasedEvents = erasedEvents
    self.firstMismatch = firstMismatch
  }
}
