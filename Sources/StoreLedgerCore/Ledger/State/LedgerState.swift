/// The folded log: every fact the projections read, keyed by Apple's identifiers and merged by
/// Apple's timestamps, so the same events in any order, any number of times, give the same
/// state. Derived answers (status, balances, entitlements) are computed from it at a time of
/// the caller's choosing; see ``LedgerView``.
public struct LedgerState: Hashable, Sendable {
  /// By `transactionId`.
  public internal(set) var transactions: [RecordKey: TransactionRecord] = [:]
  /// Renewal infos and Apple's status, by `originalTransactionId` (one map: a notification
  /// usually brings both, and one lookup is cheaper than two).
  public internal(set) var subscriptions: [RecordKey: SubscriptionEvidence] = [:]

  public struct SubscriptionEvidence: Hashable, Sendable {
    public internal(set) var renewals = RenewalHistory()
    /// The newest status Apple reported; for cross-checks only.
    public internal(set) var appleStatus: AppleStatusRecord?

    mutating func absorb(
      _ renewal: RenewalFacts?, _ status: SubscriptionStatus?, source: FoldInput
    ) {
      if let renewal { renewals.insert(RenewalRecord(facts: renewal, input: source)) }
      guard let status else { return }
      let record = AppleStatusRecord(
        status: status, signedDate: source.effectiveDate, input: source)
      if appleStatus.map({ record.supersedes($0) }) ?? true { appleStatus = record }
    }
  }
  /// The newest reversal evidence for transactions not seen yet, by `transactionId`.
  public internal(set) var pendingReversals: [RecordKey: PendingReversal] = [:]
  /// By debit id.
  public internal(set) var debits: [String: DebitRecord] = [:]
  /// By `originalTransactionId`.
  public internal(set) var links: [String: LinkRecord] = [:]

  public struct PendingReversal: Hashable, Sendable {
    public var signedDate: Timestamp?
    let input: FoldInput

    func supersedes(_ other: PendingReversal) -> Bool {
      let mine = signedDate?.milliseconds ?? .min
      let theirs = other.signedDate?.milliseconds ?? .min
      return mine != theirs ? mine > theirs : input.ordersAfter(other.input)
    }
  }

  public init() {}

  /// The renewal infos and Apple's status of subscription `originalTransactionId`.
  public func subscription(_ originalTransactionId: String) -> SubscriptionEvidence? {
    subscriptions[RecordKey(originalTransactionId)]
  }

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
    state.reserveCapacity(events.underestimatedCount)
    for event in events { state.apply(event) }
    return state
  }

  /// Folds an array: the common case, compiled without generic dispatch per event.
  public static func fold(_ events: [LedgerEvent]) -> LedgerState {
    var state = LedgerState()
    state.reserveCapacity(events.count)
    for index in events.indices { state.apply(events[index].compiled) }
    return state
  }

  /// Room for what `events` events usually hold (about two transactions per three events, one
  /// subscription per four): growing the maps while folding rehashes them again and again.
  mutating func reserveCapacity(_ events: Int) {
    transactions.reserveCapacity(events * 2 / 3)
    subscriptions.reserveCapacity(events / 4)
  }

  /// `evolve` in place.
  public mutating func apply(_ event: LedgerEvent) {
    apply(event.compiled)
  }

  mutating func apply(_ input: FoldInput) {
    switch input.change {
    case .notification(let transaction, let renewal, let isReversal, let status):
      if let transaction {
        absorb(transaction, source: input)
        if isReversal {
          absorbReversal(
            of: transaction.key, signedDate: input.effectiveDate, source: input)
        }
      }
      if let id = transaction?.originalKey ?? renewal?.key,
        renewal != nil || status != nil
      {
        absorb(renewal, status: status, for: id, source: input)
      }
    case .transaction(let transaction, let forwardedToken):
      guard let transaction else { return }
      absorb(transaction, source: input)
      if forwardedToken != nil { transactions[transaction.key]?.absorbForward(input) }
    case .renewal(let renewal):
      if let renewal {
        absorb(renewal, status: nil, for: renewal.key, source: input)
      }
    case .status(let id, let transaction, let renewal, let status):
      if let transaction { absorb(transaction, source: input) }
      if let renewal {
        absorb(renewal, status: nil, for: renewal.key, source: input)
      }
      if let status { absorb(nil, status: status, for: id, source: input) }
    case .debit(let debit):
      let record = DebitRecord(debit: debit, input: input)
      if debits[debit.id].map({ record.supersedes($0) }) ?? true { debits[debit.id] = record }
    case .link(let link):
      let record = LinkRecord(
        appAccountToken: link.appAccountToken, linkedAt: link.linkedAt, input: input)
      let id = link.originalTransactionId
      if links[id].map({ record.supersedes($0) }) ?? true { links[id] = record }
    }
  }

  /// One hash lookup, also for a new transaction: the record is made in place, and absorbing
  /// the snapshot it was made from changes nothing. `facts` is the one `source` carries.
  private mutating func absorb(_ facts: TransactionFacts, source: FoldInput) {
    let known = transactions.count
    transactions[facts.key, default: TransactionRecord(source: source)].absorb(source)
    guard transactions.count != known, !pendingReversals.isEmpty,
      let reversal = pendingReversals.removeValue(forKey: facts.key)
    else { return }
    transactions[facts.key]?.absorbReversal(
      signedDate: reversal.signedDate, source: reversal.input)
  }

  /// A renewal info and/or Apple's status about subscription `id`, in one lookup.
  private mutating func absorb(
    _ renewal: RenewalFacts?, status: SubscriptionStatus?, for id: RecordKey, source: FoldInput
  ) {
    subscriptions[id, default: SubscriptionEvidence()].absorb(renewal, status, source: source)
  }

  private mutating func absorbReversal(
    of transactionId: RecordKey, signedDate: Timestamp?, source: FoldInput
  ) {
    if let index = transactions.index(forKey: transactionId) {
      transactions.values[index].absorbReversal(signedDate: signedDate, source: source)
      return
    }
    let reversal = PendingReversal(signedDate: signedDate, input: source)
    if pendingReversals[transactionId].map({ reversal.supersedes($0) }) ?? true {
      pendingReversals[transactionId] = reversal
    }
  }
}
