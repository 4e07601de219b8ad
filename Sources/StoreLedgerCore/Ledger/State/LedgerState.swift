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
    let input: FoldInput

    func supersedes(_ other: PendingReversal) -> Bool {
      let mine = signedDate?.milliseconds ?? .min
      let theirs = other.signedDate?.milliseconds ?? .min
      return mine != theirs ? mine > theirs : input.ordersAfter(other.input)
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
    // Most events name a transaction: room for them up front saves rehashing while growing.
    state.transactions.reserveCapacity(events.underestimatedCount / 2)
    for event in events { state.apply(event) }
    return state
  }

  /// Folds an array: the common case, compiled without generic dispatch per event.
  public static func fold(_ events: [LedgerEvent]) -> LedgerState {
    var state = LedgerState()
    state.transactions.reserveCapacity(events.count / 2)
    for index in events.indices { state.apply(events[index].compiled) }
    return state
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
            of: transaction.transactionId, signedDate: input.effectiveDate, source: input)
        }
      }
      if let renewal { absorb(renewal, source: input) }
      if let status, let id = transaction?.originalTransactionId ?? renewal?.originalTransactionId {
        absorb(
          AppleStatusRecord(status: status, signedDate: input.effectiveDate, input: input), for: id)
      }
    case .transaction(let transaction, let forwardedToken):
      guard let transaction else { return }
      absorb(transaction, source: input)
      if let forwardedToken {
        transactions[transaction.transactionId]?.absorbForwardedToken(forwardedToken)
      }
    case .renewal(let renewal):
      if let renewal { absorb(renewal, source: input) }
    case .status(let id, let transaction, let renewal, let status):
      if let transaction { absorb(transaction, source: input) }
      if let renewal { absorb(renewal, source: input) }
      if let status {
        absorb(
          AppleStatusRecord(status: status, signedDate: input.effectiveDate, input: input), for: id)
      }
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

  private mutating func absorb(_ facts: TransactionFacts, source: FoldInput) {
    if let index = transactions.index(forKey: facts.transactionId) {
      transactions.values[index].absorb(facts, source: source)
      return
    }
    var record = TransactionRecord(facts: facts, source: source)
    if !pendingReversals.isEmpty,
      let reversal = pendingReversals.removeValue(forKey: facts.transactionId)
    {
      record.absorbReversal(signedDate: reversal.signedDate, source: reversal.input)
    }
    transactions[facts.transactionId] = record
  }

  private mutating func absorb(_ renewal: RenewalFacts, source: FoldInput) {
    renewals[renewal.originalTransactionId, default: RenewalHistory()].insert(
      RenewalRecord(facts: renewal, input: source))
  }

  private mutating func absorbReversal(
    of transactionId: String, signedDate: Timestamp?, source: FoldInput
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

  private mutating func absorb(_ record: AppleStatusRecord, for id: String) {
    guard let index = appleStatuses.index(forKey: id) else {
      appleStatuses[id] = record
      return
    }
    if record.supersedes(appleStatuses.values[index]) { appleStatuses.values[index] = record }
  }
}
