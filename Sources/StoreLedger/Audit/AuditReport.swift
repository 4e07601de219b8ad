/// What an audit checked and every inconsistency it found. Consistent only when there is none.
public struct AuditReport: Sendable, Hashable, Codable {
  public struct Problem: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Hashable, Codable {
      /// The hash chain or the version sequence of a stream does not hold.
      case hashChain = "hash_chain"
      /// A stored JWS no longer verifies.
      case signature
      /// The stored payload is not what the stored JWS says.
      case payload
      /// A live read-model row differs from the projection rebuilt from the log.
      case readModel = "read_model"
      /// An account's stored changes are not what the log derives.
      case changeFeed = "change_feed"
    }

    public var kind: Kind
    /// The stream (log problems) or the account (read-model problems).
    public var subject: String
    public var streamVersion: Int64?
    /// The field that differs, as a path (`subscriptions[0].status`), for read models.
    public var field: String?
    public var live: String?
    public var rebuilt: String?
    public var detail: String
  }

  public var eventsChecked = 0
  public var signaturesVerified = 0
  public var accountsCompared = 0
  /// Accounts whose live view is not current (the projector has not caught up): not compared.
  public var accountsNotCurrent = 0
  /// Stored changes found equal to a derivation from the log.
  public var changesCompared = 0
  public var problems: [Problem] = []
  /// Wall-clock seconds of each phase, for capacity planning.
  public var hashChainSeconds = 0.0
  public var signatureSeconds = 0.0
  public var readModelSeconds = 0.0

  public var isConsistent: Bool { problems.isEmpty }

  public init() {}
}
