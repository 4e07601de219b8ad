/// One event of the log as the reducers see it: its facts (`body`), when StoreLedger recorded
/// it, and a reference that explanations point back to. The log stores exactly the body
/// (design.md, "Events"); Apple's claims, from which the facts were made, sit beside it as
/// evidence.
public struct LedgerEvent: Hashable, Sendable {
  /// What happened. Kept inside ``compiled``, so copying an event copies one reference.
  public var body: Body {
    get { compiled.body }
    set { compiled = FoldInput(newValue, key: key) }
  }
  /// When StoreLedger stored the event; for "as we knew it at T" folds.
  public var recordedAt: Timestamp?
  /// The event's idempotency key (or a scenario's index), shown in explanations.
  public var key: String? {
    didSet { compiled = compiled.withKey(key) }
  }
  /// The body with what folding derives from it once (its reference, its order digest).
  public private(set) var compiled: FoldInput

  /// The facts of one event, one case per kind. Its `Codable` form is the stored payload.
  public enum Body: Hashable, Sendable {
    case notification(NotificationFacts)
    case transaction(SignedTransactionFacts)
    case renewal(RenewalInfoFacts)
    case status(StatusFacts)
    case debit(ConsumableDebited)
    case link(AccountLinked)
    /// StoreLedger's record of a developer-hosted seat claim.
    case seat(SeatClaimEvent)
    /// An operator's grant of an entitlement, or its end.
    case grant(SupportGrantEvent)
  }

  public init(_ body: Body, recordedAt: Timestamp? = nil, key: String? = nil) {
    self.recordedAt = recordedAt
    self.key = key
    self.compiled = FoldInput(body, key: key)
  }

  public static func == (lhs: LedgerEvent, rhs: LedgerEvent) -> Bool {
    lhs.body == rhs.body && lhs.recordedAt == rhs.recordedAt && lhs.key == rhs.key
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(body)
    hasher.combine(recordedAt)
    hasher.combine(key)
  }

  /// The stable, versioned type stored in the log's `event_type`.
  public var eventType: String { body.eventType }

  /// Apple's time for Apple's data (`signedDate`), the backend's time for its commands: what
  /// "as Apple knew it at T" compares.
  public var effectiveDate: Timestamp? { body.effectiveDate }
}

extension LedgerEvent.Body {
  public static let renewalEventType = EventTypes.renewalInfo

  /// The stable, versioned type stored in the log's `event_type`.
  public var eventType: String {
    switch self {
    case .notification: NotificationFacts.eventType
    case .transaction: SignedTransactionFacts.eventType
    case .renewal: Self.renewalEventType
    case .status: StatusFacts.eventType
    case .debit: ConsumableDebited.eventType
    case .link: AccountLinked.eventType
    case .seat: SeatClaimEvent.eventType
    case .grant: SupportGrantEvent.eventType
    }
  }

  /// Apple's time for Apple's data (`signedDate`), the backend's time for its commands: what
  /// "as Apple knew it at T" compares.
  public var effectiveDate: Timestamp? {
    switch self {
    case .notification(let facts): facts.signedDate
    case .transaction(let seen): seen.transaction.signedDate
    case .renewal(let facts): facts.signedDate
    case .status(let facts): facts.signedDate
    case .debit(let debit): debit.debitedAt
    case .link(let link): link.linkedAt
    case .seat(let seat): seat.occurredAt
    case .grant(let grant): grant.occurredAt
    }
  }

  /// The one transaction snapshot the event carries, if any.
  public var transactionFacts: TransactionFacts? {
    switch self {
    case .notification(let facts): facts.transaction
    case .transaction(let seen): seen.transaction
    case .status(let facts): facts.transaction
    case .renewal, .debit, .link, .seat, .grant: nil
    }
  }

  /// The one renewal info the event carries, if any.
  public var renewalFacts: RenewalInfoFacts? {
    switch self {
    case .notification(let facts): facts.renewal
    case .renewal(let facts): facts
    case .status(let facts): facts.renewal
    case .transaction, .debit, .link, .seat, .grant: nil
    }
  }

  /// The subscription status Apple signed into the event, if any.
  public var appleStatus: SubscriptionStatus? {
    switch self {
    case .notification(let facts): facts.status
    case .status(let facts): facts.status
    case .transaction, .renewal, .debit, .link, .seat, .grant: nil
    }
  }
}

/// The stored payload: one member naming the kind (`notification`, `transaction`, `renewal`,
/// `status`, `debit`, `link`) holding its facts.
extension LedgerEvent.Body: Codable {
  private enum Keys: String, CodingKey, CaseIterable {
    case notification, transaction, renewal, status, debit, link, seat, grant
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: Keys.self)
    let kind = try container.onlyKind(of: Keys.allCases, for: "stored facts")
    switch kind {
    case .notification:
      self = .notification(try container.decode(NotificationFacts.self, forKey: kind))
    case .transaction:
      self = .transaction(try container.decode(SignedTransactionFacts.self, forKey: kind))
    case .renewal: self = .renewal(try container.decode(RenewalInfoFacts.self, forKey: kind))
    case .status: self = .status(try container.decode(StatusFacts.self, forKey: kind))
    case .debit: self = .debit(try container.decode(ConsumableDebited.self, forKey: kind))
    case .link: self = .link(try container.decode(AccountLinked.self, forKey: kind))
    case .seat: self = .seat(try container.decode(SeatClaimEvent.self, forKey: kind))
    case .grant: self = .grant(try container.decode(SupportGrantEvent.self, forKey: kind))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Keys.self)
    switch self {
    case .notification(let facts): try container.encode(facts, forKey: .notification)
    case .transaction(let seen): try container.encode(seen, forKey: .transaction)
    case .renewal(let facts): try container.encode(facts, forKey: .renewal)
    case .status(let facts): try container.encode(facts, forKey: .status)
    case .debit(let debit): try container.encode(debit, forKey: .debit)
    case .link(let link): try container.encode(link, forKey: .link)
    case .seat(let seat): try container.encode(seat, forKey: .seat)
    case .grant(let grant): try container.encode(grant, forKey: .grant)
    }
  }
}
