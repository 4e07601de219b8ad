/// The folded log: every fact the projections read, keyed by Apple's identifiers and merged by
/// Apple's timestamps, so the same events in any order, any number of times, give the same
/// state. Derived answers (status, balances, entitlements) are computed from it at a time of
/// the caller's choosing; see ``LedgerView``.
public struct LedgerState: Hashable, Sendable {
  /// By `transactionId`.
  public internal(set) var transactions: [String: TransactionRecord] = [:]
  /// By `originalTransactionId`.
  public internal(set) var renewals: [String: RenewalHistory] = [:]
  /// By `originalTransactionId`.
  public internal(set) var appleStatuses: [String: AppleStatusRecord] = [:]
  /// The newest reversal evidence for transactions not seen yet, by `transactionId`.
  public internal(set) var pendingReversals: [String: PendingReversal] = [:]
  /// By debit id.
  public internal(set) var debits: [String: DebitRecord] = [:]
  /// By `originalTransactionId`.
  public internal(set) var links: [String: LinkRecord] = [:]

  public struct PendingReversal: Hashable, Sendable {
    public var signedDate: Timestamp?
    public var source: EventReference

    func supersedes(_ other: PendingReversal) -> Bool {
      let mine = signedDate?.milliseconds ?? .min
      let theirs = other.signedDate?.milliseconds ?? .min
      return mine != theirs ? mine > theirs : source.ordersAfter(other.source)
    }
  }

  public init() {}

  /// The Decider's `evolve`: pure and total. An event the state cannot use (no identifiers)
  /// leaves it unchanged.
  public static func evolve(_ state: LedgerState, _ event: LedgerEvent) -> LedgerState {
    var next = state
    next.apply(event)
    return next
  }

  /// Folds `events` in the given order (the result does not depend on it).
  public static func fold<Events: Sequence<LedgerEvent>>(_ events: Events) -> LedgerState {
    var state = LedgerState()
    for event in events { state.apply(event) }
    return state
  }

  /// `evolve` in place.
  public mutating func apply(_ event: LedgerEvent) {
    switch event.body {
    case .notification(let received): apply(received, source: event.reference)
    case .transaction(let observed):
      absorb(observed.transaction, source: event.reference)
      if let token = observed.appAccountToken, !token.isEmpty,
        let id = observed.transaction.transactionId
      {
        transactions[id]?.absorbForwardedToken(token)
      }
    case .renewalInfo(let observed): absorb(observed.renewalInfo, source: event.reference)
    case .status(let observed): apply(observed, source: event.reference)
    case .debit(let debit): absorb(debit, source: event.reference)
    case .link(let link): absorb(link, source: event.reference)
    }
  }

  private mutating func apply(_ received: NotificationReceived, source: EventReference) {
    if let transaction = received.transaction { absorb(transaction, source: source) }
    if let renewal = received.renewalInfo { absorb(renewal, source: source) }
    let notification = received.notification
    if notification.notificationType == .refundReversed,
      let id = received.transaction?.transactionId
    {
      absorbReversal(of: id, signedDate: notification.signedDate, source: source)
    }
    if let status = notification.data?.status,
      let id = received.transaction?.originalTransactionId
        ?? received.renewalInfo?.originalTransactionId
    {
      absorb(
        AppleStatusRecord(status: status, signedDate: notification.signedDate, source: source),
        for: id)
    }
  }

  private mutating func apply(_ observed: StatusObserved, source: EventReference) {
    if let transaction = observed.transaction { absorb(transaction, source: source) }
    if let renewal = observed.renewalInfo { absorb(renewal, source: source) }
    if let status = observed.status {
      absorb(
        AppleStatusRecord(status: status, signedDate: observed.signedDate, source: source),
        for: observed.originalTransactionId)
    }
  }

  private mutating func absorb(_ payload: JWSTransactionDecodedPayload, source: EventReference) {
    guard let facts = TransactionFacts(payload) else { return }
    if transactions[facts.transactionId]?.absorb(facts, source: source) == nil {
      var record = TransactionRecord(facts: facts, source: source)
      if let reversal = pendingReversals.removeValue(forKey: facts.transactionId) {
        record.absorbReversal(signedDate: reversal.signedDate, source: reversal.source)
      }
      transactions[facts.transactionId] = record
    }
  }

  private mutating func absorbReversal(
    of transactionId: String, signedDate: Timestamp?, source: EventReference
  ) {
    if transactions[transactionId]?.absorbReversal(signedDate: signedDate, source: source) == nil {
      let reversal = PendingReversal(signedDate: signedDate, source: source)
      if pendingReversals[transactionId].map({ reversal.supersedes($0) }) ?? true {
        pendingReversals[transactionId] = reversal
      }
    }
  }

  private mutating func absorb(_ payload: JWSRenewalInfoDecodedPayload, source: EventReference) {
    guard let record = RenewalRecord(payload, source: source) else { return }
    renewals[record.originalTransactionId, default: RenewalHistory()].insert(record)
  }

  private mutating func absorb(_ record: AppleStatusRecord, for id: String) {
    if appleStatuses[id].map({ record.supersedes($0) }) ?? true { appleStatuses[id] = record }
  }

  private mutating func absorb(_ debit: ConsumableDebited, source: EventReference) {
    let record = DebitRecord(debit: debit, source: source)
    if debits[debit.id].map({ record.supersedes($0) }) ?? true { debits[debit.id] = record }
  }

  private mutating func absorb(_ link: AccountLinked, source: EventReference) {
    let record = LinkRecord(
      appAccountToken: link.appAccountToken, linkedAt: link.linkedAt, source: source)
    let id = link.originalTransactionId
    if links[id].map({ record.supersedes($0) }) ?? true { links[id] = record }
  }
}
