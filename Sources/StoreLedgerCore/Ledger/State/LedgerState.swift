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
    /// Statuses Apple signed in events that brought no renewal info of this subscription
    /// (rare: a notification or status observation carries both). The others are read
    /// through the renewal infos' events, so the fold keeps no second list per subscription.
    var statusesWithoutRenewal = AppleStatusHistory()

    /// Every status Apple reported, by `signedDate`: evidence where the log holds no period
    /// that explains it (projections/subscription-status.md, rule S0).
    public var appleStatuses: AppleStatusHistory {
      var history = AppleStatusHistory()
      for renewal in renewals.records {
        guard let status = renewal.input.appleStatus else { continue }
        history.insert(
          AppleStatusRecord(
            status: status, signedDate: renewal.input.effectiveDate, input: renewal.input))
      }
      for record in statusesWithoutRenewal.records { history.insert(record) }
      return history
    }

    /// The renewal info `source` carries (when `renewal`) and Apple's `status`.
    mutating func absorb(renewal: Bool, _ status: SubscriptionStatus?, source: FoldInput) {
      if renewal {
        if renewals.records.isEmpty { renewals.reserveCapacity(8) }
        renewals.insert(RenewalRecord(input: source))
        if status == source.appleStatus { return }
      }
      guard let status else { return }
      let record = AppleStatusRecord(
        status: status, signedDate: source.effectiveDate, input: source)
      statusesWithoutRenewal.insert(record)
    }
  }
  /// The newest reversal evidence for transactions not seen yet, by `transactionId`.
  public internal(set) var pendingReversals: [RecordKey: PendingReversal] = [:]
  /// By debit id.
  public internal(set) var debits: [String: DebitRecord] = [:]
  /// By `originalTransactionId`.
  public internal(set) var links: [String: LinkRecord] = [:]
  /// Every transfer of a purchase chain, oldest first, by `originalTransactionId`: a question
  /// about time T reads the newest made by T.
  public internal(set) var transfers: [String: [LinkRecord]] = [:]
  /// Developer-hosted seat claims, by `requestIdentifier`.
  public internal(set) var seatClaims: [String: SeatClaimRecord] = [:]
  /// Seat claims the App Store released (`UNCLAIM_SEATS`), by `seatClaimId`.
  public internal(set) var seatUnclaims: [String: SeatUnclaimRecord] = [:]
  /// Operators' grants of entitlements, by grant id.
  public internal(set) var supportGrants: [String: SupportGrantRecord] = [:]
  /// Downloads whose consent was withdrawn (`RESCIND_CONSENT`), by `appTransactionId`.
  public internal(set) var consentRescissions: [String: ConsentRecord] = [:]

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

  /// Folds fold inputs read straight from the log (the rebuild makes no events).
  public static func fold(_ inputs: [FoldInput]) -> LedgerState {
    var state = LedgerState()
    state.reserveCapacity(inputs.count)
    for input in inputs { state.apply(input) }
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
    // Reads the facts through `input` (kept alive by the caller) rather than binding them
    // out of the enum: a binding costs a reference count on memory that is rarely in cache.
    switch input.body {
    case .notification(let facts):
      if input.transactionFacts != nil {
        absorbTransaction(of: input)
        if facts.isReversal { absorbReversal(of: input) }
      }
      if let id = input.transactionFacts?.originalKey ?? input.renewalFacts?.key,
        input.renewalFacts != nil || facts.status != nil
      {
        absorbSubscriptionEvidence(of: input, status: facts.status, for: id)
      }
      if facts.rescindsConsent, let download = facts.appTransactionId {
        let record = ConsentRecord(appTransactionId: download, input: input)
        if consentRescissions[download].map({ record.precedes($0) }) ?? true {
          consentRescissions[download] = record
        }
      }
      for claim in facts.unclaimSeatIds ?? [] {
        let record = SeatUnclaimRecord(seatClaimId: claim, input: input)
        if seatUnclaims[claim].map({ record.precedes($0) }) ?? true { seatUnclaims[claim] = record }
      }
    case .transaction(let seen):
      absorbTransaction(of: input)
      if seen.forwardedToken != nil { transactions[seen.transaction.key]?.absorbForward(input) }
    case .renewal(let facts):
      absorbSubscriptionEvidence(of: input, status: nil, for: facts.key)
    case .status(let facts):
      let id = RecordKey(facts.originalTransactionId)
      if input.transactionFacts != nil { absorbTransaction(of: input) }
      let renewalKey = input.renewalFacts?.key
      if let key = renewalKey {
        absorbSubscriptionEvidence(of: input, status: key == id ? facts.status : nil, for: key)
      }
      if let status = facts.status, renewalKey != id {
        absorbSubscriptionEvidence(of: input, renewal: false, status: status, for: id)
      }
    case .debit(let debit):
      let record = DebitRecord(debit: debit, input: input)
      if debits[debit.id].map({ record.supersedes($0) }) ?? true { debits[debit.id] = record }
    case .link(let link):
      let record = LinkRecord(
        appAccountToken: link.appAccountToken, linkedAt: link.linkedAt,
        transferredFrom: link.transferredFrom, input: input)
      let id = link.originalTransactionId
      if links[id].map({ record.supersedes($0) }) ?? true { links[id] = record }
      if link.isTransfer, transfers[id]?.contains(record) != true {
        transfers[id, default: []].append(record)
        transfers[id]?.sort { $1.supersedes($0) }
      }
    case .seat(let seat) where seat.action == .reconciled:
      break  // evidence of a disagreement with Apple: it changes no claim
    case .grant(let grant):
      supportGrants[grant.grantId, default: SupportGrantRecord(grantId: grant.grantId)].absorb(
        input)
    case .seat(let seat):
      seatClaims[
        seat.requestIdentifier, default: SeatClaimRecord(requestIdentifier: seat.requestIdentifier)
      ].absorb(input)
    }
  }

  /// The newest transfer of the chain made by `time` (any time when nil).
  public func transfer(ofChain originalTransactionId: String, at time: Timestamp? = nil)
    -> LinkRecord?
  {
    guard let records = transfers[originalTransactionId] else { return nil }
    guard let time else { return records.last }
    return records.last { ($0.linkedAt?.milliseconds ?? .min) <= time.milliseconds }
  }

  /// One hash lookup, also for a new transaction: the record is made in place, and absorbing
  /// the snapshot it was made from changes nothing.
  private mutating func absorbTransaction(of source: FoldInput) {
    let key = source.transactionFacts!.key
    let known = transactions.count
    transactions[key, default: TransactionRecord(source: source)].absorb(source)
    guard transactions.count != known, !pendingReversals.isEmpty,
      let reversal = pendingReversals.removeValue(forKey: key)
    else { return }
    transactions[key]?.absorbReversal(signedDate: reversal.signedDate, source: reversal.input)
  }

  /// The renewal info (if any) of `source` and Apple's `status` about subscription `id`, in
  /// one lookup.
  private mutating func absorbSubscriptionEvidence(
    of source: FoldInput, renewal: Bool = true, status: SubscriptionStatus?, for id: RecordKey
  ) {
    subscriptions[id, default: SubscriptionEvidence()].absorb(
      renewal: renewal && source.renewalFacts != nil, status, source: source)
  }

  private mutating func absorbReversal(of source: FoldInput) {
    let transactionId = source.transactionFacts!.key
    let signedDate = source.effectiveDate
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
