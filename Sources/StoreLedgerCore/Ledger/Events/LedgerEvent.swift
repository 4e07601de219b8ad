/// One fact in the log, as the reducers see it: what happened (`body`), when StoreLedger
/// recorded it, and a reference that explanations point back to.
public struct LedgerEvent: Hashable, Sendable {
  /// What happened. Kept inside ``compiled``, so copying an event copies one reference.
  public var body: Body {
    // An event's fold input is always made from its body, and keeps it.
    get { compiled.body! }
    set { compiled = FoldInput(newValue, key: key) }
  }
  /// When StoreLedger stored the event; for "as we knew it at T" folds.
  public var recordedAt: Timestamp?
  /// The event's idempotency key (or a scenario's index), shown in explanations.
  public var key: String? {
    didSet { compiled = compiled.withKey(key) }
  }
  /// What the reducers read, extracted once when the event is made: folding then copies one
  /// reference per event instead of Apple's whole payloads.
  public private(set) var compiled: FoldInput

  public enum Body: Hashable, Sendable {
    case notification(NotificationReceived)
    case transaction(TransactionObserved)
    case renewalInfo(RenewalInfoObserved)
    case status(StatusObserved)
    case debit(ConsumableDebited)
    case link(AccountLinked)
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
  /// The stable, versioned type stored in the log's `event_type`.
  public var eventType: String {
    switch self {
    case .notification: NotificationReceived.eventType
    case .transaction: TransactionObserved.eventType
    case .renewalInfo: RenewalInfoObserved.eventType
    case .status: StatusObserved.eventType
    case .debit: ConsumableDebited.eventType
    case .link: AccountLinked.eventType
    }
  }

  /// Apple's time for Apple's data (`signedDate`), the backend's time for its commands: what
  /// "as Apple knew it at T" compares.
  public var effectiveDate: Timestamp? {
    switch self {
    case .notification(let event): event.notification.signedDate
    case .transaction(let event): event.transaction.signedDate
    case .renewalInfo(let event): event.renewalInfo.signedDate
    case .status(let event): event.signedDate
    case .debit(let event): event.debitedAt
    case .link(let event): event.linkedAt
    }
  }
}
