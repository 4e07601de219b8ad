/// One fact in the log, as the reducers see it: what happened (`body`), when StoreLedger
/// recorded it, and a reference that explanations point back to.
public struct LedgerEvent: Hashable, Sendable {
  public var body: Body
  /// When StoreLedger stored the event; for "as we knew it at T" folds.
  public var recordedAt: Timestamp?
  /// The event's idempotency key (or a scenario's index), shown in explanations.
  public var key: String?

  public enum Body: Hashable, Sendable {
    case notification(NotificationReceived)
    case transaction(TransactionObserved)
    case renewalInfo(RenewalInfoObserved)
    case status(StatusObserved)
    case debit(ConsumableDebited)
    case link(AccountLinked)
  }

  public init(_ body: Body, recordedAt: Timestamp? = nil, key: String? = nil) {
    self.body = body
    self.recordedAt = recordedAt
    self.key = key
  }

  /// The stable, versioned type stored in the log's `event_type`.
  public var eventType: String {
    switch body {
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
    switch body {
    case .notification(let event): event.notification.signedDate
    case .transaction(let event): event.transaction.signedDate
    case .renewalInfo(let event): event.renewalInfo.signedDate
    case .status(let event): event.signedDate
    case .debit(let event): event.debitedAt
    case .link(let event): event.linkedAt
    }
  }
}
