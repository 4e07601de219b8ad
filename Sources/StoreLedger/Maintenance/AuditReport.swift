import StoreLedgerCore

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
      /// The log or a checkpoint does not match what the signed checkpoints vouch for.
      case checkpoint
      /// Erased rows are not exactly those their erasure recorded.
      case erasure
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
  /// Events among them that an erasure turned into tombstones: their links and their
  /// erasure's record are checked; their signatures are gone, not verifiable by design.
  public var eventsErased = 0
  /// Operators' grants among the events (StoreLedger's own, rule E7; not Apple's evidence).
  public var grantEvents = 0
  /// Relay records among the events (targets, attempts to send Apple's notifications on):
  /// StoreLedger's own, not Apple's evidence.
  public var relayEvents = 0
  /// Erasure events whose erased rows were counted and digested again.
  public var erasuresChecked = 0
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

  /// The share of the log this report covers (nil: reports written before shards, the whole).
  public var shard: WorkShard?

  public var isConsistent: Bool { problems.isEmpty }

  public init() {}

  private enum CodingKeys: String, CodingKey {
    case eventsChecked, eventsErased, grantEvents, relayEvents, erasuresChecked, signaturesVerified
    case accountsCompared
    case accountsNotCurrent, changesCompared, problems, hashChainSeconds, signatureSeconds
    case readModelSeconds, shard
  }

  /// Reads reports written by releases without erasure counts as well.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    eventsChecked = try container.decode(Int.self, forKey: .eventsChecked)
    eventsErased = try container.decodeIfPresent(Int.self, forKey: .eventsErased) ?? 0
    grantEvents = try container.decodeIfPresent(Int.self, forKey: .grantEvents) ?? 0
    relayEvents = try container.decodeIfPresent(Int.self, forKey: .relayEvents) ?? 0
    erasuresChecked = try container.decodeIfPresent(Int.self, forKey: .erasuresChecked) ?? 0
    signaturesVerified = try container.decode(Int.self, forKey: .signaturesVerified)
    accountsCompared = try container.decode(Int.self, forKey: .accountsCompared)
    accountsNotCurrent = try container.decode(Int.self, forKey: .accountsNotCurrent)
    changesCompared = try container.decode(Int.self, forKey: .changesCompared)
    problems = try container.decode([Problem].self, forKey: .problems)
    hashChainSeconds = try container.decode(Double.self, forKey: .hashChainSeconds)
    signatureSeconds = try container.decode(Double.self, forKey: .signatureSeconds)
    readModelSeconds = try container.decode(Double.self, forKey: .readModelSeconds)
    shard = try container.decodeIfPresent(WorkShard.self, forKey: .shard)
  }

  /// Adds `part`'s counts and problems (after this report's), not its timings.
  mutating func add(_ part: AuditReport) {
    eventsChecked += part.eventsChecked
    eventsErased += part.eventsErased
    grantEvents += part.grantEvents
    relayEvents += part.relayEvents
    erasuresChecked += part.erasuresChecked
    signaturesVerified += part.signaturesVerified
    accountsCompared += part.accountsCompared
    accountsNotCurrent += part.accountsNotCurrent
    changesCompared += part.changesCompared
    problems += part.problems
  }

  /// One verdict from the reports of shares 0…N-1 of one N-way audit: counts added, problems
  /// together (in kind, subject, version order), each phase as long as its slowest share.
  /// Throws `invalidRequest` unless the reports are exactly the N shares, once each.
  public static func combining(_ reports: [AuditReport]) throws(LedgerError) -> AuditReport {
    let shards = reports.map { $0.shard ?? .whole }
    guard let count = shards.first?.count, shards.allSatisfy({ $0.count == count }),
      Set(shards.map(\.index)) == Set(0..<count), shards.count == count
    else {
      throw LedgerError(
        .invalidRequest,
        "combine the reports of shards 0/N … N-1/N of one audit, each once (given: "
          + shards.map(\.description).joined(separator: ", ") + ")")
    }
    var combined = AuditReport()
    combined.shard = .whole
    for report in reports {
      combined.add(report)
      combined.hashChainSeconds = max(combined.hashChainSeconds, report.hashChainSeconds)
      combined.signatureSeconds = max(combined.signatureSeconds, report.signatureSeconds)
      combined.readModelSeconds = max(combined.readModelSeconds, report.readModelSeconds)
    }
    combined.problems.sort {
      ($0.kind.rawValue, $0.subject, $0.streamVersion ?? -1, $0.field ?? "")
        < ($1.kind.rawValue, $1.subject, $1.streamVersion ?? -1, $1.field ?? "")
    }
    return combined
  }
}
